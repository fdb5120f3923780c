/**
 * The one status vocabulary: what the API's operation statuses mean for a wait (README, "What counts
 * as done"), and the wait's own statuses that the `status` output can hold beside them.
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
/** The `status` output: a wait status, or an operation's status as the API wrote it. */
export type ResultStatus = (typeof WAIT_STATUS)[keyof typeof WAIT_STATUS] | (string & {});

/** What a status means for a wait. */
export type Verdict = 'success' | 'failure' | 'pending';

/**
 * Each status's verdict and severity (higher is worse). In-progress statuses rank between failures
 * and successes, so that `wait: false` reports "still running" over "finished" but under any
 * failure. A Map, not an object literal: an API status such as `__proto__` must find nothing.
 */
const STATUSES = new Map<string, [Verdict | undefined, number]>([
  ['timeout', [undefined, 100]],
  ['error', ['failure', 90]],
  ['cancelled', ['failure', 80]],
  ['failed', ['pending', 70]],
  ['cancelling', ['pending', 60]],
  ['running', ['pending', 50]],
  ['scheduling', ['pending', 40]],
  ['finished', ['success', 20]],
  ['skipped', ['success', 10]]
]);

/** One of the API's OperationStatus enum (any other string is unknown: treated as in progress). */
export function isKnownStatus(status: string): boolean {
  return STATUSES.get(status)?.[0] !== undefined;
}

/**
 * The verdict from the status alone: `failed` counts as pending (the control plane may retry it)
 * unless `failFast`. Whether a `failed` operation still has a retry in sight is the tracker's call.
 */
export function classifyStatus(status: string, failFast: boolean): Verdict {
  if (status === 'failed' && failFast) return 'failure';
  return STATUSES.get(status)?.[0] ?? 'pending';
}

/** In progress as far as the project is concerned (project mode waits until none is). */
export function isInProgress(status: string): boolean {
  return classifyStatus(status, false) === 'pending';
}

/** The one status that stands for several: the worst (the first of equals); all skipped gives `skipped`. */
export function aggregateStatus(statuses: readonly string[]): string {
  // An unknown status is in progress: it ranks among the in-progress ones.
  const rank = (status: string) => STATUSES.get(status)?.[1] ?? 55;
  return statuses.reduce((worst, s) => (rank(s) > rank(worst) ? s : worst), statuses[0] ?? '');
}
