import type { InputName } from '../inputs.js';
import type { SweepAsk } from '../neon/branch-sweep.js';
import {
  type BranchPattern,
  compileBranchPattern,
  PATTERN_FORM,
  PatternError
} from '../neon/branch-pattern.js';
import {
  type Field,
  type InputReader,
  invalid,
  readBool,
  readCount,
  readDuration
} from './fields.js';

// The inputs of `sweep_branches`, each read with an error that names it and the form it takes, and
// nothing sent when one is wrong. Their bounds and defaults are their rows' (src/inputs.ts):
// `sweep_max` and `dry_run` are read as any count and switch, `older_than` as any duration (its
// examples days, not the seconds of a timeout); the pattern and the criterion are read here.

/** What `sweep_branches` asks, read from its inputs. */
export interface SweepInputs extends Pick<SweepAsk, 'pattern' | 'sweepMax' | 'dryRun'> {
  olderThanMs?: number;
}

/**
 * The sweep's inputs; `canReadPulls`: a token and a repository to read pull requests with. A sweep
 * with neither `older_than` nor that is refused: it has nothing to decide by.
 */
export function readSweepInputs(input: InputReader, canReadPulls: boolean): SweepInputs {
  const field = (name: InputName): Field => ({ value: input(name).trim(), name });
  const pattern = readSweepPattern(field('sweep_branches'));
  const olderThan = field('older_than');
  const olderThanMs = olderThan.value ? readDuration(olderThan, '12h, 7d or 30d') : undefined;
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

function readSweepPattern(field: Field): BranchPattern {
  try {
    return compileBranchPattern(field.value);
  } catch (error) {
    if (!(error instanceof PatternError)) throw error;
    throw invalid(field, `must be ${PATTERN_FORM}; ${error.message}.`);
  }
}
