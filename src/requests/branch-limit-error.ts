import { isBranchLimitRefusal } from '../neon/branch-limit.js';
import { compileBranchPattern, patternLike } from '../neon/branch-pattern.js';
import { oldestSweepable } from '../neon/branch-sweep.js';
import { branchesLimit, listSweepBranches } from '../neon/branches.js';
import { branchLimitWords } from '../report/branch-limit-message.js';
import { systemClock } from '../util/clock.js';
import { ApiError, WordedApiError } from '../util/errors.js';
import type { StepDeps } from './kind.js';

// A create Neon refuses for the project's branch limit: the error names the count, the limit, the
// oldest branches a sweep could take and the sweep to run. Nothing is deleted unasked.

/** How many candidates the error names at most. */
const CANDIDATES = 5;

/**
 * The error to end with when `error` is Neon's refusal at the branch limit (a 422 that says so),
 * read from the project's `owner.branches_limit` and its branches; undefined for any other error,
 * and when those cannot be read (the refusal then ends the step as it came).
 */
export async function limitError(
  error: unknown,
  name: string,
  deadline: number,
  deps: StepDeps
): Promise<WordedApiError | undefined> {
  if (!(error instanceof ApiError) || !isBranchLimitRefusal(error.status, error.body))
    return undefined;
  const { client, projectId } = deps;
  try {
    // Read as the sweep reads them: the same limit, and ages from a branch's last reset.
    const limit = await branchesLimit(client, projectId, deadline);
    if (limit === undefined) return undefined;
    const branches = await listSweepBranches(client, projectId, deadline);
    const now = client.serviceClock.toService((deps.clock ?? systemClock).now());
    // The branches named like this one first (a sweep of that pattern), else any.
    const pattern = patternLike(name);
    const like = pattern
      ? oldestSweepable(branches, now, CANDIDATES, compileBranchPattern(pattern))
      : [];
    const candidates = like.length > 0 ? like : oldestSweepable(branches, now, CANDIDATES);
    const facts = {
      name,
      count: branches.length,
      limit,
      candidates,
      ...(like.length > 0 && pattern && { pattern }),
      now
    };
    return new WordedApiError(branchLimitWords(facts), error.status, error.body);
  } catch (reading) {
    if (reading instanceof ApiError) return undefined;
    throw reading;
  }
}
