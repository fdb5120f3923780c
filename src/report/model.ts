import type { Operation } from '../neon/operation.js';
import type { RecentOperations } from './recent.js';
import type { NewestPage } from '../wait/refresh.js';

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
  /** The project's recent operations for the summary, when asked for and fetched. */
  recent?: RecentOperations;
  /** The newest page of List operations from the last check, if it made one. */
  newestPage?: NewestPage;
  /** Why the recent operations could not be fetched. */
  recentError?: string;
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

/**
 * What the report says, without what changes on every run (times, request counts): two runs that
 * saw the same thing have the same view, so a PR comment showing it need not be rewritten.
 */
export function stableView(report: Report): string {
  const brief = (op: Operation): unknown[] => [op.id, op.status, op.failures_count, op.error ?? ''];
  return JSON.stringify([
    report.mode,
    report.projectId,
    report.branchId,
    report.status,
    report.failure ?? '',
    report.operations.map(brief),
    report.recent?.operations.map(brief) ?? [],
    report.recentError ?? ''
  ]);
}
