/**
 * The database readiness probe: after Neon reports the operations done, the compute may still be
 * starting or waking. Connect and `SELECT 1` until it answers or the deadline passes; stop at
 * once when waiting cannot help (credentials, role, database, certificate). The driver is loaded
 * here, on first use, so that runs without `database_url` never load it.
 */
import { readFile } from 'node:fs/promises';
import { type Clock, systemClock } from '../util/clock.js';
import { CancelledError } from '../util/errors.js';
import { formatDuration } from '../util/duration.js';
import { truncate } from '../util/text.js';
import { attemptSelectOne, type PgClientClass } from './attempt.js';
import { classifyConnectionError } from './errors.js';
import { type DatabaseTarget, describeTarget, parseDatabaseUrl, secretsOf } from './url.js';

export interface ProbeAttempt {
  attempt: number;
  /** Why the attempt failed (one line, no password); absent when the database answered. */
  error?: string;
  /** How long the probe waits before the next attempt; absent when there is none. */
  delayMs?: number;
}

export interface ProbeOptions {
  /** The `database_url` input; `parseDatabaseUrl` throws `DatabaseUrlError` when malformed. */
  url: string;
  /** Epoch ms (on `clock`) by which the database must have answered. */
  deadline: number;
  signal?: AbortSignal;
  clock?: Clock;
  onAttempt?: (attempt: ProbeAttempt) => void;
}

export type ProbeResult =
  | { ready: true; attempts: number; elapsedMs: number }
  | {
      ready: false;
      /** `rejected`: not retried (credentials, role, database, TLS verification, unusable URL). */
      reason: 'timeout' | 'rejected' | 'cancelled';
      /** One line naming host:port/database, never the password. */
      message: string;
      attempts: number;
      elapsedMs: number;
    };

/** Longest single attempt: a Neon compute waking from suspend answers within a few seconds. */
export const ATTEMPT_TIMEOUT_MS = 15_000;
/** Time kept for the last attempt: a retry delay never eats into it. */
export const LAST_ATTEMPT_MS = 1_000;
/** An attempt shorter than this cannot connect anywhere; the probe ends instead. */
const MIN_ATTEMPT_MS = 50;
const MAX_MESSAGE = 300;

/** Delay before attempt `attempt + 1`: 250 ms doubling to 2 s, each ±20% so that jobs drift apart. */
export function retryDelay(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(2000, 250 * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}

export async function probeDatabase(options: ProbeOptions): Promise<ProbeResult> {
  const target = parseDatabaseUrl(options.url);
  const clock = options.clock ?? systemClock;
  const { deadline, signal } = options;
  const started = clock.now();
  const where = describeTarget(target);
  const scrub = scrubberFor(options.url);
  let attempts = 0;
  const fail = (reason: 'timeout' | 'rejected' | 'cancelled', message: string): ProbeResult => ({
    ready: false,
    reason,
    message: truncate(scrub(message), MAX_MESSAGE),
    attempts,
    elapsedMs: clock.now() - started
  });
  const cancelled = (): ProbeResult =>
    fail(
      'cancelled',
      `The database probe of ${where} was cancelled after ${plural(attempts, 'attempt')}.`
    );

  if (signal?.aborted) return cancelled();
  const ca = await readRootCert(target);
  if (typeof ca === 'object') {
    return fail('rejected', `Cannot connect to the database ${where}: ${ca.error}.`);
  }
  const { Client } = (await import('pg')) as { Client: PgClientClass };

  let lastError = 'no attempt was made';
  for (;;) {
    const left = deadline - clock.now();
    if (left < MIN_ATTEMPT_MS) {
      return fail(
        'timeout',
        `The database ${where} did not answer within ${formatDuration(clock.now() - started)} ` +
          `(${plural(attempts, 'attempt')}; last error: ${lastError}).`
      );
    }
    attempts += 1;
    try {
      await attemptSelectOne({
        Client,
        target,
        ...(ca === undefined ? {} : { ca }),
        timeoutMs: Math.min(ATTEMPT_TIMEOUT_MS, left),
        clock,
        ...(signal === undefined ? {} : { signal })
      });
      options.onAttempt?.({ attempt: attempts });
      return { ready: true, attempts, elapsedMs: clock.now() - started };
    } catch (error) {
      if (error instanceof CancelledError) return cancelled();
      const { retry, message } = classifyConnectionError(error, tlsLabel(target));
      // Scrub before cutting, so that no half of a secret survives the cut.
      lastError = truncate(scrub(message), MAX_MESSAGE);
      if (!retry) {
        options.onAttempt?.({ attempt: attempts, error: lastError });
        return fail('rejected', `Cannot connect to the database ${where}: ${lastError}`);
      }
      // Keep LAST_ATTEMPT_MS for one more attempt rather than sleeping into the deadline.
      const rest = deadline - clock.now();
      const base = retryDelay(attempts);
      const delayMs = Math.max(
        0,
        rest > LAST_ATTEMPT_MS ? Math.min(base, rest - LAST_ATTEMPT_MS) : Math.min(base, rest)
      );
      options.onAttempt?.({ attempt: attempts, error: lastError, delayMs });
      try {
        await clock.sleep(delayMs, signal);
      } catch {
        return cancelled();
      }
    }
  }
}

/** Reads `sslrootcert` once per probe; `system` (or none) means the runtime's CA store. */
async function readRootCert(
  target: DatabaseTarget
): Promise<string | undefined | { error: string }> {
  const path = target.sslRootCert;
  if (path === undefined || path === 'system') return undefined;
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    return { error: `cannot read the sslrootcert file '${path}' (${code})` };
  }
}

function tlsLabel(target: DatabaseTarget): string {
  return target.channelBinding === 'require' && target.sslMode === 'prefer'
    ? 'channel_binding=require'
    : `sslmode=${target.sslMode}`;
}

/**
 * Messages are built from host, port, database and the errors of pg and Node, none of which holds
 * the password; this is the second line of defence. Forms shorter than 4 characters are left, as
 * the action's log masking does, so that a short password cannot shred every message.
 */
function scrubberFor(url: string): (text: string) => string {
  const forms = secretsOf(url)
    .filter((form) => form.length >= 4)
    .sort((a, b) => b.length - a.length);
  return (text) => forms.reduce((out, form) => out.split(form).join('***'), text);
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
