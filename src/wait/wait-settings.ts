import type { Operation } from '../neon/operation.js';
import type { JobMark } from './job-mark.js';
import type { FailurePolicy } from './status.js';

/** What the wait was asked to do, as far as the wait is concerned (read from the inputs by the action). */
export interface WaitSettings {
  projectId?: string;
  orgId?: string;
  branchId?: string;
  /** Without operation ids, wait until this compute has no operation in progress. */
  endpointId?: string;
  /** Ids to wait for, from `operation_id` and `operations` together, without repeats. */
  operationIds: string[];
  /** Operations given in the `operations` input: hints until the API confirms them. */
  givenOperations: Operation[];
  wait: boolean;
  timeoutMs: number;
  intervalMs: number;
  policy: FailurePolicy;
  /** `branchId` is a branch a request adopted, maybe still being made: awaited even with `watchJob`. */
  adoptedBranch?: boolean;
  /** Mark where the project's operations stand now, for the post step of `watch_job`. */
  watchJob?: boolean;
  /** Watch what the job started after this point (the post step of `watch_job`). */
  jobMark?: JobMark;
}
