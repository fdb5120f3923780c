/** Runs the database probe the way the action will, keeping everything it reported for checks. */
import { expect } from '@jest/globals';
import { type ProbeAttempt, type ProbeResult, probeDatabase } from '../../src/database/probe.js';
import { parseDatabaseUrl } from '../../src/database/url.js';
import { secretsOf } from '../../src/util/url-secrets.js';
import { registerSecret } from '../../src/util/redact.js';
import { type Clock, systemClock } from '../../src/util/clock.js';
import { wire } from '../../simulator/postgres.js';

export interface ProbeRun {
  result: ProbeResult;
  attempts: ProbeAttempt[];
  /** Wall-clock time of the whole call. */
  wallMs: number;
  /**
   * The time it chose to wait between attempts (the real clock's sleeps, summed): 0 for a probe
   * that ended at once, whatever the machine's load made its attempts cost.
   */
  sleptMs: number;
}

export async function runProbe(
  url: string,
  timeoutMs: number,
  options: { signal?: AbortSignal; env?: NodeJS.ProcessEnv } = {}
): Promise<ProbeRun> {
  const attempts: ProbeAttempt[] = [];
  // As the settings do in the product: the one redaction registry then hides every form.
  for (const secret of secretsOf(url)) registerSecret(secret);
  // libpq's environment: none unless the test gives one, whatever the test process has.
  const target = parseDatabaseUrl(url, options.env ?? {});
  let sleptMs = 0;
  const clock: Clock = {
    now: systemClock.now,
    sleep: (ms, signal) => {
      sleptMs += ms;
      return systemClock.sleep(ms, signal);
    }
  };
  const started = Date.now();
  const result = await probeDatabase({
    target,
    deadline: started + timeoutMs,
    onAttempt: (attempt) => attempts.push(attempt),
    signal: options.signal,
    clock
  });
  return { result, attempts, wallMs: Date.now() - started, sleptMs };
}

/** Neither the URL nor the password, raw or percent-encoded, appears in anything the probe gave. */
export function expectNoSecret(run: ProbeRun, url: string, password: string): void {
  const everything = JSON.stringify(run.result) + JSON.stringify(run.attempts);
  for (const secret of [url, password, encodeURIComponent(password)]) {
    expect(everything).not.toContain(secret);
  }
}

/** The failure message of a run that did not succeed (fails the test if it did). */
export function failure(run: ProbeRun): Extract<ProbeResult, { ready: false }> {
  if (run.result.ready) throw new Error(`expected a failure, got ${JSON.stringify(run.result)}`);
  expect(run.result.message.split('\n')).toHaveLength(1);
  return run.result;
}

/** A binary int4[] column (OID 1007, format 1) whose elements claim a type pg does not know. */
export function unknownArrayAnswer(elements: number): Buffer {
  const description = wire.rowDescription();
  description.writeInt32BE(1007, 5 + 10);
  description.writeInt16BE(1, 5 + 20);
  const array = Buffer.alloc(20 + elements * 8);
  array.writeInt32BE(1, 0); // one dimension
  array.writeInt32BE(0, 4); // no NULLs
  array.writeInt32BE(99_999, 8); // an element type no parser knows
  array.writeInt32BE(elements, 12);
  array.writeInt32BE(1, 16);
  for (let i = 0; i < elements; i++) array.writeInt32BE(4, 20 + i * 8);
  const row = Buffer.alloc(6);
  row.writeInt16BE(1, 0);
  row.writeInt32BE(array.length, 2);
  return Buffer.concat([
    description,
    wire.message('D', Buffer.concat([row, array])),
    wire.message('C', Buffer.from('SELECT 1\0')),
    wire.ready()
  ]);
}
