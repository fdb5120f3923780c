/**
 * When to look again. Most operations finish within seconds, so the first checks come quickly and
 * then settle at `interval`, each with ±10% jitter so that many jobs sharing one rate limit drift
 * apart instead of polling in lockstep. The early delays add only a few requests to a long wait.
 */
export const EARLY_DELAYS_MS = [600, 900, 1500, 2500] as const;
const JITTER = 0.1;

/** Delay before the next check, given how many checks have been made. */
export function pollDelay(
  checksDone: number,
  intervalMs: number,
  random: () => number = Math.random
): number {
  const early = EARLY_DELAYS_MS[checksDone - 1];
  const base = early !== undefined && early < intervalMs ? early : intervalMs;
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()));
}
