import type { NeonClient } from '../neon/client.js';
import type { Operation } from '../neon/operation.js';
import type { FetchedPage } from '../neon/paging.js';
import { type Clock, systemClock } from '../util/clock.js';
import { formatDuration } from '../util/duration.js';
import { CancelledError, type Naming } from '../util/errors.js';
import { type Ending, endingOf, timeoutEnding } from './conclusion.js';
import type { DatabaseCheck } from '../database/probe.js';
import { waitUntil } from './loop.js';
import { type JobMark, markJobStart } from './job.js';
import type { WaitSettings } from './settings.js';
import { resolveProjectId } from './project.js';
import { kindFor, type WaitKind } from './mode.js';
import { modeFor } from './modes/index.js';
import { learnHistory, nextCheckIn, type Survival } from './history.js';
import { ladder, Pace, pollDelay } from './schedule.js';
import { isInProgress, type ResultStatus, type Verdict, WAIT_STATUS } from './status.js';
import { OperationTracker, type WaitLog } from './tracker.js';

/** Everything the wait saw, whatever way it ended; the report is built from it once. */
export interface WaitResult {
  kind: WaitKind;
  projectId?: string;
  status: ResultStatus;
  timedOut: boolean;
  /** Why the step fails, when it does. */
  failure?: string;
  /** A transient fault still happening at the deadline. */
  lastError?: string;
  /** Since when (epoch ms) that fault's request had gone unanswered. */
  failingSince?: number;
  /** Awaited operations as last seen. */
  operations: Operation[];
  /** The newest page of List operations from the last check, for the summary to reuse. */
  newestPage?: FetchedPage;
  startedAt: number;
  finishedAt: number;
  checks: number;
  /** True when the status says nothing more can be asked of the API (revoked key, cancellation…). */
  apiUnusable: boolean;
  /** The database check after the wait, when `database_url` was given. */
  database?: DatabaseCheck;
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
  onCheck?: (operations: Operation[], nextCheckAt: number) => void;
  /** How the front end names inputs in messages (the action's words by default). */
  named?: Naming;
}

/** The wait: project → mode → checks until a verdict, the deadline or a cancellation → one result. */
export async function waitFor(settings: WaitSettings, deps: WaitDeps): Promise<WaitResult> {
  const clock = deps.clock ?? systemClock;
  const startedAt = clock.now();
  const deadline = startedAt + settings.timeoutMs;
  const tracker = new OperationTracker(
    settings.operationIds,
    settings.givenOperations,
    deps.log,
    () => clock.now()
  );
  const result: WaitResult = {
    kind: kindFor(settings),
    projectId: settings.projectId,
    status: '',
    timedOut: false,
    operations: settings.givenOperations,
    startedAt,
    finishedAt: startedAt,
    checks: 0,
    apiUnusable: false
  };
  let checksDone = 0;
  const context = () => ({
    settings,
    startedAt,
    signal: deps.signal,
    checksDone,
    named: deps.named
  });
  const end = (ending: Ending): WaitResult => {
    const seen = { operations: tracker.list(), finishedAt: clock.now(), checks: checksDone };
    return Object.assign(result, ending, seen);
  };

  try {
    const projectId = await resolveProjectId(deps.client, settings, deadline);
    result.projectId = projectId;
    if (settings.watchJob && !settings.jobMark) {
      deps.onJobMark?.(await markJobStart(deps.client, projectId, deadline));
      if (settings.operationIds.length === 0) {
        deps.log.info(
          `Watching the job: the post step will wait for every operation of project ${projectId}` +
            `${settings.branchId ? ` (branch ${settings.branchId})` : ''} started from now on.`
        );
        return end({ status: WAIT_STATUS.watching });
      }
    }
    const mode = modeFor(deps.client, projectId, settings, tracker);
    deps.log.info(`${mode.goal} (timeout ${formatDuration(settings.timeoutMs)}).`);

    const pace = new Pace();
    let checkedAt = startedAt;
    let history = new Map<string, Survival>();
    const check = async (): Promise<Verdict> => {
      checkedAt = clock.now();
      await mode.refresh(deadline);
      checksDone++;
      result.newestPage = mode.newestPage();
      if (checksDone === 1) history = learnHistory(result.newestPage?.operations ?? []);
      pace.update(deps.client.throttled);
      return settings.wait ? mode.verdict() : 'success';
    };
    const delay = (checks: number): number => {
      // When every open operation is `failed` and awaits a retry, look again near the retry.
      const retry = deps.schedule ? undefined : tracker.nextUsefulCheck(settings.failFast);
      const open = new Set(tracker.openIds(settings.failFast));
      const ops = tracker.list().filter((op) => open.has(op.id));
      const { intervalMs } = settings;
      const base = () =>
        nextCheckIn(history, ops, clock.now(), intervalMs, ladder(checks, intervalMs));
      let ms =
        deps.schedule?.(checks) ?? pollDelay(checks, intervalMs, deps.random, base()) * pace.factor;
      if (retry !== undefined) ms = Math.max(ms, Math.min(retry - clock.now(), 60_000));
      deps.onCheck?.(tracker.list(), Math.min(checkedAt + ms, deadline));
      return ms;
    };
    // A reply that started the work moments ago and says it runs needs no look at once: the first
    // comes after 1 s, as with @neon/sdk's waitFor, and brings the history.
    const given = settings.givenOperations;
    const fresh = (op: Operation) =>
      isInProgress(op.status) && startedAt - Date.parse(op.created_at) < 2000;
    const firstDelay = given.length > 0 && given.every(fresh) ? 1000 : 0;
    const { signal } = deps;
    const loop = await waitUntil(check, { deadline, delay, firstDelay, clock, signal });
    if (loop.outcome === 'cancelled') throw new CancelledError();
    if (loop.outcome === 'timeout') return end(timeoutEnding(context(), mode, tracker, loop));
    return end(mode.conclude());
  } catch (error) {
    return end(endingOf(error, context()));
  }
}
