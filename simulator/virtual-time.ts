import FakeTimers, { type Clock as FakeClock } from '@sinonjs/fake-timers';
import type { Transport } from '../src/neon/http.js';
import type { Clock } from '../src/util/clock.js';
import { CancelledError } from '../src/util/errors.js';

/**
 * Simulated time for several waiters at once, whatever their clock: the action's engine through a
 * `Clock`, and code that sleeps with the global `setTimeout` and measures with `performance.now()`
 * (`@neon/sdk`), through @sinonjs/fake-timers installed on the global object. Requests are real
 * HTTP to the simulator on 127.0.0.1; time stands still while any is in flight, and moves to the
 * next timer only once every waiter is asleep. So minutes of polling by a crowd take seconds, the
 * order of events is the one real time would give, and a request takes no simulated time.
 *
 * One instance at a time: it replaces the global timers until `dispose()`.
 */
export class VirtualTime {
  private readonly fake: FakeClock;
  private readonly realFetch = globalThis.fetch;
  private readonly realSetImmediate = globalThis.setImmediate;
  private inFlight = 0;

  readonly clock: Clock = {
    now: () => this.now(),
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(new CancelledError());
        const timer = setTimeout(
          () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
          Math.max(0, ms)
        );
        function onAbort(): void {
          clearTimeout(timer);
          reject(new CancelledError());
        }
        signal?.addEventListener('abort', onAbort, { once: true });
      })
  };

  constructor(readonly epoch: number) {
    this.fake = FakeTimers.withGlobal(globalThis).install({
      now: epoch,
      toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance']
    });
  }

  /** Epoch ms. */
  now(): number {
    return this.fake.now;
  }

  /** Milliseconds since the start. */
  elapsed(): number {
    return this.fake.now - this.epoch;
  }

  /** Runs `work` (requests) while time stands still. */
  async busy<T>(work: () => Promise<T>): Promise<T> {
    this.inFlight++;
    try {
      return await work();
    } finally {
      this.inFlight--;
    }
  }

  /** The real `fetch`, reading the whole body before time may move on. */
  readonly fetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> =>
    this.busy(async () => {
      const res = await this.realFetch(input, init);
      const body = await res.arrayBuffer();
      // Content-Encoding is dropped: the body is already inflated.
      const headers = new Headers(res.headers);
      headers.delete('content-encoding');
      return new Response(res.status === 204 ? null : body, {
        status: res.status,
        statusText: res.statusText,
        headers
      });
    });

  /** The action's transport, time standing still during each request. */
  transport(inner: Transport): Transport {
    return {
      send: (method, url, headers, body, signal) =>
        this.busy(() => inner.send(method, url, headers, body, signal)),
      close: () => inner.close()
    };
  }

  /**
   * Runs until every task has settled, or `limitMs` of simulated time has passed (the tasks left
   * are then abandoned: their timers never fire). With `resolutionMs`, the timers due within that
   * long after the next one fire together, and their requests leave at the end of that span: less
   * exact, much faster for a crowd that polls every 100 ms.
   */
  async run<T>(
    tasks: Array<Promise<T>>,
    limitMs: number,
    resolutionMs = 0
  ): Promise<Array<T | undefined>> {
    const results: Array<T | undefined> = tasks.map(() => undefined);
    let settled = 0;
    const failures: unknown[] = [];
    tasks.forEach((task, i) =>
      task.then(
        (value) => {
          results[i] = value;
          settled++;
        },
        (error: unknown) => {
          failures.push(error);
          settled++;
        }
      )
    );
    while (settled < tasks.length) {
      await this.quiet();
      if (settled >= tasks.length || this.elapsed() >= limitMs) break;
      if (this.fake.countTimers() === 0) throw new Error('every task waits, on no timer');
      this.fake.next();
      if (resolutionMs > 0) this.fake.tick(resolutionMs);
    }
    if (failures.length > 0) throw failures[0];
    return results;
  }

  dispose(): void {
    this.fake.uninstall();
  }

  /** Until no request is in flight for a few turns of the event loop (replies are handled). */
  private async quiet(): Promise<void> {
    for (let calm = 0; calm < 3;) {
      await new Promise((resolve) => this.realSetImmediate(resolve));
      calm = this.inFlight === 0 ? calm + 1 : 0;
    }
  }
}
