import type { Operation } from './operation.js';

/** Everything a run saw, whatever way it ended: the outputs, the summary and the comment are made from it. */
export interface Report {
  mode: 'operations' | 'project';
  waited: boolean;
  projectId?: string;
  branchId?: string;
  /** The `status` output. */
  status: string;
  timedOut: boolean;
  /** Awaited operations as last seen. */
  operations: Operation[];
  startedAt: number;
  finishedAt: number;
  timeoutMs: number;
  /** Why the step failed, when it did. */
  failure?: string;
  /** A transient fault still happening at the deadline. */
  lastError?: string;
  requests: number;
}

/** Status values of the wait itself, beside the operation statuses. */
export const WAIT_STATUS = {
  idle: 'idle',
  busy: 'busy',
  timeout: 'timeout',
  aborted: 'aborted',
  apiError: 'api_error',
  inputError: 'input_error'
} as const;
