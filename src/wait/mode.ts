import type { NeonClient } from '../neon/client.js';
import type { Operation } from '../neon/operation.js';
import type { FetchedPage } from '../neon/paging.js';
import type { ResultStatus, Verdict } from './status.js';
import type { OperationTracker, WaitLog } from './tracker.js';

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
 * newest operation then visible (its id and `created_at`), and every id that shared that instant.
 * An operation is the job's when it is newer than that, whatever the runner's clock says.
 */
export interface JobMark {
  projectId: string;
  /** `created_at` of the newest operation at the start, epoch ms; undefined for a project without any. */
  createdAt?: number;
  /** Ids of the operations created at exactly `createdAt` (already there at the start). */
  ids: string[];
}

/** The ways of waiting (one module each in `modes/`); the report's `mode`. */
export type WaitKind = 'operations' | 'project' | 'job';

/** A wait's final word when its checks ended it (not a timeout, a cancellation or an error). */
export interface Conclusion {
  status: ResultStatus;
  /** Why the step fails, when it does. */
  failure?: string;
}

export interface ModeContext {
  client: NeonClient;
  projectId: string;
  settings: WaitSettings;
  tracker: OperationTracker;
  log: WaitLog;
}

/**
 * One way of waiting. A mode owns how it refreshes what it follows, its verdict after each check,
 * and its conclusion; the loop, the deadline, retries and error statuses are shared. A new mode is
 * one new file and one line in `modes/index.ts`.
 */
export interface WaitMode {
  readonly kind: WaitKind;
  /** The log's first line: what is awaited. */
  readonly goal: string;
  /** What the deadline's message names when nothing in particular was still open. */
  readonly scope: string;
  refresh(deadline: number): Promise<void>;
  verdict(): Verdict;
  conclude(): Conclusion;
  /** The newest page of List operations from the last check, if it made one (the summary reuses it). */
  newestPage(): FetchedPage | undefined;
}
