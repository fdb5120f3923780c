import type { Operation } from '../neon/operation.js';
import { isInProgress } from '../wait/status.js';

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
  const words = action.replace(/[_-]+/g, ' ').trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : 'Operation';
}

/** A time a Date can hold (the API's text could say year 275760 or worse). */
export function isValidTime(ms: number): boolean {
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15;
}

/** `2026-11-25 21:36:04 UTC` */
export function utc(ms: number): string {
  return isValidTime(ms) ? `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC` : '';
}

/** `3m ago`, `2h ago`, `just now`. */
export function ago(ms: number, now: number): string {
  const s = Math.round((now - ms) / 1000);
  if (Number.isNaN(s)) return '';
  if (s < 5) return 'just now';
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.round(s / 60)}m ago`;
  if (s < 86_400) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86_400)}d ago`;
}

/** `3 finished · 1 running · 1 error`, the most common first. */
export function statusCounts(ops: readonly Operation[]): string {
  const counts = new Map<string, number>();
  for (const op of ops)
    counts.set(op.status ?? 'not seen', (counts.get(op.status ?? 'not seen') ?? 0) + 1);
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
export function operationDurationMs(op: Operation, now: number): number | undefined {
  const created = Date.parse(op.created_at);
  if (Number.isNaN(created)) return undefined;
  const end = isInProgress(op.status) ? now : Date.parse(op.updated_at);
  return Number.isNaN(end) ? undefined : Math.max(0, end - created);
}
