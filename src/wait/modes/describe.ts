import type { Operation } from '../../neon/operation.js';
import { oneLine } from '../../util/text.js';
import type { Conclusion } from '../mode.js';
import { aggregateStatus } from '../status.js';

/** `create_branch 1a2b… is error (failures_count 2): text`, for failure messages. */
export function describeFailures(ops: readonly Operation[]): string {
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

/** The conclusion when operations did not succeed: the worst status, and each one named. */
export function failed(what: string, ops: readonly Operation[]): Conclusion {
  return {
    status: aggregateStatus(ops.map((op) => op.status)),
    failure: `${what} did not succeed: ${describeFailures(ops)}`
  };
}

/** `create_branch 1a2b… (last status running)`, or `operation 1a2b… (not seen yet)`. */
export function describeOpen(op: Operation): string {
  return op.action
    ? `${oneLine(op.action, 60)} ${op.id} (last status ${oneLine(op.status, 40)})`
    : `operation ${op.id} (not seen yet)`;
}

/** `branch br-… of project p-…`, or `project p-…`: what a project-wide wait is about. */
export function scopeOf(projectId: string, branchId: string | undefined): string {
  return branchId ? `branch ${branchId} of project ${projectId}` : `project ${projectId}`;
}
