/**
 * A database host that does not resolve ends the probe after a short grace, naming the host,
 * instead of at the deadline. `.invalid` never resolves (RFC 2606): the resolver answers at once
 * and no connection is made anywhere. Time is simulated: the grace costs no real seconds.
 */
import { describe, expect, it } from '@jest/globals';
import { probeDatabase } from '../../src/database/probe.js';
import { parseDatabaseUrl } from '../../src/database/url.js';
import { SimulatedClock } from '../../simulator/simulated-wait.js';

const HOST = 'ep-typo-a1b2c3d4.invalid';

describe('probeDatabase, a host that does not resolve', () => {
  it('gives up after a few tries over about 10 s of a 10-minute deadline, naming the host', async () => {
    const clock = new SimulatedClock(Date.now());
    const target = parseDatabaseUrl(`postgresql://app:pw-secret@${HOST}/appdb?sslmode=require`, {});
    const errors: string[] = [];
    const result = await probeDatabase({
      target,
      deadline: clock.now() + 600_000,
      clock,
      onAttempt: ({ error }) => void (error && errors.push(error))
    });
    expect(result).toMatchObject({ ready: false, reason: 'rejected' });
    expect(errors.every((error) => error.includes(`ENOTFOUND ${HOST}`))).toBe(true);
    expect(result.attempts).toBeGreaterThanOrEqual(3);
    expect(clock.elapsed).toBeGreaterThanOrEqual(10_000);
    expect(clock.elapsed).toBeLessThan(15_000);
    expect(!result.ready && result.message).toMatch(
      new RegExp(
        `^Cannot connect to the database ${HOST}:5432/appdb: the host name '${HOST}' does not ` +
          `resolve \\(ENOTFOUND, \\d+ tries over 1\\d(\\.\\d)?s\\); check the URL's host\\.$`
      )
    );
  });
});
