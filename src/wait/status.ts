/**
 * What each operation status means for a wait (see docs: `finished`/`skipped` succeed,
 * `cancelled`/`error` fail, `failed` is still retried by the control plane unless fail_fast).
 */
export type Verdict = 'success' | 'failure' | 'pending';

const SUCCESS = new Set(['finished', 'skipped']);
const FAILURE = new Set(['cancelled', 'error']);
const PENDING = new Set(['scheduling', 'running', 'cancelling', 'failed']);

export function isKnownStatus(status: string): boolean {
  return SUCCESS.has(status) || FAILURE.has(status) || PENDING.has(status);
}

export function classifyStatus(status: string, failFast: boolean): Verdict {
  if (SUCCESS.has(status)) return 'success';
  if (FAILURE.has(status)) return 'failure';
  if (status === 'failed' && failFast) return 'failure';
  return 'pending';
}

/** In progress as far as the project is concerned (project mode waits until none is). */
export function isInProgress(status: string): boolean {
  return classifyStatus(status, false) === 'pending';
}

// Higher is worse. In-progress statuses sit between the failures and the successes, so that
// `wait: false` reports "still running" over "finished" but under any failure.
const SEVERITY: Record<string, number> = {
  timeout: 100,
  error: 90,
  cancelled: 80,
  failed: 70,
  cancelling: 60,
  running: 50,
  scheduling: 40,
  finished: 20,
  skipped: 10
};
const UNKNOWN_SEVERITY = 55;

/** The one status that stands for several: the worst; all skipped gives `skipped`. */
export function aggregateStatus(statuses: readonly string[]): string {
  let worst = '';
  let worstRank = -1;
  for (const status of statuses) {
    const rank = SEVERITY[status] ?? UNKNOWN_SEVERITY;
    if (rank > worstRank) {
      worst = status;
      worstRank = rank;
    }
  }
  return worst;
}
