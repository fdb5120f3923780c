/**
 * When to look again. Most operations finish within seconds, so the first checks come quickly, then
 * settle at `interval`, each with ±10% jitter so that jobs sharing one rate limit drift apart. With
 * the project's history of an operation's kind, `history.ts` places the checks instead.
 */
export const EARLY_DELAYS_MS = [600, 900, 1500, 2500] as const;

/** The ladder's delay before the next check, given how many checks have been made. */
export const ladder = (checksDone: number, intervalMs: number): number =>
  Math.min(EARLY_DELAYS_MS[checksDone - 1] ?? intervalMs, intervalMs);

/**
 * The ladder's delay in force `ms` after a wait's first check, had every check been the ladder's:
 * its pace by the clock rather than by the count of checks made.
 */
export function ladderAt(ms: number, intervalMs: number): number {
  let at = 0;
  for (const delay of EARLY_DELAYS_MS) {
    at += Math.min(delay, intervalMs);
    if (ms < at) return Math.min(delay, intervalMs);
  }
  return intervalMs;
}

/** Delay before the next check: the ladder's, or `baseMs` when history says when to look; jittered. */
export const pollDelay = (
  checksDone: number,
  intervalMs: number,
  random: () => number = Math.random,
  baseMs = ladder(checksDone, intervalMs)
): number => Math.round(baseMs * (0.9 + 0.2 * random()));

/** Each check that met a 429 slows the wait 4x (up to 8x); each check without one takes 10% back. */
export const PACE = { max: 8, slowdown: 4, recovery: 0.9 } as const;

/**
 * A multiplier on the polling delay while throttled. Neon's limit is per account (every job of an
 * organisation shares it), so a job that meets 429s backs off for everyone; it speeds up again over
 * minutes, not at once. Tuned on 100 jobs of one account (`__tests__/crowd.test.ts`, `npm run bench`).
 */
export class Pace {
  factor = 1;
  private seen = 0;

  /** Called after each check with the client's 429 count so far. */
  update(throttledSoFar: number): void {
    if (throttledSoFar > this.seen) this.factor = Math.min(PACE.max, this.factor * PACE.slowdown);
    else this.factor = Math.max(1, this.factor * PACE.recovery);
    this.seen = throttledSoFar;
  }
}
