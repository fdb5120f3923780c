import { DeadlineError } from '../neon/client.js';
import { CancelledError, type Clock, systemClock } from '../util/clock.js';

/** What one check found: done (either way) or not yet. The loop knows nothing of HTTP. */
export type CheckState = 'success' | 'failure' | 'pending';
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
      return { outcome: 'timeout', checks, lastError: error.lastError };
    throw error;
  }
}
