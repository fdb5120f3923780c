import { describe, expect, it } from '@jest/globals';
import type { Clock } from '../src/util/clock.js';
import { CancelledError, DeadlineError } from '../src/util/errors.js';
import { waitUntil } from '../src/wait/loop.js';
import type { Verdict } from '../src/wait/status.js';

/** A clock that only moves when the code under test sleeps. */
function fakeClock(start = 1_000_000): Clock & { sleeps: number[] } {
  let now = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: async (ms, signal) => {
      if (signal?.aborted) throw new CancelledError();
      sleeps.push(ms);
      now += ms;
    }
  };
}

describe('waitUntil', () => {
  it('checks at once and returns on the first conclusive check without sleeping', async () => {
    const clock = fakeClock();
    const result = await waitUntil(async () => 'success', {
      deadline: clock.now() + 10_000,
      delay: () => 1000,
      clock
    });
    expect(result).toEqual({ ended: 'success', checks: 1, lastCheckAt: clock.now() });
    expect(clock.sleeps).toEqual([]);
  });

  it('follows the schedule between checks and reports failure', async () => {
    const clock = fakeClock();
    const states: Verdict[] = ['pending', 'pending', 'failure'];
    const result = await waitUntil(async () => states.shift() as Verdict, {
      deadline: clock.now() + 60_000,
      delay: (n) => n * 1000,
      clock
    });
    expect(result).toEqual({ ended: 'failure', checks: 3, lastCheckAt: clock.now() });
    expect(clock.sleeps).toEqual([1000, 2000]);
  });

  it('never sleeps past the deadline and places one last check just before it', async () => {
    const clock = fakeClock();
    const start = clock.now();
    const checkTimes: number[] = [];
    const result = await waitUntil(
      async () => {
        checkTimes.push(clock.now() - start);
        return 'pending';
      },
      { deadline: start + 12_000, delay: () => 5000, clock }
    );
    expect(result.ended).toBe('timeout');
    expect(checkTimes).toEqual([0, 5000, 10_000, 11_700]);
    expect(clock.now()).toBeLessThanOrEqual(start + 12_000);
  });

  it('counts time spent inside a check against the schedule', async () => {
    const clock = fakeClock();
    const start = clock.now();
    const checkTimes: number[] = [];
    await waitUntil(
      async () => {
        checkTimes.push(clock.now() - start);
        await clock.sleep(400);
        return checkTimes.length === 3 ? 'success' : 'pending';
      },
      { deadline: start + 60_000, delay: () => 1000, clock }
    );
    expect(checkTimes).toEqual([0, 1000, 2000]);
  });

  it('turns a DeadlineError from the client into a timeout that names the last fault', async () => {
    const clock = fakeClock();
    const result = await waitUntil(
      async () => {
        throw new DeadlineError('HTTP 503: unavailable', clock.now() + 4700);
      },
      { deadline: clock.now() + 5000, delay: () => 1000, clock }
    );
    expect(result).toMatchObject({ ended: 'timeout', checks: 1, lastCheckAt: clock.now() });
    expect(result.fault?.lastError).toBe('HTTP 503: unavailable');
    expect(result.fault?.lastTryAt).toBe(clock.now() + 4700);
  });

  it('stops as cancelled when the signal aborts during a sleep', async () => {
    const controller = new AbortController();
    let sleeping = false;
    // A sleep that only ends when the signal aborts: the loop must pass the signal on to it.
    const clock: Clock = {
      now: () => 1_000_000,
      sleep: (_ms, signal) =>
        new Promise<void>((_resolve, reject) => {
          sleeping = true;
          signal?.addEventListener('abort', () => reject(new CancelledError()), { once: true });
        })
    };
    setTimeout(() => controller.abort(), 20);
    const result = await waitUntil(async () => 'pending', {
      deadline: 1_000_000 + 60_000,
      delay: () => 30_000,
      clock,
      signal: controller.signal
    });
    expect(sleeping).toBe(true);
    expect(result).toMatchObject({ ended: 'cancelled', checks: 1 });
  });

  it('lets other errors through (a refused key is not a timeout)', async () => {
    const clock = fakeClock();
    await expect(
      waitUntil(
        async () => {
          throw new Error('HTTP 401');
        },
        { deadline: clock.now() + 5000, delay: () => 1000, clock }
      )
    ).rejects.toThrow('HTTP 401');
  });
});
