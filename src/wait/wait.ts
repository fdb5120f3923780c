import type { NeonClient } from '../neon/client.js';
import type { AwaitedOperation, Operation } from '../neon/operation.js';
import type { FetchedPage } from '../neon/paging.js';
import { type Clock, systemClock } from '../util/clock.js';
import { formatDuration } from '../util/duration.js';
import { CancelledError, type Naming } from '../util/errors.js';
import { deadlineEnding, type Ending, endingOf } from './conclusion.js';
import { waitUntil } from './loop.js';
import { type JobMark, markJobStart } from './job-mark.js';
import type { WaitSettings } from './wait-settings.js';
import { resolveProjectId } from './project-id.js';
import { kindFor, type WaitKind } from './mode.js';
import { modeFor } from './modes/index.js';
import { confirmPlace } from './place.js';
import { learnHistory, nextCheckIn, type Survival } from './history.js';
import { ladder, ladderAt, Pace, pollDelay } from './schedule.js';
import { isInProgress } from '../neon/operation-status.js';
import { type FailurePolicy, type Verdict, WAIT_STATUS } from './status.js';
import { OperationTracker, type WaitLog } from './tracker.js';
import type { RequestOutcome } from '../neon/send.js';

/** Everything the wait saw, whatever way it ended; the report is built from it once. */
export interface WaitResult extends Ending {
  kind: WaitKind;
  projectId?: string;
  /** Which statuses failed the step: the reports show each status as the wait judged it. */
  policy: FailurePolicy;
  timedOut: boolean;
  /** True when the status says nothing more can be asked of the API (revoked key, cancellation…). */
  apiUnusable: boolean;
  /** Awaited operations as last seen. */
  operations: AwaitedOperation[];
  /** The newest page of List operations from the last check and when it came (epoch ms), for the summary to reuse while fresh. */
  newestPage?: FetchedPage & { fetchedAt: number };
  startedAt: number;
  finishedAt: number;
  /**
   * How far the service's clock is ahead of the runner's (ms), as the `Date` of its answers shows:
   * operations' timestamps are the service's, so durations are read at `finishedAt` + this.
   */
  serviceAheadMs: number;
  checks: number;
  /** What happened to the `request`, when one was asked. */
  request?: RequestOutcome;
}

export interface WaitDeps {
  client: NeonClient;
  log: WaitLog;
  clock?: Clock;
  random?: () => number;
  signal?: AbortSignal;
  /** Replaces the polling schedule: the benchmark runs other tools' schedules through this wait. */
  schedule?: (checksDone: number) => number;
  /** With `watchJob`: where the job's operations begin, to keep for the post step. */
  onJobMark?: (mark: JobMark) => void;
  /** After each check: the awaited operations and when the next check is due (the command's live line). */
  onCheck?: (operations: AwaitedOperation[], nextCheckAt: number) => void;
  /** While the `request` is sent: what it met so far (the operations holding a lock). */
  onRequest?: (seen: RequestOutcome) => void;
  /** How the front end names inputs in messages (the action's words by default). */
  named?: Naming;
  /** How a sweep reaches GitHub: GITHUB_API_URL and the global fetch by default (the tests' stand-in). */
  github?: GitHubAccess;
}

/**
 * A wait's result: how it ended, and what it `saw` (when it ran, and from its first check on, the
 * operations and the checks made) over the settings' place and policy.
 */
export function resultOf(
  settings: WaitSettings,
  ending: Ending,
  saw: Pick<WaitResult, 'startedAt' | 'finishedAt' | 'serviceAheadMs'> & Partial<WaitResult>
): WaitResult {
  const { projectId, policy } = settings;
  const none = { operations: [], checks: 0, timedOut: false, apiUnusable: false };
  return { kind: kindFor(settings), projectId, policy, ...none, ...ending, ...saw };
}

/** Where GitHub's REST API is, and how requests reach it. */
export interface GitHubAccess {
  baseUrl?: string;
  fetch?: typeof globalThis.fetch;
}

/**
 * The wait: project → mode → checks until a verdict, the deadline or a cancellation → one result.
 * After a request, `stepStartedAt` is the step's start: the deadline counts from it.
 */
export async function waitFor(
  settings: WaitSettings,
  deps: WaitDeps,
  stepStartedAt?: number
): Promise<WaitResult> {
  const { client, log, signal, clock = systemClock } = deps;
  const { policy, intervalMs, givenOperations: given } = settings;
  const startedAt = stepStartedAt ?? clock.now();
  const deadline = startedAt + settings.timeoutMs;
  const { serviceClock } = client;
  const tracker = new OperationTracker(
    settings.operationIds,
    given,
    log,
    () => clock.now(),
    (ms) => serviceClock.toRunner(ms)
  );
  const open = () => {
    const ids = new Set(tracker.openIds(policy));
    return tracker.list().filter((op) => ids.has(op.id));
  };
  const kind = kindFor(settings);
  let projectId = settings.projectId;
  let newestPage: (FetchedPage & { fetchedAt: number }) | undefined;
  let checksDone = 0;
  const context = () => ({ settings, startedAt, signal, checksDone, named: deps.named });
  const end = (ending: Ending): WaitResult =>
    resultOf({ ...settings, projectId }, ending, {
      newestPage,
      startedAt,
      operations: tracker.list(),
      finishedAt: clock.now(),
      serviceAheadMs: serviceClock.offsetMs,
      checks: checksDone
    });

  try {
    const resolved = await resolveProjectId(client, settings, deadline);
    projectId = resolved;
    // A place given as such: not the branch a request just found (a step start is given then),
    // nor in the post step (the main step checked it).
    if (kind !== 'operations' && stepStartedAt === undefined && !settings.jobMark)
      await confirmPlace(client, resolved, settings, deadline);
    if (settings.watchJob && !settings.jobMark) {
      deps.onJobMark?.(await markJobStart(client, resolved, deadline, clock));
      if (settings.operationIds.length === 0 && !settings.adoptedBranch) {
        log.info(
          `Watching the job: the post step will wait for every operation of project ${resolved}` +
            `${settings.branchId ? ` (branch ${settings.branchId})` : ''} started from now on.`
        );
        return end({ status: WAIT_STATUS.watching });
      }
    }
    const mode = modeFor(client, resolved, settings, tracker);
    // After a request, the deadline is the request's: what the wait has is what is left of it.
    const left = formatDuration(Math.max(0, deadline - clock.now()));
    const limit = formatDuration(settings.timeoutMs);
    if (settings.wait)
      log.info(
        `${mode.goal} (${stepStartedAt === undefined ? `timeout ${limit}` : `${left} left`}).`
      );

    const pace = new Pace();
    let checkedAt = startedAt;
    let firstCheckAt = startedAt;
    let history = new Map<string, Survival>();
    const check = async (): Promise<Verdict> => {
      checkedAt = clock.now();
      if (checksDone === 0) firstCheckAt = checkedAt;
      await mode.refresh(deadline);
      const page = mode.newestPage();
      newestPage = page && { ...page, fetchedAt: clock.now() };
      if (++checksDone === 1) history = learnHistory(newestPage?.operations ?? []);
      pace.update(client.throttled);
      return settings.wait ? mode.verdict() : 'success';
    };
    const delay = (checks: number): number => {
      const replaced = deps.schedule?.(checks);
      if (replaced !== undefined) return replaced;
      // Operations are aged on the service's clock, which wrote their timestamps.
      const now = serviceClock.toService(clock.now());
      const gaps = {
        maxGap: intervalMs,
        ladderMs: ladder(checks, intervalMs),
        ladderNowMs: ladderAt(clock.now() - firstCheckAt, intervalMs)
      };
      const base = nextCheckIn(history, open(), now, gaps, tracker.list());
      const ms = pollDelay(checks, intervalMs, deps.random, base) * pace.factor;
      // When every open operation is `failed` and awaits a retry, look again near the retry.
      const retry = tracker.nextUsefulCheck(policy);
      if (retry === undefined) return ms;
      return Math.max(ms, Math.min(retry - clock.now(), 60_000));
    };
    /** The loop's schedule: the next check's delay, shown to the front end as the loop sleeps. */
    const scheduleNext = (checks: number): number => {
      const ms = delay(checks);
      deps.onCheck?.(tracker.list(), Math.min(checkedAt + ms, deadline));
      return ms;
    };
    // A reply that started the work moments ago and says it runs needs no look at once: the first
    // comes after 1 s, as with @neon/sdk's waitFor, and brings the history.
    const fresh = (op: Operation) =>
      isInProgress(op.status) && startedAt - Date.parse(op.created_at) < 2000;
    const firstDelay = given.length > 0 && given.every(fresh) ? 1000 : 0;
    const loop = await waitUntil(check, {
      deadline,
      delay: scheduleNext,
      firstDelay,
      clock,
      signal
    });
    if (loop.ended === 'cancelled') throw new CancelledError();
    if (loop.ended === 'timeout') return end(deadlineEnding(context(), loop, open(), mode.scope));
    return end(mode.conclude());
  } catch (error) {
    return end(endingOf(error, context()));
  }
}
