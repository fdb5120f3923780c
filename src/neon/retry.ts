/** The last request of a wait (a check or a retry) goes this long before the deadline, to be answered. */
export const LAST_TRY_LEAD_MS = 300;
/** Two tries are never closer than this: a last one that would be is skipped. */
export const MIN_GAP_MS = 250;

/** Statuses that a later identical GET may well answer: locked, throttled, and the 5xx family. */
export const isRetryableStatus = (status: number): boolean =>
  status === 423 || status === 429 || (status >= 500 && status < 600);

export interface RetryPolicyOptions {
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** First delay after a 429 that names no `Retry-After`. */
  throttleBaseMs?: number;
  random?: () => number;
}

/** When a failed GET is tried again, and after how long: one place to read and test the policy. */
export class RetryPolicy {
  constructor(private readonly options: RetryPolicyOptions = {}) {}

  /**
   * Delay before retry number `attempt + 1`, or undefined when none fits in `leftMs`: what the server
   * asked for, else exponential backoff, from `throttleBaseMs` after a 429 (Neon sends no
   * `Retry-After`; its limit is a minute's budget shared by every job of the account). A backoff
   * past the time left is cut so the last try lands `LAST_TRY_LEAD_MS` before the deadline; a
   * `Retry-After` is never cut below what it asks.
   */
  delay(attempt: number, leftMs: number, retryAfterMs?: number, throttled = false) {
    const { backoffBaseMs = 1000, backoffMaxMs = 30_000, throttleBaseMs = 5000 } = this.options;
    const random = this.options.random ?? Math.random;
    const base = throttled ? throttleBaseMs : backoffBaseMs;
    const ceiling = Math.min(backoffMaxMs, base * 2 ** Math.min(attempt, 20));
    const wanted = Math.round(
      retryAfterMs === undefined
        ? // "Equal jitter": half fixed, half random, so that clients never retry in lockstep.
          ceiling / 2 + (random() * ceiling) / 2
        : // Plus up to half as much again (1 to 10 s): jobs all told "1" would come back together.
          retryAfterMs + random() * Math.min(10_000, Math.max(1000, retryAfterMs / 2))
    );
    const room = leftMs - LAST_TRY_LEAD_MS;
    if (wanted <= room) return wanted;
    return room >= (retryAfterMs ?? MIN_GAP_MS) ? room : undefined;
  }
}

/**
 * `Retry-After` in milliseconds from now: a non-negative number of seconds, or an HTTP date (its
 * three forms all begin with the day's name) in the future. Anything else (`-1`, a past date, a
 * word) is ignored, and the policy's own backoff applies.
 */
export function retryAfter(value: string | undefined, now: number): number | undefined {
  const trimmed = value?.trim() ?? '';
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  if (!/^(mon|tue|wed|thu|fri|sat|sun)[a-z]*,? /i.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  return date > now ? date - now : undefined;
}
