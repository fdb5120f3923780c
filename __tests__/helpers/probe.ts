/** Runs the database probe the way the action will, keeping everything it reported for checks. */
import { expect } from '@jest/globals';
import { type ProbeAttempt, type ProbeResult, probeDatabase } from '../../src/database/probe.js';
import { parseDatabaseUrl, secretsOf } from '../../src/database/url.js';
import { registerSecret } from '../../src/util/redact.js';

export interface ProbeRun {
  result: ProbeResult;
  attempts: ProbeAttempt[];
  /** Wall-clock time of the whole call. */
  wallMs: number;
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
  const started = Date.now();
  const result = await probeDatabase({
    target,
    deadline: started + timeoutMs,
    onAttempt: (attempt) => attempts.push(attempt),
    signal: options.signal
  });
  return { result, attempts, wallMs: Date.now() - started };
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
