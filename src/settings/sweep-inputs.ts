import { input as row } from '../inputs.js';
import {
  type BranchPattern,
  compileBranchPattern,
  PATTERN_FORM,
  PatternError
} from '../neon/branch-pattern.js';
import { formatDuration, parseDuration } from '../util/duration.js';
import { oneLine } from '../util/text.js';
import { type Field, invalid, readBool, readCount } from './fields.js';

// The inputs of `sweep_branches`, each read with an error that names it and the form it takes, and
// nothing sent when one is wrong. Their bounds and defaults are their rows' (src/inputs.ts):
// `sweep_max` and `dry_run` are read as any count and switch; the pattern, `older_than` (whose
// examples are days, not the seconds of a timeout) and the criterion are read here.

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
  const field = (name: keyof SweepValues): Field => ({ value: values[name].trim(), name });
  const pattern = readSweepPattern(values.sweep_branches);
  const olderThanMs = readOlderThan(values.older_than);
  if (olderThanMs === undefined && !canReadPulls)
    throw invalid(
      { name: 'sweep_branches' },
      (named) =>
        `needs ${named('older_than')} or a token that can read pull requests ` +
        `(${named('github_token')}, with ${named('repository')}): without either, a sweep has nothing to decide by.`
    );
  return {
    pattern,
    ...(olderThanMs === undefined ? {} : { olderThanMs }),
    sweepMax: readCount(field('sweep_max')),
    dryRun: readBool(field('dry_run'))
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

/** `older_than` in ms, within its row's bounds; undefined when unset. */
export function readOlderThan(value: string): number | undefined {
  const text = value.trim();
  if (text === '') return undefined;
  const { min = 0, max = Infinity } = row('older_than');
  const ms = parseDuration(text) ?? NaN;
  if (ms >= min && ms <= max) return ms;
  const why = Number.isNaN(ms) ? 'not a duration' : ms < min ? 'too short' : 'too long';
  const form = `a duration from ${formatDuration(min)} to ${formatDuration(max)}, such as 12h, 7d or 30d`;
  throw invalid({ name: 'older_than' }, `must be ${form}; '${oneLine(text, 60)}' is ${why}.`);
}
