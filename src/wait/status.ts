/**
 * The one status vocabulary: what the API's operation statuses mean for a wait, and the statuses of
 * the wait itself that the `status` output can hold beside them. See the README ("What counts as
 * done"): `finished`/`skipped` succeed, `cancelled`/`error` fail, `failed` is still retried by the
 * control plane while a retry is in sight (decided per operation in `tracker.ts`).
 */

/** Statuses of the wait itself. */
export const WAIT_STATUS = {
  idle: 'idle',
  busy: 'busy',
  timeout: 'timeout',
  aborted: 'aborted',
  apiError: 'api_error',
  inputError: 'input_error',
  /** `watch_job` without operation ids: the main step returned at once; the post step waits. */
  watching: 'watching',
  /** The operations succeeded, but the database refused the connection (password, role, TLS…). */
  databaseError: 'database_error'
} as const;
export type WaitStatus = (typeof WAIT_STATUS)[keyof typeof WAIT_STATUS];

/** The `status` output: a wait status, or an operation's status as the API wrote it. */
export type ResultStatus = WaitStatus | (string & {});

/** What a status means for a wait. */
export type Verdict = 'success' | 'failure' | 'pending';

// Maps, not object literals: an API status such as `constructor` or `__proto__` must find nothing.
const VERDICT = new Map<string, Verdict>([
  ['finished', 'success'],
  ['skipped', 'success'],
  ['cancelled', 'failure'],
  ['error', 'failure'],
  ['scheduling', 'pending'],
  ['running', 'pending'],
  ['cancelling', 'pending'],
  ['failed', 'pending']
]);

/** One of the API's OperationStatus enum (any other string is unknown: treated as in progress). */
export function isKnownStatus(status: string): boolean {
  return VERDICT.has(status);
}

/**
 * The verdict from the status alone: `failed` counts as pending (the control plane may retry it)
 * unless `failFast`. Whether a `failed` operation still has a retry in sight is the tracker's call.
 */
export function classifyStatus(status: string, failFast: boolean): Verdict {
  if (status === 'failed' && failFast) return 'failure';
  return VERDICT.get(status) ?? 'pending';
}

/** In progress as far as the project is concerned (project mode waits until none is). */
export function isInProgress(status: string): boolean {
  return classifyStatus(status, false) === 'pending';
}

// Higher is worse. In-progress statuses sit between the failures and the successes, so that
// `wait: false` reports "still running" over "finished" but under any failure.
const SEVERITY = new Map<string, number>([
  ['timeout', 100],
  ['error', 90],
  ['cancelled', 80],
  ['failed', 70],
  ['cancelling', 60],
  ['running', 50],
  ['scheduling', 40],
  ['finished', 20],
  ['skipped', 10]
]);
const UNKNOWN_SEVERITY = 55;

/** The one status that stands for several: the worst; all skipped gives `skipped`. */
export function aggregateStatus(statuses: readonly string[]): string {
  let worst = '';
  let worstRank = -1;
  for (const status of statuses) {
    const rank = SEVERITY.get(status) ?? UNKNOWN_SEVERITY;
    if (rank > worstRank) {
      worst = status;
      worstRank = rank;
    }
  }
  return worst;
}
