import { type ApiStatus, isKnownStatus } from '../neon/operation-status.js';

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
  unconfirmed: 'unconfirmed',
  /** `fail_on_destructive`: the schema review named a destructive change. */
  schemaDestructive: 'schema_destructive'
} as const;
type WaitStatus = (typeof WAIT_STATUS)[keyof typeof WAIT_STATUS];

/** The `status` output: a wait status, or an operation's status as the API wrote it. */
export type Status = ApiStatus | WaitStatus | (string & {});

/** What a status means for the step, under the failure policy: see CONTRIBUTING's glossary. */
export type Verdict = 'success' | 'failure' | 'pending';

interface StatusRow {
  /** Its verdict (`failed` with `fail_fast` aside); with `byFailOn`, under the default policy. */
  verdict: Verdict;
  /** A failure when `fail_on` lists it, else a success. */
  byFailOn?: true;
  /** How the reports show it when the verdict is not a failure, if not as the verdict. */
  shown?: 'skipped' | 'failure';
  /** The worst rank stands for several. */
  rank: number;
  marker: string;
  label?: string;
}

/**
 * The one status vocabulary, in the order the `status` output's description lists them. `failed`
 * is pending (the control plane may retry it) but shown as a failure. In-progress statuses rank
 * between failures and successes, so that `wait: false` reports "still running" over "finished"
 * but under any failure; the wait's own, but `timeout`, rank as an unknown status would. The
 * API's come first (what each means to the service: `neon/operation-status.ts`), then the wait's.
 */
// prettier-ignore
const STATUS_ROWS = {
  finished: { verdict: 'success', rank: 20, marker: '✅' },
  skipped: { verdict: 'success', byFailOn: true, shown: 'skipped', rank: 10, marker: '⏭️' },
  failed: { verdict: 'pending', shown: 'failure', rank: 70, marker: '⚠️' },
  cancelled: { verdict: 'failure', byFailOn: true, shown: 'skipped', rank: 80, marker: '🚫' },
  error: { verdict: 'failure', byFailOn: true, shown: 'skipped', rank: 90, marker: '❌' },
  cancelling: { verdict: 'pending', rank: 60, marker: '⏳' },
  running: { verdict: 'pending', rank: 50, marker: '⏳' },
  scheduling: { verdict: 'pending', rank: 40, marker: '🕓' },
  timeout: { verdict: 'failure', rank: 100, marker: '⌛', label: 'timed out' },
  idle: { verdict: 'success', rank: 55, marker: '✅' },
  busy: { verdict: 'pending', rank: 55, marker: '⏳', label: 'busy (work in progress)' },
  watching: { verdict: 'pending', rank: 55, marker: '⏳' },
  aborted: { verdict: 'failure', rank: 55, marker: '🛑', label: 'interrupted' },
  api_error: { verdict: 'failure', rank: 55, marker: '❌', label: 'API error' },
  input_error: { verdict: 'failure', rank: 55, marker: '❌', label: 'input error' },
  database_error: { verdict: 'failure', rank: 55, marker: '❌', label: 'database error' },
  unconfirmed: { verdict: 'failure', rank: 55, marker: '❓', label: 'request unconfirmed' },
  schema_destructive: { verdict: 'failure', rank: 55, marker: '⚠️', label: 'destructive schema change' }
} satisfies Record<ApiStatus | WaitStatus, StatusRow>;

// A Map, not the object: an API status such as `__proto__` must find nothing.
const STATUSES: ReadonlyMap<string, StatusRow> = new Map(Object.entries(STATUS_ROWS));

export const STATUS_NAMES = [...STATUSES.keys()];
/** Every status's row (the test checks each). */
export const statusRows = () => [...STATUSES];

const apiRow = (status: string) => (isKnownStatus(status) ? STATUSES.get(status) : undefined);

/** The statuses `fail_on` may list: the final ones whose verdict is the user's call. */
export const FAIL_ON_CHOICES = STATUS_NAMES.filter((status) => STATUSES.get(status)?.byFailOn);

/**
 * Which statuses fail the step: decided here only, carried by the settings into the result, and
 * read by the wait, the summary, the comment, the timeline and JUnit alike.
 */
export interface FailurePolicy {
  /** The final statuses that fail the step (`fail_on`), of `FAIL_ON_CHOICES`. */
  failOn: readonly string[];
  /** `failed` fails at once, although the control plane may still retry it (`fail_fast`). */
  failFast: boolean;
}

export const DEFAULT_POLICY: FailurePolicy = { failOn: ['error', 'cancelled'], failFast: false };

/**
 * The verdict from the status alone: `failed` counts as pending (the control plane may retry it)
 * unless `failFast`; an unknown status is pending. Whether a `failed` operation still has a retry
 * in sight is the tracker's call.
 */
export function verdictOf(status: string, policy: FailurePolicy): Verdict {
  if (status === 'failed' && policy.failFast) return 'failure';
  const row = apiRow(status);
  if (!row) return 'pending';
  if (row.byFailOn) return policy.failOn.includes(status) ? 'failure' : 'success';
  return row.verdict;
}

/**
 * How the summary, the timeline and JUnit show an operation's status: its verdict, but `failed` as
 * a failure and a final status that does not fail the step as skipped.
 */
export function shownAs(status: string, policy: FailurePolicy): Verdict | 'skipped' {
  const verdict = verdictOf(status, policy);
  if (verdict === 'failure') return verdict;
  return apiRow(status)?.shown ?? verdict;
}

export const statusMarker = (status: string): string => STATUSES.get(status)?.marker ?? '❔';

export const statusLabel = (status: string): string => STATUSES.get(status)?.label ?? status;

/** The one status that stands for several: the worst (the first of equals); all skipped gives `skipped`. */
export function aggregateStatus(statuses: readonly string[]): string {
  // An unknown status is in progress: it ranks among the in-progress ones.
  const rank = (status: string) => STATUSES.get(status)?.rank ?? 55;
  return statuses.reduce((worst, s) => (rank(s) > rank(worst) ? s : worst), statuses[0] ?? '');
}
