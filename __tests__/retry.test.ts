import { describe, expect, it } from '@jest/globals';
import { LOOKUP_RULES, ruleFor } from '../src/neon/answer-rules.js';
import {
  LAST_TRY_LEAD_MS,
  MIN_GAP_MS,
  MinuteShare,
  RetryPolicy,
  retryAfter
} from '../src/neon/retry.js';
import { Pace, PACE } from '../src/wait/schedule.js';

describe('RetryPolicy', () => {
  const low = new RetryPolicy({ random: () => 0 });
  const high = new RetryPolicy({ random: () => 0.999 });
  const ample = 3_600_000;

  it('backs off from 1 s, half fixed and half random, doubling to 30 s', () => {
    expect(low.delay(0, ample)).toBe(500);
    expect(high.delay(0, ample)).toBeCloseTo(1000, -1);
    expect(low.delay(3, ample)).toBe(4000);
    expect(high.delay(10, ample)).toBeLessThanOrEqual(30_000);
    expect(low.delay(10, ample)).toBe(15_000);
  });

  it('waits at least 2.5 s after a 429 without Retry-After: the minute budget is shared', () => {
    expect(low.delay(0, ample, undefined, true)).toBe(2500);
    expect(low.delay(1, ample, undefined, true)).toBe(5000);
    expect(high.delay(0, ample, undefined, true)).toBeLessThanOrEqual(5000);
  });

  it('honours Retry-After, spread by up to half again (at least 1 s, at most 10 s)', () => {
    expect(low.delay(0, ample, 2000, true)).toBe(2000);
    expect(high.delay(0, ample, 2000)).toBeCloseTo(3000, -1);
    expect(high.delay(0, ample, 60_000)).toBeCloseTo(70_000, -2);
  });

  it('cuts a backoff longer than the time left, so the last try lands just before the deadline', () => {
    // 10 s of backoff with 6 s left: the retry goes LAST_TRY_LEAD_MS before the deadline.
    expect(low.delay(2, 6000, undefined, true)).toBe(6000 - LAST_TRY_LEAD_MS);
    expect(low.delay(2, 6000)).toBe(2000);
    // No room for a try that could still be answered: none.
    expect(low.delay(0, LAST_TRY_LEAD_MS + MIN_GAP_MS - 1, undefined, true)).toBeUndefined();
    expect(low.delay(0, LAST_TRY_LEAD_MS + MIN_GAP_MS, undefined, true)).toBe(MIN_GAP_MS);
  });

  it('never cuts below what Retry-After asks: a Retry-After beyond the time left means no retry', () => {
    expect(high.delay(0, 5000, 3500)).toBe(5000 - LAST_TRY_LEAD_MS);
    expect(low.delay(0, 5000, 4700)).toBe(4700);
    expect(low.delay(0, 5000, 4701)).toBeUndefined();
    expect(low.delay(0, 5000, 120_000)).toBeUndefined();
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
  ])('HTTP %i is retried by a lookup: %s', (status, expected) => {
    expect(ruleFor(LOOKUP_RULES, status) === 'retry').toBe(expected);
  });

  it('reads Retry-After as seconds or a future HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfter('7', now)).toBe(7000);
    expect(retryAfter(' 0 ', now)).toBe(0);
    expect(retryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    // RFC 9110's obsolete forms, which a recipient must still read.
    expect(retryAfter('Thursday, 01-Jan-26 00:00:30 GMT', now)).toBe(30_000);
    expect(retryAfter('Thu Jan  1 00:00:30 2026', now)).toBeGreaterThan(0);
  });

  it.each(['-1', '-0.5', '1e3', '+5', '0x10', 'soon', '', 'Wed, 31 Dec 2025 23:59:00 GMT'])(
    'ignores Retry-After %j (not seconds, not a future HTTP date)',
    (value) => {
      expect(retryAfter(value, Date.parse('2026-01-01T00:00:00Z'))).toBeUndefined();
    }
  );
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

describe("MinuteShare: a job's share of the account's minute", () => {
  it('unbounded until a 429; then one wait until its oldest answer of the minute ages out, then spread', () => {
    const share = new MinuteShare(() => 0.5);
    for (let at = 0; at < 10_000; at += 1000) share.answer(at);
    expect(share.waitMs(10_000)).toBe(0);
    share.throttled(10_000);
    // 10 answered in the minute: a share of 8 a minute (a gap of 7.5 s); back once the first (at 0)
    // has left the minute, half a gap later by the phase drawn.
    expect(share.waitMs(10_000)).toBe(60_000 + 3750 - 10_000);
    share.answer(64_000);
    // Then a gap of the share (0.5 to 1.5 of it by the phase), grown by an eighth (8⅛ a minute):
    // one more a minute for each minute of answers at 8 a minute.
    expect(share.waitMs(64_000)).toBeCloseTo(60_000 / (8 + 1 / 8));
  });

  it('grows by about one a minute per minute, not one per answer (issue 36 class 6)', () => {
    // Thirty jobs each growing by one per answer were back over the account's limit within a
    // minute of the cut; by one a minute per minute, together they grow by thirty a minute.
    const share = new MinuteShare(() => 0.5);
    for (let at = 0; at < 10_000; at += 1000) share.answer(at);
    share.throttled(10_000);
    let at = 64_000;
    for (; at < 124_000; at += share.waitMs(at)) share.answer(at);
    share.answer(at);
    // A minute of answers later: about 9 a minute (a gap of 6.7 s), where one per answer made it ~16.
    const perMinute = 60_000 / share.waitMs(at);
    expect(perMinute).toBeGreaterThan(8.5);
    expect(perMinute).toBeLessThan(9.5);
  });
});
