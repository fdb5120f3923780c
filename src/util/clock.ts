import { CancelledError } from './errors.js';

/** Time as the waiting code sees it, so tests and the benchmark can run it on a simulated clock. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason as soon as the signal aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(new CancelledError());
      const timer = setTimeout(done, Math.max(0, ms));
      function onAbort(): void {
        clearTimeout(timer);
        reject(new CancelledError());
      }
      function done(): void {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }
      signal?.addEventListener('abort', onAbort, { once: true });
    })
};
