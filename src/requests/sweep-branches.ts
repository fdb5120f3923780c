import type { InputName } from '../inputs.js';
import type { Rules } from '../neon/answer-rules.js';
import {
  planSweep,
  type PullState,
  pullRequestsToRead,
  type SweepBranch,
  type SweepCriteria,
  type SweepOutcome,
  type SweepPlan
} from '../neon/branch-sweep.js';
import { branchesLimit, listSweepBranches } from '../neon/branches.js';
import type { Operation } from '../neon/operation.js';
import { branchPath, projectPath } from '../neon/resources.js';
import { type RequestOutcome, sendRequest, unsent } from '../neon/send.js';
import { type Field, invalid } from '../settings/fields.js';
import { readSweepInputs, type SweepInputs } from '../settings/sweep-inputs.js';
import { type Clock, systemClock } from '../util/clock.js';
import { redact } from '../util/redact.js';
import { oneLine } from '../util/text.js';
import { operationsOf, type Performed, type RequestKindModule, type StepDeps } from './kind.js';
import { readPullStates, REPOSITORY } from './pull-state.js';

// `sweep_branches: PATTERN`: delete the stale branches whose names match (a closed or merged pull
// request, or `older_than`), never the default, a protected branch or one with children; at most
// `sweep_max` a run; `dry_run` deletes nothing. The deletions go one after another through the one
// send loop (a project runs one operation at a time), then the step waits for what they started.

export interface SweepBranchesKind extends SweepInputs {
  kind: 'sweep_branches';
  /** A token and the repository whose pull requests are read; none: `older_than` alone decides. */
  pulls?: { token: string; repository: string };
}

/** A deletion sent again deletes the branch or answers 404 (already gone): as `delete_branch`. */
// prettier-ignore
const RULES = {
  sweep_branches: { accepted: 'accept', conflict: 'refuse', not_found: 'gone',   locked: 'await_lock', unavailable: 'retry', server_error: 'refuse', throttled: 'retry', no_answer: 'resend',      other: 'refuse' }
} as const satisfies Record<string, Rules>;

export const sweepBranches: RequestKindModule<SweepBranchesKind> = {
  input: 'sweep_branches',
  // `sweep_max` and `dry_run` have defaults the runner always fills in: not refused without a sweep.
  own: ['older_than'],
  rules: RULES,
  connects: false,
  read(input) {
    const field = (name: InputName): Field => ({ value: input(name).trim(), name });
    const token = field('github_token').value;
    const repository = field('repository');
    if (repository.value && !REPOSITORY.test(repository.value))
      throw invalid(
        repository,
        `must be a repository as owner/name, such as octo-org/octo-repo; got '${oneLine(repository.value, 60)}'.`
      );
    const pulls = token && repository.value ? { token, repository: repository.value } : undefined;
    return { kind: 'sweep_branches', ...readSweepInputs(input, pulls !== undefined), pulls };
  },
  perform
};

async function perform(
  kind: SweepBranchesKind,
  deadline: number,
  deps: StepDeps
): Promise<Performed> {
  const { client, projectId } = deps;
  const clock = deps.clock ?? systemClock;
  const branches = await listSweepBranches(client, projectId, deadline);
  const limit = await branchesLimit(client, projectId, deadline);
  const criteria = await criteriaOf(kind, branches, deps);
  // Ages are read against the service's clock: `created_at` is on it.
  const now = client.serviceClock.toService(clock.now());
  const ask = { ...criteria, pattern: kind.pattern, sweepMax: kind.sweepMax, dryRun: kind.dryRun };
  const plan = planSweep(branches, { ...ask, repository: kind.pulls?.repository, now });
  const path = `${projectPath(projectId)}/branches/{branch_id}`;
  const total = unsent('DELETE', path);
  const deleted = new Set<string>();
  const outcomeOf = (sweepPlan: SweepPlan): RequestOutcome => ({
    ...total,
    sweep: {
      pattern: kind.pattern.text,
      dryRun: kind.dryRun,
      plan: sweepPlan,
      branchesCount: branches.length - deleted.size,
      ...(limit !== undefined && { branchesLimit: limit })
    } satisfies SweepOutcome
  });
  // What is known however the step ends: the branches deleted so far, the others left.
  const sofar = () => outcomeOf(leftAfter(plan, deleted));
  deps.onProgress?.(sofar());
  deps.log(sweepLog(kind, plan, branches.length));
  const operations: Operation[] = [];
  const pace = new DeletionPace(clock);
  for (const branch of plan.deletions) {
    await pace.beforeNext(deps.signal);
    const request = {
      method: 'DELETE',
      path: branchPath(projectId, branch.id),
      rules: RULES.sweep_branches,
      action: 'delete_timeline'
    } as const;
    const before = { ...total };
    const onProgress = (seen: RequestOutcome) => {
      Object.assign(total, merged(before, seen));
      deps.onProgress?.(sofar());
    };
    const outcome = await sendRequest(request, deadline, { ...deps, onProgress });
    Object.assign(total, merged(before, outcome), { status: outcome.status });
    pace.accepted(outcome.lockedMs > 0);
    deleted.add(branch.id);
    operations.push(...operationsOf(outcome.response));
    deps.log(
      outcome.ended === 'gone'
        ? `Branch ${branch.name} (${branch.id}) was already gone.`
        : `Deleted branch ${branch.name} (${branch.id}).`
    );
  }
  const done = outcomeOf(plan);
  return {
    outcome: { ...done, ...(operations.length > 0 && { ended: 'accept' }) },
    follow: operations.length > 0 ? { operations } : 'nothing'
  };
}

/**
 * What decides: `older_than`, and the pull requests' states when a token can read them (each read
 * once; one that cannot be read is a warning, and `older_than` decides for its branch).
 */
async function criteriaOf(
  kind: SweepBranchesKind,
  branches: readonly SweepBranch[],
  deps: StepDeps
): Promise<SweepCriteria> {
  const { olderThanMs, pulls: reader } = kind;
  if (!reader) {
    if (olderThanMs === undefined) throw new Error('a sweep with nothing to decide by'); // refused by `read`
    return { olderThanMs };
  }
  const numbers = pullRequestsToRead(branches, kind.pattern, reader.repository);
  const { states, error } =
    numbers.length > 0
      ? await readPullStates({ ...reader, ...deps.github, signal: deps.signal }, numbers)
      : { states: new Map<number, PullState>() };
  if (error)
    deps.warn(
      `${numbers.length - states.size} of ${numbers.length} pull request(s) could not be read (${redact(error.message)}): ` +
        'their branches are kept unless older_than decides.'
    );
  return { pulls: states, ...(olderThanMs !== undefined && { olderThanMs }) };
}

/** The request's count so far: this deletion's tries added to the sweep's before it. */
function merged(before: RequestOutcome, seen: RequestOutcome): Partial<RequestOutcome> {
  const holders = [...new Set([...before.holders, ...seen.holders])];
  return {
    attempts: before.attempts + seen.attempts,
    lockedMs: before.lockedMs + seen.lockedMs,
    holders
  };
}

/** The plan as far as it went: the deletions not made are left for the next run. */
function leftAfter(plan: SweepPlan, deleted: ReadonlySet<string>): SweepPlan {
  const entries = plan.entries.map((entry) =>
    entry.verdict === 'delete' && !deleted.has(entry.branch.id)
      ? { ...entry, verdict: 'left-for-next-run' as const }
      : entry
  );
  return { entries, deletions: plan.deletions.filter((b) => deleted.has(b.id)) };
}

/** `Sweeping preview/*: 40 of 101 branches to delete, 60 kept.` */
function sweepLog(kind: SweepBranchesKind, plan: SweepPlan, count: number): string {
  const by = (verdict: string) => plan.entries.filter((e) => e.verdict === verdict).length;
  const doing = kind.dryRun
    ? `${by('would-delete')} would be deleted (dry run)`
    : `${by('delete')} to delete`;
  const left = by('left-for-next-run');
  const rest = left > 0 ? `, ${left} left for the next run (sweep_max ${kind.sweepMax})` : '';
  return `Sweeping ${kind.pattern.text}: ${plan.entries.length} of ${count} branches match; ${doing}${rest}, ${by('keep')} kept.`;
}

/**
 * The gap kept between one accepted deletion and the next: a project runs one operation at a time,
 * so a deletion sent while the last one runs is answered 423 and costs a look at the operations.
 * None at first; once a deletion met the lock, the time from the one before to it (the
 * operation's length, as seen), so that the rest go through at the first try.
 */
class DeletionPace {
  private gapMs = 0;
  private lastAt?: number;

  constructor(private readonly clock: Clock) {}

  async beforeNext(signal?: AbortSignal): Promise<void> {
    if (this.lastAt === undefined) return;
    const wait = this.lastAt + this.gapMs - this.clock.now();
    if (wait > 0) await this.clock.sleep(wait, signal);
  }

  accepted(locked: boolean): void {
    const now = this.clock.now();
    if (locked && this.lastAt !== undefined) this.gapMs = Math.max(this.gapMs, now - this.lastAt);
    this.lastAt = now;
  }
}
