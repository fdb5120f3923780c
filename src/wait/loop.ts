import { type Clock, systemClock } from '../util/clock.js';
import { CancelledError, DeadlineError } from '../util/errors.js';
import type { CheckState } from './mode.js';

export type { CheckState };
/** How the loop ended. It knows nothing of HTTP: a check is a function passed in. */
export type Outcome = 'success' | 'failure' | 'timeout' | 'cancelled';

export interface WaitOptions {
  /** Epoch ms; no sleep and no check starts after it. */
  deadline: number;
  /** Delay before the next check, from the number of checks made so far. */
  delay: (checksDone: number) => number;
  clock?: Clock;
  signal?: AbortSignal;
  /** A last check is placed this long before the deadline when the schedule would skip past it. */
  lastCheckLeadMs?: number;
}

export interface WaitResult {
  outcome: Outcome;
  checks: number;
  /** The fault that was still happening when the deadline came, if any. */
  lastError?: string;
  /** A `Retry-After` that asked for more time than was left, in ms. */
  retryAfterMs?: number;
}

const MIN_GAP_MS = 250;

/** Checks at once, then on schedule, until a check is conclusive, the deadline passes or the signal aborts. */
export async function waitUntil(
  check: () => Promise<CheckState>,
  options: WaitOptions
): Promise<WaitResult> {
  const clock = options.clock ?? systemClock;
  const lead = options.lastCheckLeadMs ?? 300;
  let checks = 0;
  try {
    for (;;) {
      if (options.signal?.aborted) return { outcome: 'cancelled', checks };
      const startedAt = clock.now();
      if (startedAt >= options.deadline) return { outcome: 'timeout', checks };
      checks++;
      const state = await check();
      if (state !== 'pending') return { outcome: state, checks };

      let next = startedAt + options.delay(checks);
      if (next > options.deadline - lead) {
        // The schedule would pass the deadline: one last look shortly before it, unless this was it.
        if (startedAt + MIN_GAP_MS > options.deadline - lead) return { outcome: 'timeout', checks };
        next = options.deadline - lead;
      }
      const now = clock.now();
      if (next >= options.deadline || now >= options.deadline)
        return { outcome: 'timeout', checks };
      if (next > now) await clock.sleep(next - now, options.signal);
    }
  } catch (error) {
    if (error instanceof CancelledError || options.signal?.aborted)
      return { outcome: 'cancelled', checks };
    if (error instanceof DeadlineError)
      return {
        outcome: 'timeout',
        checks,
        lastError: error.lastError,
        ...(error.retryAfterMs !== undefined && { retryAfterMs: error.retryAfterMs })
      };
    throw error;
  }
}
