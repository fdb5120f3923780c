import { LAST_TRY_LEAD_MS, MIN_GAP_MS } from '../neon/retry.js';
import { type Clock, systemClock } from '../util/clock.js';
import { CancelledError, DeadlineError } from '../util/errors.js';
import type { Verdict } from './status.js';

interface LoopOptions {
  /** Epoch ms; no sleep and no check starts after it. */
  deadline: number;
  delay: (checksDone: number) => number;
  /** Delay before the first check (0: at once). */
  firstDelay?: number;
  clock?: Clock;
  signal?: AbortSignal;
}

/** How the loop ended. It knows nothing of HTTP: a check is a function passed in. */
export interface LoopEnding {
  ended: Exclude<Verdict, 'pending'> | 'timeout' | 'cancelled';
  checks: number;
  /** When the last check began (epoch ms). */
  lastCheckAt?: number;
  /** The client's faults outlasted the time left (a timeout during a check). */
  fault?: DeadlineError;
}

/**
 * Checks at once (or after `firstDelay`), then on schedule, until a check is conclusive, the
 * deadline passes or the signal aborts. When the schedule would skip past the deadline, one last
 * check goes shortly before it.
 */
export async function waitUntil(
  check: () => Promise<Verdict>,
  { deadline, delay, firstDelay = 0, clock = systemClock, signal }: LoopOptions
): Promise<LoopEnding> {
  const last = deadline - LAST_TRY_LEAD_MS;
  let checks = 0;
  let lastCheckAt: number | undefined;
  const ended = (how: LoopEnding['ended'], fault?: DeadlineError) =>
    ({ ended: how, checks, lastCheckAt, fault }) satisfies LoopEnding;
  try {
    if (firstDelay > 0) await clock.sleep(Math.min(firstDelay, last - clock.now()), signal);
    for (;;) {
      if (signal?.aborted) return ended('cancelled');
      const startedAt = clock.now();
      if (startedAt >= deadline) return ended('timeout');
      checks++;
      lastCheckAt = startedAt;
      const state = await check();
      if (state !== 'pending') return ended(state);

      const wanted = startedAt + delay(checks);
      // The schedule would pass the deadline: one last look shortly before it, unless this was it.
      if (wanted > last && startedAt + MIN_GAP_MS > last) return ended('timeout');
      const next = Math.min(wanted, last);
      const now = clock.now();
      if (now >= deadline) return ended('timeout');
      if (next > now) await clock.sleep(next - now, signal);
    }
  } catch (error) {
    if (error instanceof CancelledError || signal?.aborted) return ended('cancelled');
    if (error instanceof DeadlineError) return ended('timeout', error);
    throw error;
  }
}
