import type { NeonClient } from '../neon/client.js';
import type { Operation } from '../neon/operation.js';
import { type FetchedPage, MAX_PAGE_SIZE, operationPages, PAGE_SIZE } from '../neon/paging.js';
import { oneLine } from '../util/text.js';
import {
  aggregateStatus,
  isInProgress,
  type ResultStatus,
  type Verdict,
  WAIT_STATUS
} from './status.js';
import type { OperationTracker } from './tracker.js';

/** What the wait was asked to do, as far as the wait is concerned (read from the inputs by the action). */
export interface WaitSettings {
  projectId?: string;
  orgId?: string;
  branchId?: string;
  /** Ids to wait for, from `operation_id` and `operations` together, without repeats. */
  operationIds: string[];
  /** Operations given in the `operations` input: hints until the API confirms them. */
  givenOperations: Operation[];
  wait: boolean;
  timeoutMs: number;
  intervalMs: number;
  failFast: boolean;
  /** Mark where the project's operations stand now, for the post step of `watch_job`. */
  watchJob?: boolean;
  /** Watch what the job started after this point (the post step of `watch_job`). */
  jobMark?: JobMark;
}

/**
 * Where the project's operations stood when the job's watch began, in the service's own terms: the
 * newest operation then visible (its `created_at`) and every id that shared that instant. An
 * operation is the job's when it is newer than that, whatever the runner's clock says.
 */
export interface JobMark {
  projectId: string;
  /** Epoch ms; undefined for a project without any operation. */
  createdAt?: number;
  ids: string[];
}

/** True for an operation created after the mark (the job's), by the service's timestamps and ids. */
export function isAfterMark(op: Operation, mark: JobMark): boolean {
  if (mark.createdAt === undefined) return true;
  const created = Date.parse(op.created_at);
  if (!Number.isFinite(created)) return false;
  return created > mark.createdAt || (created === mark.createdAt && !mark.ids.includes(op.id));
}

/** The ways of waiting; the report's `mode`. */
export type WaitKind = 'operations' | 'project' | 'job';

/** A wait's final word when its checks ended it (not a timeout, a cancellation or an error). */
interface Conclusion {
  status: ResultStatus;
  /** Why the step fails, when it does. */
  failure?: string;
}

/**
 * One way of waiting: how it refreshes what it follows, its verdict after each check, and its
 * conclusion. The loop, the deadline, retries and error statuses are shared.
 */
export interface WaitMode {
  /** The log's first line: what is awaited. */
  goal: string;
  /** What the deadline's message names when nothing in particular was still open. */
  scope: string;
  refresh(deadline: number): Promise<void>;
  verdict(): Verdict;
  conclude(): Conclusion;
  /** The newest page of List operations from the last check, if it made one (the summary reuses it). */
  newestPage(): FetchedPage | undefined;
}

/** Which mode the settings ask for, known before the project is (errors report it too). */
export function kindFor(settings: WaitSettings): WaitKind {
  if (settings.jobMark) return 'job';
  return settings.operationIds.length > 0 ? 'operations' : 'project';
}

/** Pages one check may read beyond those the awaited ids need (for ids created in between). */
const SPARE_PAGES = 2;
/** Operations created this long before the oldest open one may still be listed after it. */
const ORDER_SLACK_MS = 60_000;
/** The first check of a project wait looks this many pages deep for work started earlier. */
const FIRST_SCAN_PAGES = 3;
/** Pages a job's check reads at most: 5,000 operations started by one job is far beyond any job. */
const JOB_MAX_PAGES = 50;

/** The mode the settings ask for; all three share the page the summary reuses. */
export function modeFor(
  client: NeonClient,
  projectId: string,
  settings: WaitSettings,
  tracker: OperationTracker
): WaitMode {
  const { branchId, failFast } = settings;
  let page: FetchedPage | undefined;
  let checks = 0;
  const offPage = new Set<string>();
  const list = (deadline: number, limit: number, maxPages: number) =>
    operationPages(client, projectId, { limit, deadline, maxPages, onPage: (p) => (page ??= p) });
  const onBranch = (op: Operation) => !branchId || op.branch_id === branchId;
  const scope = branchId ? `branch ${branchId} of project ${projectId}` : `project ${projectId}`;
  const settled = () => tracker.settledVerdict(failFast);
  const failed = (what: string, ops: Operation[]): Conclusion => ({
    status: aggregateStatus(ops.map((op) => op.status)),
    failure: `${what} did not succeed: ${describeFailures(ops)}`
  });

  const modes: Record<WaitKind, Omit<WaitMode, 'newestPage'>> = {
    /**
     * The ids given. One open operation is fetched by id (after the first check); several are
     * refreshed with List requests, newest first, only as deep as the oldest open one (a page holds
     * up to 1,000), so 3,000 awaited operations cost a few requests per check. Ids no page holds are
     * fetched by id from then on.
     */
    operations: {
      scope: `project ${projectId}`,
      goal: `Waiting for ${tracker.size} operation(s) of project ${projectId}`,
      async refresh(deadline) {
        const open = tracker.openIds(failFast);
        let byId = open;
        const listable = open.filter((id) => !offPage.has(id));
        // The first check lists even for one: its page brings the project's history along.
        if (listable.length > (checks++ === 0 ? 0 : 1)) {
          const wanted = new Set(listable);
          const limit = listable.length > PAGE_SIZE / 2 ? MAX_PAGE_SIZE : PAGE_SIZE;
          const oldest = tracker.oldestOpen(failFast);
          const maxPages =
            listable.length > 1 ? Math.ceil(listable.length / limit) + SPARE_PAGES : 1;
          for await (const operations of list(deadline, limit, maxPages)) {
            for (const op of operations) {
              if (!tracker.has(op.id)) continue;
              tracker.record(op);
              wanted.delete(op.id);
            }
            const last = Date.parse(operations.at(-1)?.created_at ?? '');
            if (wanted.size === 0 || (oldest !== undefined && last < oldest - ORDER_SLACK_MS))
              break;
          }
          const listed = new Set(listable);
          byId = open.filter((id) => !listed.has(id) || wanted.has(id));
          for (const id of wanted) offPage.add(id);
        }
        for (const id of byId) tracker.record(await client.getOperation(projectId, id, deadline));
      },
      verdict: () => tracker.verdict(failFast),
      conclude() {
        const status = aggregateStatus(tracker.seen().map((op) => op.status));
        if (!settings.wait || tracker.verdict(failFast) !== 'failure') return { status };
        const failure = `Operation(s) did not succeed: ${describeFailures(tracker.failures(failFast))}`;
        return { status, failure };
      }
    },
    /**
     * Until no operation of the project (or branch) is in progress. Those found in progress are
     * followed until they end; one that ends badly fails the wait once the project is idle (at once
     * with fail_fast): a gate must not pass on it.
     */
    project: {
      scope,
      goal: `Waiting until no operation of ${scope} is in progress`,
      async refresh(deadline) {
        const listed = new Set<string>();
        for await (const operations of list(deadline, PAGE_SIZE, checks++ ? 1 : FIRST_SCAN_PAGES)) {
          for (const op of operations.filter(onBranch)) {
            listed.add(op.id);
            if (tracker.has(op.id)) tracker.record(op);
            else if (isInProgress(op.status)) tracker.adopt(op);
          }
        }
        // Operations still in progress that slipped off the newest page are followed by id.
        for (const op of tracker.seen()) {
          if (!listed.has(op.id) && isInProgress(op.status))
            tracker.record(await client.getOperation(projectId, op.id, deadline));
        }
      },
      verdict: settled,
      conclude() {
        if (!settings.wait)
          return { status: tracker.openIds(false).length ? WAIT_STATUS.busy : WAIT_STATUS.idle };
        const failures = tracker.failures(failFast);
        return failures.length
          ? failed(`Operation(s) of ${scope}`, failures)
          : { status: WAIT_STATUS.idle };
      }
    },
    /**
     * The post step of `watch_job`: every operation of the project (or branch) created since the
     * job's mark, across every page, until none is in progress. One that did not succeed fails the job.
     */
    job: {
      scope,
      goal: `Following every operation this job started on ${scope}`,
      async refresh(deadline) {
        const mark = settings.jobMark as JobMark;
        for await (const operations of list(deadline, PAGE_SIZE, JOB_MAX_PAGES)) {
          for (const op of operations) if (isAfterMark(op, mark) && onBranch(op)) tracker.adopt(op);
          // Newest first: once a page reaches back past the mark, older pages hold nothing of the job.
          if (operations.some((op) => !isAfterMark(op, mark))) break;
        }
      },
      verdict: settled,
      conclude() {
        const failures = tracker.failures(failFast);
        if (failures.length) return failed(`Operation(s) this job started on ${scope}`, failures);
        const seen = tracker.seen();
        return {
          status: seen.length ? aggregateStatus(seen.map((op) => op.status)) : WAIT_STATUS.idle
        };
      }
    }
  };
  const mode = modes[kindFor(settings)];
  return {
    ...mode,
    newestPage: () => page,
    refresh: (deadline) => {
      page = undefined;
      return mode.refresh(deadline);
    }
  };
}

/** `create_branch 1a2b… is error (failures_count 2): text`, for failure messages. */
function describeFailures(ops: readonly Operation[]): string {
  return ops
    .map(
      (op) =>
        `${oneLine(op.action, 60)} ${op.id} is ${oneLine(op.status, 40)}` +
        (op.status === 'failed' ? ' with no retry in sight' : '') +
        ` (failures_count ${op.failures_count ?? 0})` +
        (op.error ? `: ${oneLine(op.error, 300)}` : '')
    )
    .join('; ');
}
