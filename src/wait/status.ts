/** The wait's own statuses, which the `status` output holds beside the API's. */
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
  databaseError: 'database_error',
  /** The `request` got no answer: it may have been applied, and was not sent again. */
  unconfirmed: 'unconfirmed'
} as const;
/** The `status` output: a wait status, or an operation's status as the API wrote it. */
export type ResultStatus = (typeof WAIT_STATUS)[keyof typeof WAIT_STATUS] | (string & {});

export type Verdict = 'success' | 'failure' | 'pending';

/** How a test report (JUnit) and the timeline show an operation's status; `open` depends on how the wait ended. */
export type Outcome = 'passed' | 'skipped' | 'failed' | 'open';

/**
 * The one status vocabulary (README, "What counts as done"), in the order the `status` output's
 * description lists them; the worst rank stands for several. `failed` is pending (the control plane
 * may retry it) but shown as failed. In-progress statuses rank between failures and successes, so
 * that `wait: false` reports "still running" over "finished" but under any failure; the wait's own,
 * but `timeout`, rank as an unknown status would. A Map, not an object literal: an API status such
 * as `__proto__` must find nothing.
 */
const STATUSES = new Map(
  (
    [
      ['finished', 'operation', 'success', 20, '✅', 'passed'],
      ['skipped', 'operation', 'success', 10, '⏭️', 'skipped'],
      ['failed', 'operation', 'pending', 70, '⚠️', 'failed'],
      ['cancelled', 'operation', 'failure', 80, '🚫', 'failed'],
      ['error', 'operation', 'failure', 90, '❌', 'failed'],
      ['cancelling', 'operation', 'pending', 60, '⏳', 'open'],
      ['running', 'operation', 'pending', 50, '⏳', 'open'],
      ['scheduling', 'operation', 'pending', 40, '🕓', 'open'],
      [WAIT_STATUS.timeout, 'wait', 'failure', 100, '⌛', 'failed', 'timed out'],
      [WAIT_STATUS.idle, 'wait', 'success', 55, '✅', 'passed'],
      [WAIT_STATUS.busy, 'wait', 'pending', 55, '⏳', 'open', 'busy (work in progress)'],
      [WAIT_STATUS.watching, 'wait', 'pending', 55, '⏳', 'open'],
      [WAIT_STATUS.aborted, 'wait', 'failure', 55, '🛑', 'failed', 'interrupted'],
      [WAIT_STATUS.apiError, 'wait', 'failure', 55, '❌', 'failed', 'API error'],
      [WAIT_STATUS.inputError, 'wait', 'failure', 55, '❌', 'failed', 'input error'],
      [WAIT_STATUS.databaseError, 'wait', 'failure', 55, '❌', 'failed', 'database error'],
      [WAIT_STATUS.unconfirmed, 'wait', 'failure', 55, '❓', 'failed', 'request unconfirmed']
    ] satisfies Array<[string, 'operation' | 'wait', Verdict, number, string, Outcome, string?]>
  ).map(([status, of, verdict, rank, marker, outcome, label]) => [
    status,
    { of, verdict, rank, marker, outcome, label: label ?? status }
  ])
);

export const STATUS_NAMES = [...STATUSES.keys()];
/** Every status's row (the test checks each has every column). */
export const statusRows = () => [...STATUSES];

const apiRow = (status: string) =>
  STATUSES.get(status)?.of === 'operation' ? STATUSES.get(status) : undefined;

/** One of the API's OperationStatus enum (any other string is unknown: treated as in progress). */
export const isKnownStatus = (status: string): boolean => apiRow(status) !== undefined;

/**
 * The verdict from the status alone: `failed` counts as pending (the control plane may retry it)
 * unless `failFast`. Whether a `failed` operation still has a retry in sight is the tracker's call.
 */
export const classifyStatus = (status: string, failFast: boolean): Verdict =>
  status === 'failed' && failFast ? 'failure' : (apiRow(status)?.verdict ?? 'pending');

export const outcomeOf = (status: string): Outcome => apiRow(status)?.outcome ?? 'open';

/** In progress as far as the project is concerned (project mode waits until none is). */
export const isInProgress = (status: string): boolean =>
  classifyStatus(status, false) === 'pending';

export const statusMarker = (status: string): string => STATUSES.get(status)?.marker ?? '❔';

export const statusLabel = (status: string): string => STATUSES.get(status)?.label ?? status;

/** The one status that stands for several: the worst (the first of equals); all skipped gives `skipped`. */
export function aggregateStatus(statuses: readonly string[]): string {
  // An unknown status is in progress: it ranks among the in-progress ones.
  const rank = (status: string) => STATUSES.get(status)?.rank ?? 55;
  return statuses.reduce((worst, s) => (rank(s) > rank(worst) ? s : worst), statuses[0] ?? '');
}
