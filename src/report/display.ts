import { type AwaitedOperation, isSeen } from '../neon/operation.js';
import { capital } from '../util/text.js';
import { isInProgress } from '../neon/operation-status.js';

// Where the generic rule (first letter up, underscores to spaces) reads badly.
const NAMES: Record<string, string> = {
  sync_dbs_and_roles_from_compute: 'Sync databases and roles from compute',
  apply_storage_config: 'Apply storage config',
  timeline_mark_invisible: 'Mark timeline invisible',
  timeline_update_protected_config: 'Update timeline protection'
};

/** "Create branch" for `create_branch`; any new action string still reads well. */
export function actionName(action: string): string {
  if (Object.hasOwn(NAMES, action)) return NAMES[action] as string;
  return capital(action.replace(/[_-]+/g, ' ').trim()) || 'Operation';
}

/** `1 attempt`, `3 attempts`. */
export const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** A time a Date can hold (the API's text could say year 275760 or worse). */
export function isValidTime(ms: number): boolean {
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15;
}

/** `2026-11-25 21:36:04 UTC`, or only its `date` or `time` of day; '' for a time no Date holds. */
export function utc(ms: number, part?: 'date' | 'time'): string {
  if (!isValidTime(ms)) return '';
  const iso = new Date(ms).toISOString();
  if (part) return part === 'date' ? iso.slice(0, 10) : iso.slice(11, 19);
  return `${iso.slice(0, 19).replace('T', ' ')} UTC`;
}

/** `3 finished · 1 running · 1 error`, the most common first. */
export function statusCounts(ops: readonly AwaitedOperation[]): string {
  const counts = new Map<string, number>();
  for (const { status = 'not seen' } of ops) counts.set(status, (counts.get(status) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([status, n]) => `${n} ${status}`)
    .join(' · ');
}

/**
 * How long an operation took (or has run so far), from its timestamps: `created_at` to `updated_at`
 * once done, to now while in progress. Not `total_duration_ms`: the service reports 0 there for
 * running operations and less than the wall time for finished ones.
 */
export function operationDurationMs(op: AwaitedOperation, now: number): number | undefined {
  if (!isSeen(op)) return undefined;
  const created = Date.parse(op.created_at);
  const end = isInProgress(op.status) ? now : Date.parse(op.updated_at);
  return Number.isNaN(created) || Number.isNaN(end) ? undefined : Math.max(0, end - created);
}
