import { setTimeout as delay } from 'node:timers/promises';
import { CancelledError } from './errors.js';

/** Time as the waiting code sees it, so tests and the benchmark can run it on a simulated clock. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`, or rejects with a CancelledError as soon as the signal aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  // Node's timer rejects only when the signal aborts.
  sleep: (ms, signal) =>
    delay(Math.max(0, ms), undefined, { signal }).catch(() => {
      throw new CancelledError();
    })
};
