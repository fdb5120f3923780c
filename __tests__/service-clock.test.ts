import { describe, expect, it } from '@jest/globals';
import { ServiceClock } from '../src/neon/service-clock.js';

const T = Date.UTC(2026, 0, 1, 12, 0, 0);
const date = (ms: number) => new Date(ms).toUTCString();

describe("the service's clock from the Date header of its answers", () => {
  it("is the runner's until an answer carries a readable date", () => {
    const clock = new ServiceClock();
    clock.observe(undefined, T, T + 50);
    clock.observe('yesterday', T, T + 50);
    expect(clock.offsetMs).toBe(0);
    expect(clock.toService(T)).toBe(T);
    expect(clock.reachedBy(T)).toBe(T);
  });

  it('keeps an offset of 0 for clocks in step (a date within the request), never a made-up skew', () => {
    const clock = new ServiceClock();
    clock.observe(date(T), T + 300, T + 400);
    clock.observe(date(T + 2000), T + 2100, T + 2200);
    expect(clock.offsetMs).toBe(0);
  });

  it('measures a service 5 minutes ahead within a second, and narrows it over answers', () => {
    const clock = new ServiceClock();
    // The service's clock reads T + 300.6 s when the runner's reads T + 0.6 s.
    const service = (runner: number) => runner + 300_000;
    clock.observe(date(Math.floor(service(T + 600) / 1000) * 1000), T + 550, T + 650);
    expect(clock.offsetMs).toBeGreaterThan(299_000);
    expect(clock.offsetMs).toBeLessThanOrEqual(300_000);
    // An answer just after the service's second turned: the bound closes in.
    clock.observe(date(service(T + 1000) - (service(T + 1000) % 1000)), T + 990, T + 1010);
    expect(clock.offsetMs).toBeGreaterThanOrEqual(299_990);
    expect(clock.offsetMs).toBeLessThanOrEqual(300_000);
    expect(clock.toRunner(T + 300_000)).toBeCloseTo(T, -2);
    // A time the service had surely reached is never later than its true time.
    expect(clock.reachedBy(T + 5000)).toBeLessThanOrEqual(service(T + 5000));
  });

  it('measures a service behind, and starts afresh when a clock is stepped', () => {
    const clock = new ServiceClock();
    clock.observe(date(T - 60_000), T + 100, T + 200);
    expect(clock.offsetMs).toBeLessThanOrEqual(-59_000);
    expect(clock.offsetMs).toBeGreaterThanOrEqual(-60_200);
    // The runner's clock was set right: answers no longer fit the old bounds.
    clock.observe(date(T + 10_000), T + 10_100, T + 10_200);
    expect(clock.offsetMs).toBe(0);
  });
});
