// The readiness probe: once Neon reports the operations done, the compute may still be waking.
// `SELECT 1` until it answers or the deadline passes; stop at once when waiting cannot help.
import { once } from 'node:events';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import * as tls from 'node:tls';
import { type Clock, systemClock } from '../util/clock.js';
import { formatDuration } from '../util/duration.js';
import { oneLine } from '../util/text.js';
import { attemptSelectOne, type Ca } from './attempt.js';
import { type DatabaseTarget, describeTarget } from './url.js';

/**
 * What the database check found (the `database_ready` output, the summary's line):
 * `answeredAfterMs` counts from the end of the wait; `notTried` says why none was tried, `problem`
 * why the database is not ready.
 */
export interface DatabaseCheck {
  ready: boolean;
  target: string;
  attempts: number;
  answeredAfterMs?: number;
  notTried?: string;
  problem?: string;
}

/** `error`: why the attempt failed (one line, no password); `delayMs`: the wait before the next. */
export type ProbeAttempt = { attempt: number; error?: string; delayMs?: number };

/** `rejected`: not retried; `message`: one line naming host:port/database, never the password. */
export type ProbeResult = { attempts: number; elapsedMs: number } & (
  { ready: true } | { ready: false; reason: 'timeout' | 'rejected' | 'cancelled'; message: string }
);

/** A Neon compute waking from suspend answers within a few seconds. */
const ATTEMPT_TIMEOUT_MS = 15_000;
/** Kept for the last attempt: a retry delay never eats into it. */
const LAST_ATTEMPT_MS = 1_000;
/** Shorter than this, an attempt cannot connect anywhere: the probe ends instead. */
const MIN_ATTEMPT_MS = 50;
const MAX_MESSAGE = 300;
/**
 * A host name that does not resolve (ENOTFOUND) is tried again for this long, at least
 * `UNRESOLVED_TRIES` times, then the probe ends naming it, instead of at the deadline (10 minutes
 * by default): a new Neon endpoint's name resolves as soon as the API answers it, so a name that
 * keeps failing is a typo or another network's host. The grace is for a resolver that answers
 * "no such name" for a moment (a record still propagating, a local resolver restarting).
 */
const UNRESOLVED_GRACE_MS = 10_000;
const UNRESOLVED_TRIES = 3;
/** Far more than any CA bundle; a file that never ends (`/dev/zero`) stops here. */
const MAX_ROOT_CERT_BYTES = 1 << 20;

/** Delay before attempt `attempt + 1`: 250 ms doubling to 2 s, each ±20% so that jobs drift apart. */
export function retryDelay(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(2000, 250 * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** `deadline`: epoch ms by which the database must have answered. */
export async function probeDatabase(options: {
  target: DatabaseTarget;
  deadline: number;
  signal?: AbortSignal;
  onAttempt?: (attempt: ProbeAttempt) => void;
  /** The system's; a simulated one in tests. */
  clock?: Clock;
}): Promise<ProbeResult> {
  const { target, deadline, signal, onAttempt, clock = systemClock } = options;
  const started = clock.now();
  const where = describeTarget(target);
  let attempts = 0;
  const tried = (): string => `${attempts} attempt${attempts === 1 ? '' : 's'}`;
  // `oneLine` also redacts secrets: a server may quote the user name, which may be the password.
  const fail = (reason: 'timeout' | 'rejected' | 'cancelled', message: string): ProbeResult => {
    const elapsedMs = clock.now() - started;
    return { ready: false, reason, message: oneLine(message, MAX_MESSAGE), attempts, elapsedMs };
  };
  const cancelled = (): ProbeResult =>
    fail('cancelled', `The database probe of ${where} was cancelled after ${tried()}.`);

  if (signal?.aborted) return cancelled();
  let ca: Ca;
  try {
    const timeout = AbortSignal.timeout(Math.max(0, deadline - clock.now()));
    ca = await readRootCert(target.sslRootCert, AbortSignal.any([timeout, signal ?? timeout]));
  } catch (error) {
    if (signal?.aborted) return cancelled();
    const { code, message, name } = error as NodeJS.ErrnoException;
    return fail(
      name === 'TimeoutError' ? 'timeout' : 'rejected',
      `Cannot connect to the database ${where}: cannot read the sslrootcert file '${target.sslRootCert}' (${code ?? message}).`
    );
  }

  let lastError = 'no attempt was made';
  let unresolvedSince: number | undefined;
  let unresolvedTries = 0;
  for (let left = deadline - clock.now(); left >= MIN_ATTEMPT_MS; left = deadline - clock.now()) {
    attempts += 1;
    const failed = await attemptSelectOne(target, ca, Math.min(ATTEMPT_TIMEOUT_MS, left), signal);
    if (!failed) {
      onAttempt?.({ attempt: attempts });
      return { ready: true, attempts, elapsedMs: clock.now() - started };
    }
    if (signal?.aborted) return cancelled();
    lastError = oneLine(failed.message, MAX_MESSAGE);
    unresolvedSince = failed.unresolved ? (unresolvedSince ?? clock.now()) : undefined;
    unresolvedTries = failed.unresolved ? unresolvedTries + 1 : 0;
    const unresolvedFor = unresolvedSince === undefined ? 0 : clock.now() - unresolvedSince;
    if (unresolvedTries >= UNRESOLVED_TRIES && unresolvedFor >= UNRESOLVED_GRACE_MS) {
      onAttempt?.({ attempt: attempts, error: lastError });
      const host = oneLine(target.host, 100);
      return fail(
        'rejected',
        `Cannot connect to the database ${where}: the host name '${host}' does not resolve ` +
          `(ENOTFOUND, ${unresolvedTries} tries over ${formatDuration(unresolvedFor)}); check the URL's host.`
      );
    }
    if (!failed.retry) {
      onAttempt?.({ attempt: attempts, error: lastError });
      return fail('rejected', `Cannot connect to the database ${where}: ${lastError}`);
    }
    const rest = deadline - clock.now();
    const kept = rest > LAST_ATTEMPT_MS ? LAST_ATTEMPT_MS : 0;
    const delayMs = Math.max(0, Math.min(retryDelay(attempts), rest - kept));
    onAttempt?.({ attempt: attempts, error: lastError, delayMs });
    await clock.sleep(delayMs, signal).catch(() => undefined); // it rejects only when cancelled
    if (signal?.aborted) return cancelled();
  }
  return fail(
    'timeout',
    `The database ${where} did not answer within ${formatDuration(clock.now() - started)} ` +
      `(${tried()}; last error: ${lastError}).`
  );
}

/**
 * `sslrootcert`, read bounded (a FIFO would block, `/dev/zero` fill memory). `system`: the system's
 * store (Node >= 22.15; older Node has only its bundled CAs, the default).
 */
async function readRootCert(path: string | undefined, signal: AbortSignal): Promise<Ca> {
  if (path === undefined) return undefined;
  if (path === 'system') return tls.getCACertificates?.('system');
  const file = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  const read = async (): Promise<string> => {
    if (!(await file.stat()).isFile()) throw new Error('not a regular file');
    const buffer = Buffer.alloc(MAX_ROOT_CERT_BYTES + 1);
    const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
    if (bytesRead > MAX_ROOT_CERT_BYTES) throw new Error('larger than 1 MiB');
    const text = buffer.toString('utf8', 0, bytesRead);
    // Node trusts its public roots for an empty one; libpq refuses a file without a certificate.
    if (!text.includes('-----BEGIN CERTIFICATE-----')) throw new Error('no PEM certificate in it');
    return text;
  };
  const stop = once(signal, 'abort').then(() => Promise.reject(signal.reason));
  return Promise.race([read(), stop]).finally(() => void file.close());
}
