import { describe, expect, it } from '@jest/globals';
import { EARLY_DELAYS_MS, pollDelay } from '../src/wait/schedule.js';

const LOW = () => 0;
const MID = () => 0.5;
const HIGH = () => 1;

/** Times of the checks, first at 0, each next one `pollDelay(checksDone)` after the previous. */
function checkTimes(count: number, intervalMs: number, random: () => number): number[] {
  const times = [0];
  for (let checksDone = 1; times.length < count; checksDone++) {
    times.push((times.at(-1) as number) + pollDelay(checksDone, intervalMs, random));
  }
  return times;
}

describe('pollDelay', () => {
  it.each([
    [1, 600],
    [2, 900],
    [3, 1500],
    [4, 2500],
    [5, 5000],
    [6, 5000],
    [50, 5000]
  ])('after %d checks waits %d ms (no jitter, interval 5s)', (checksDone, delay) => {
    expect(pollDelay(checksDone, 5000, MID)).toBe(delay);
  });

  it.each([
    [1, 600],
    [2, 900],
    [3, 1000],
    [4, 1000],
    [5, 1000]
  ])('caps the early delays by a 1000 ms interval: after %d checks, %d ms', (checksDone, delay) => {
    expect(pollDelay(checksDone, 1000, MID)).toBe(delay);
  });

  it('never waits longer early on than the interval, whatever the interval', () => {
    for (const interval of [1000, 1200, 2000, 3000, 5000, 60_000]) {
      for (let checksDone = 1; checksDone <= EARLY_DELAYS_MS.length + 2; checksDone++) {
        expect(pollDelay(checksDone, interval, MID)).toBeLessThanOrEqual(interval);
      }
    }
  });

  it.each([1000, 5000, 30_000, 3_600_000])(
    'keeps within ±10%% jitter and never above interval*1.1 (interval %d)',
    (interval) => {
      for (let checksDone = 1; checksDone <= 10; checksDone++) {
        const base = pollDelay(checksDone, interval, MID);
        for (const r of [0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.999, 1]) {
          const delay = pollDelay(checksDone, interval, () => r);
          expect(delay).toBeGreaterThanOrEqual(Math.floor(base * 0.9));
          expect(delay).toBeLessThanOrEqual(Math.ceil(base * 1.1));
          expect(delay).toBeLessThanOrEqual(Math.ceil(interval * 1.1));
        }
        expect(pollDelay(checksDone, interval, LOW)).toBe(Math.round(base * 0.9));
        expect(pollDelay(checksDone, interval, HIGH)).toBe(Math.round(base * 1.1));
      }
    }
  );

  it('stays within bounds with Math.random', () => {
    for (let i = 0; i < 1000; i++) {
      const checksDone = 1 + (i % 8);
      const delay = pollDelay(checksDone, 5000);
      const base = pollDelay(checksDone, 5000, MID);
      expect(delay).toBeGreaterThanOrEqual(Math.floor(base * 0.9));
      expect(delay).toBeLessThanOrEqual(Math.ceil(base * 1.1));
    }
  });

  describe.each([
    ['random 0', LOW],
    ['random 1', HIGH]
  ])('check times with interval 5000, %s', (_name, random) => {
    const times = checkTimes(10, 5000, random);

    it('rise strictly', () => {
      for (let i = 1; i < times.length; i++) {
        expect(times[i] as number).toBeGreaterThan(times[i - 1] as number);
      }
    });

    it('see an operation finishing at 1.2 s by a check at or before 1.8 s', () => {
      const seenAt = times.find((t) => t >= 1200);
      expect(seenAt).toBeDefined();
      expect(seenAt as number).toBeLessThanOrEqual(1800);
    });

    it('see an operation finishing at 25 s within 10 checks', () => {
      expect(times).toHaveLength(10);
      expect(times.some((t) => t >= 25_000)).toBe(true);
    });
  });
});
