/**
 * Neon's rate limit is per account: 700 requests a minute for every job of an organisation, 40 a
 * second per route. 100 jobs of one account wait at once with default settings, on the simulator
 * with exactly those limits, on simulated time (about five minutes of waiting in seconds).
 */
import { describe, expect, it } from '@jest/globals';
import { actionRequestPeer, CROWD_UNDER_LIMIT, crowdUnderLimit } from '../bench/locked.js';
import { actionPeer, crowdOfOneAccount, runPeer } from '../bench/peers.js';

describe('a crowd of 100 jobs of one account (simulated time)', () => {
  it.each([7, 11, 23])(
    'all end with the right verdict, none fails on 429, within 700 a minute once throttled (seed %i)',
    async (seed) => {
      const run = await runPeer({
        peer: actionPeer(),
        jobs: crowdOfOneAccount(100, seed),
        limitMs: 30 * 60_000,
        resolutionMs: 10
      });
      const endings = run.jobs.map((job) => job.ending);
      expect(endings.filter((e) => e !== 'success')).toEqual([]);
      const notices = run.jobs.map((job) => job.noticeMs as number).sort((a, b) => a - b);
      const median = notices[Math.floor(notices.length / 2)] as number;
      console.log(
        `crowd: ${run.requests} requests, ${run.limited} answered 429, busiest minute after the first 429: ` +
          `${run.busiestMinuteThrottled} sent; notice delay median ${(median / 1000).toFixed(2)} s, ` +
          `worst ${((notices.at(-1) as number) / 1000).toFixed(2)} s`
      );
      expect(run.limited).toBeGreaterThan(0); // the crowd does meet the limit
      expect(run.busiestMinuteThrottled).toBeLessThanOrEqual(700);
      expect(median).toBeLessThan(15_000);
    },
    120_000
  );
});

describe('a crowd under the account limit: 30 jobs, one locked project, 300 requests a minute', () => {
  it.each([1, 2])(
    'all created once, at most 30 answered 429, the last job done within 1.5 × the serial sum + 5 s (seed %i)',
    async (seed) => {
      const {
        run,
        lastEnd,
        serialMs: serial,
        boundMs
      } = await crowdUnderLimit(actionRequestPeer(10 * 60_000), seed);
      console.log(
        `crowd under 300/min: ${run.requests} requests, ${run.limited} answered 429, ` +
          `${run.locked} POSTs answered 423, project free ${(run.idleMs / 1000).toFixed(1)} s ` +
          `while jobs waited, last job ended at ${(lastEnd / 1000).toFixed(1)} s ` +
          `(serial sum ${(serial / 1000).toFixed(1)} s, bound ${(boundMs / 1000).toFixed(1)} s)`
      );
      // The serial sum is measured from the operations the creations started (their whole chain as
      // the simulator answers it), not a constant of an older chain of one operation each.
      const { jobs, lockMs, operationMs } = CROWD_UNDER_LIMIT;
      expect(serial).toBeGreaterThan(lockMs[1] + jobs * operationMs);
      expect(run.jobs.map((job) => job.ending)).toEqual(Array(30).fill('success'));
      expect([run.created, run.names]).toEqual([30, 30]);
      expect(run.limited).toBeLessThanOrEqual(30);
      expect(lastEnd).toBeLessThanOrEqual(boundMs);
    },
    120_000
  );
});
