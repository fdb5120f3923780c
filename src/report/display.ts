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

/** Each status's mark and, for the wait's own statuses, how it reads in a sentence. */
const STATUS: Record<string, [mark: string, label?: string]> = {
  finished: ['✅'],
  skipped: ['⏭️'],
  idle: ['✅'],
  busy: ['⏳', 'busy (work in progress)'],
  running: ['⏳'],
  scheduling: ['🕓'],
  cancelling: ['⏳'],
  failed: ['⚠️'],
  error: ['❌'],
  cancelled: ['🚫'],
  timeout: ['⌛', 'timed out'],
  aborted: ['🛑', 'interrupted'],
  api_error: ['❌', 'API error'],
  input_error: ['❌', 'input error'],
  database_error: ['❌', 'database error']
};

/** The mark shown before a status (of an operation or of the wait); `❔` for one nobody knows. */
export function statusMarker(status: string): string {
  return Object.hasOwn(STATUS, status) ? STATUS[status]![0] : '❔';
}

/** How a status reads in a sentence (`timed out`); operation statuses read as they are. */
export function statusLabel(status: string): string {
  return (Object.hasOwn(STATUS, status) && STATUS[status]![1]) || status;
}

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
export function statusCounts(ops: readonly Operation[]): string {
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
export function operationDurationMs(op: Operation, now: number): number | undefined {
  const created = Date.parse(op.created_at);
  const end = isInProgress(op.status) ? now : Date.parse(op.updated_at);
  return Number.isNaN(created) || Number.isNaN(end) ? undefined : Math.max(0, end - created);
}
