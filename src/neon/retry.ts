/** The last request of a wait (a check or a retry) goes this long before the deadline, to be answered. */
export const LAST_TRY_LEAD_MS = 300;
/** Two tries are never closer than this: a last one that would be is skipped. */
export const MIN_GAP_MS = 250;

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

/** The span of Neon's rate limit: a sliding minute per account (`api-facts`: 700 a minute). */
const MINUTE_MS = 60_000;
/** After a 429, a job keeps to this part of what it had answered in the minute that filled. */
const SHARE_CUT = 0.8;
/** The least share: a request every 10 s (70 jobs of an account at 700 a minute each keep 6). */
const MIN_SHARE = 6;
/** Each minute of answers without a 429 grows the share by this many requests a minute. */
const SHARE_GROWTH = 1;

/**
 * This job's share of its account's minute. Neon limits every job of an account together, over a
 * sliding minute, and says nothing of what is left (no documented headers, no `Retry-After`), so a
 * job learns the limit from its 429s alone (issue 36 class 6: 30 jobs each looking once a second
 * spent the account's minute in 10 s, then 124 requests were answered 429 and the project stayed
 * free 50 s). Unbounded until a 429; then the job keeps to fewer requests a minute than it had
 * answered when the minute filled (every job doing so, the crowd keeps under the limit), and the
 * next waits until its own oldest answered request leaves the minute: when the crowd's burst has
 * aged out too. Each answer without a 429 grows the share by about one a minute.
 */
export class MinuteShare {
  /** When this job's answered requests of the last minute were answered (ms, oldest first). */
  private readonly answered: number[] = [];
  /** Requests a minute this job keeps to; none before its first 429. */
  private quota: number | undefined;
  /** No request before this, after a 429. */
  private resumeAt = 0;
  private lastTry = 0;
  /** The next request's place in its gap: jobs that met the limit together must not come back together. */
  private phase = 0;

  /** `random` is drawn from only once a 429 has come: until then, the job's other draws are as without it. */
  constructor(private readonly random: () => number = Math.random) {}

  /** An answer other than 429: it counts against the account's minute. */
  answer(at: number): void {
    this.prune(at);
    this.answered.push(at);
    this.lastTry = at;
    if (this.quota === undefined) return;
    this.phase = this.random();
    // One more a minute per minute of answers (a gap's worth of growth per answer), not one per
    // answer: thirty jobs each growing by their own rate a minute were back over the account's
    // limit within a minute of the cut (issue 36 class 6 with the 3 s creation chain).
    this.quota += SHARE_GROWTH / this.quota;
  }

  /**
   * A 429: the account's minute is full. It frees as its oldest answers age out: when the crowd
   * spent it together, about when this job's own oldest answer of the minute does.
   */
  throttled(at: number): void {
    this.prune(at);
    this.quota = Math.max(MIN_SHARE, Math.floor(this.answered.length * SHARE_CUT));
    const gap = MINUTE_MS / this.quota;
    const oldest = this.answered[0];
    this.resumeAt = (oldest === undefined ? at : oldest + MINUTE_MS) + gap * this.random();
    this.lastTry = at;
    this.phase = this.random();
  }

  /** Ms until one more request keeps within the share (0: now), spread over the minute. */
  waitMs(now: number): number {
    this.prune(now);
    const { quota, answered } = this;
    if (quota === undefined) return 0;
    const gap = MINUTE_MS / quota;
    // Half a gap to one and a half after the last try, by the phase drawn for it.
    const spread = this.lastTry + gap * (0.5 + this.phase);
    const kept = answered[answered.length - Math.ceil(quota)];
    const full = kept === undefined ? 0 : kept + MINUTE_MS;
    return Math.max(0, this.resumeAt - now, spread - now, full - now);
  }

  private prune(now: number): void {
    while (this.answered.length > 0 && (this.answered[0] as number) <= now - MINUTE_MS)
      this.answered.shift();
  }
}
