import {
  type BranchPattern,
  compileBranchPattern,
  PATTERN_FORM,
  PatternError
} from '../neon/branch-pattern.js';
import { formatDuration, parseDuration, YEAR_MS } from '../util/duration.js';
import { oneLine } from '../util/text.js';
import { asBool, invalid } from './fields.js';

// The inputs of `sweep_branches`, each read with an error that names it and the form it takes, and
// nothing sent when one is wrong. Their bounds and defaults are here until their rows join
// src/inputs.ts; then `readDuration`, `readCount` and `readBool` (settings/fields.ts) read the same
// bounds from the rows, in the same words, and only the pattern and the criterion stay here.

/** `sweep_max`: deletions in one run, 1 to 1000, 20 by default; `older_than`: 1 minute to a year. */
export const SWEEP_BOUNDS = {
  sweepMax: { default: 20, min: 1, max: 1000 },
  olderThan: { min: 60_000, max: YEAR_MS - 86_400_000 }
} as const;

/** What `sweep_branches` asks, read from its inputs. */
export interface SweepInputs {
  pattern: BranchPattern;
  olderThanMs?: number;
  sweepMax: number;
  dryRun: boolean;
}

/** The raw values (trimmed or not) of the sweep's inputs, `''` when unset. */
export interface SweepValues {
  sweep_branches: string;
  older_than: string;
  sweep_max: string;
  dry_run: string;
}

/**
 * The sweep's inputs; `canReadPulls`: a token and a repository to read pull requests with. A sweep
 * with neither `older_than` nor that is refused: it has nothing to decide by.
 */
export function readSweepInputs(values: SweepValues, canReadPulls: boolean): SweepInputs {
  const pattern = readSweepPattern(values.sweep_branches);
  const olderThanMs = readOlderThan(values.older_than);
  if (olderThanMs === undefined && !canReadPulls)
    throw invalid(
      { name: 'sweep_branches' },
      (named) =>
        `needs ${named('older_than')} or a token that can read pull requests ` +
        `(${named('github_token')}): without either, a sweep has nothing to decide by.`
    );
  return {
    pattern,
    ...(olderThanMs === undefined ? {} : { olderThanMs }),
    sweepMax: readSweepMax(values.sweep_max),
    dryRun: readDryRun(values.dry_run)
  };
}

export function readSweepPattern(value: string): BranchPattern {
  try {
    return compileBranchPattern(value.trim());
  } catch (error) {
    if (!(error instanceof PatternError)) throw error;
    throw invalid({ name: 'sweep_branches' }, `must be ${PATTERN_FORM}; ${error.message}.`);
  }
}

/** `older_than` in ms; undefined when unset. */
export function readOlderThan(value: string): number | undefined {
  const text = value.trim();
  if (text === '') return undefined;
  const { min, max } = SWEEP_BOUNDS.olderThan;
  const ms = parseDuration(text) ?? NaN;
  if (ms >= min && ms <= max) return ms;
  const why = Number.isNaN(ms) ? 'not a duration' : ms < min ? 'too short' : 'too long';
  const form = `a duration from ${formatDuration(min)} to ${formatDuration(max)}, such as 12h, 7d or 30d`;
  throw invalid({ name: 'older_than' }, `must be ${form}; '${oneLine(text, 60)}' is ${why}.`);
}

export function readSweepMax(value: string): number {
  const text = value.trim();
  const { default: fallback, min, max } = SWEEP_BOUNDS.sweepMax;
  if (text === '') return fallback;
  if (/^\d+$/.test(text) && +text >= min && +text <= max) return +text;
  throw invalid(
    { name: 'sweep_max' },
    `must be a whole number from ${min} to ${max}; got '${oneLine(text, 60)}'.`
  );
}

export function readDryRun(value: string): boolean {
  const text = value.trim();
  if (text === '') return false;
  const read = asBool(text);
  if (read !== undefined) return read;
  throw invalid(
    { name: 'dry_run' },
    `must be true or false (true, True, TRUE, false, False or FALSE); got '${oneLine(text, 60)}'.`
  );
}
