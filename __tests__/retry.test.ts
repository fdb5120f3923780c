import { describe, expect, it } from '@jest/globals';
import { isRetryableStatus, RetryPolicy, retryAfter } from '../src/neon/retry.js';
import { Pace, PACE } from '../src/wait/schedule.js';

describe('RetryPolicy', () => {
  const low = new RetryPolicy({ random: () => 0 });
  const high = new RetryPolicy({ random: () => 0.999 });

  it('backs off from 1 s, half fixed and half random, doubling to 30 s', () => {
    expect(low.delay(0)).toBe(500);
    expect(high.delay(0)).toBeCloseTo(1000, -1);
    expect(low.delay(3)).toBe(4000);
    expect(high.delay(10)).toBeLessThanOrEqual(30_000);
    expect(low.delay(10)).toBe(15_000);
  });

  it('waits at least 2.5 s after a 429 without Retry-After: the minute budget is shared', () => {
    expect(low.delay(0, undefined, true)).toBe(2500);
    expect(low.delay(1, undefined, true)).toBe(5000);
    expect(high.delay(0, undefined, true)).toBeLessThanOrEqual(5000);
  });

  it('honours Retry-After, spread by up to half again (at least 1 s, at most 10 s)', () => {
    expect(low.delay(0, 2000, true)).toBe(2000);
    expect(high.delay(0, 2000)).toBeCloseTo(3000, -1);
    expect(high.delay(0, 60_000)).toBeCloseTo(70_000, -2);
  });

  it.each([
    [423, true],
    [429, true],
    [500, true],
    [524, true],
    [599, true],
    [400, false],
    [401, false],
    [404, false],
    [302, false]
  ])('HTTP %i is retryable: %s', (status, expected) => {
    expect(isRetryableStatus(status)).toBe(expected);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfter('7', now)).toBe(7000);
    expect(retryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(retryAfter('soon', now)).toBeUndefined();
  });
});

describe('Pace', () => {
  it('slows down 4x per throttled check up to 8x, and recovers by 10% per clean check', () => {
    const pace = new Pace();
    pace.update(0);
    expect(pace.factor).toBe(1);
    pace.update(1);
    expect(pace.factor).toBe(PACE.slowdown);
    pace.update(3);
    expect(pace.factor).toBe(PACE.max);
    pace.update(3);
    expect(pace.factor).toBeCloseTo(PACE.max * PACE.recovery);
    for (let i = 0; i < 100; i++) pace.update(3);
    expect(pace.factor).toBe(1);
  });
});
