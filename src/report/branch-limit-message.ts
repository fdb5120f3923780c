import type { SweepBranch } from '../neon/branch-sweep.js';
import type { Naming } from '../util/errors.js';
import { oneLine } from '../util/text.js';
import { ageWords } from './sweep-words.js';

/** What the error at the project's branch limit says: nothing is deleted unasked. */
export interface BranchLimitFacts {
  /** The branch the step was asked to create. */
  name: string;
  /** The project's branches now, and the owner's `branches_limit`. */
  count: number;
  limit: number;
  /** The oldest branches a sweep could take (`oldestSweepable`), oldest first. */
  candidates: readonly SweepBranch[];
  /** A pattern for branches named like `name` (`patternLike`), if one fits. */
  pattern?: string;
  /** Epoch ms, for the candidates' ages. */
  now: number;
}

/**
 * The error's words, for each front end's naming of the inputs: the count and the limit, the
 * oldest branches a sweep could take, and the sweep to run (a dry run first).
 */
export function branchLimitWords(facts: BranchLimitFacts): (named: Naming) => string {
  const { name, count, limit, candidates, pattern, now } = facts;
  const listed = candidates.map((b) => {
    const since = b.lastResetAt ? 'last reset' : 'created';
    const at = Date.parse(b.lastResetAt ?? b.createdAt);
    const age = Number.isNaN(at) ? '' : ` (${since} ${ageWords(Math.max(0, now - at))} ago)`;
    return `'${oneLine(b.name, 120)}'${age}`;
  });
  return (named) => {
    const refused =
      `Neon refused to create branch '${oneLine(name, 120)}': the project has ${count} ` +
      `branches and its plan allows ${limit}. Nothing was deleted.`;
    if (listed.length === 0)
      return (
        `${refused} No branch can be swept: each is the default branch, protected, or has ` +
        'child branches. Delete branches by hand, or move to a plan with more branches.'
      );
    const sweep = pattern
      ? `${named('sweep_branches')} set to '${oneLine(pattern, 120)}'`
      : named('sweep_branches');
    return (
      `${refused} The oldest branches a sweep could take: ${listed.join(', ')}. ` +
      `To make room, run a sweep: ${sweep} with ${named('older_than')} (such as 7d) or a token ` +
      `that can read pull requests. A dry run first (${named('dry_run')}) lists what it would ` +
      'delete and deletes nothing.'
    );
  };
}
