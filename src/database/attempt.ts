/**
 * One probe attempt: connect with node-postgres, run `SELECT 1`, close. TLS follows libpq's
 * `sslmode` rather than pg's reading of the URL (pg 8.2x verifies certificates under `require`),
 * so the pg client is configured field by field and never sees the URL itself.
 */
import type { ConnectionOptions } from 'node:tls';
import type { Client, ClientConfig } from 'pg';
import type { Clock } from '../util/clock.js';
import { CancelledError } from '../util/errors.js';
import { formatDuration } from '../util/duration.js';
import { AttemptTimeoutError, NO_TLS_MESSAGE } from './errors.js';
import type { DatabaseTarget } from './url.js';

export type PgClientClass = typeof Client;

const APPLICATION_NAME = 'neon-operations-wait-action';

export interface AttemptOptions {
  Client: PgClientClass;
  target: DatabaseTarget;
  /** PEM text of `sslrootcert`, already read (undefined: none given, or `system`). */
  ca?: string;
  /** Connect, query and close must end within this; the socket is destroyed when it passes. */
  timeoutMs: number;
  clock: Clock;
  signal?: AbortSignal;
}

/**
 * Resolves when the database answered; rejects with pg's or Node's error, `AttemptTimeoutError`
 * when `timeoutMs` passed, or `CancelledError` when the signal aborted. The connection is closed
 * either way.
 */
export async function attemptSelectOne(options: AttemptOptions): Promise<void> {
  const { target, clock, signal } = options;
  if (signal?.aborted) throw new CancelledError();
  const bound = new AbortController();
  const stopTimer = new AbortController();
  let timedOut = false;
  clock.sleep(options.timeoutMs, stopTimer.signal).then(
    () => {
      timedOut = true;
      bound.abort();
    },
    () => undefined
  );
  const onCancel = (): void => bound.abort();
  signal?.addEventListener('abort', onCancel, { once: true });
  try {
    const [first, second] = tlsPlan(target, options.ca);
    try {
      await selectOne(options.Client, clientConfig(target, first.ssl), bound.signal);
    } catch (error) {
      if (second === undefined || bound.signal.aborted || !first.fallbackOn(error)) throw error;
      await selectOne(options.Client, clientConfig(target, second.ssl), bound.signal);
    }
  } catch (error) {
    if (signal?.aborted) throw new CancelledError();
    if (timedOut)
      throw new AttemptTimeoutError(`no answer within ${formatDuration(options.timeoutMs)}`);
    throw error;
  } finally {
    stopTimer.abort();
    signal?.removeEventListener('abort', onCancel);
  }
}

interface TlsStep {
  ssl: false | ConnectionOptions;
  /** Whether a failure of this step means "try the next one" (libpq's allow and prefer). */
  fallbackOn: (error: unknown) => boolean;
}

/** What libpq's sslmode means, as one or two pg configurations tried in order. */
export function tlsPlan(target: DatabaseTarget, ca?: string): [TlsStep, TlsStep?] {
  const never = (): boolean => false;
  const encryptOnly: ConnectionOptions = { rejectUnauthorized: false };
  // libpq: with a root certificate given, `require` verifies the chain as `verify-ca` does.
  const mode =
    target.sslMode === 'require' && target.sslRootCert !== undefined ? 'verify-ca' : target.sslMode;
  switch (mode) {
    case 'disable':
      return [{ ssl: false, fallbackOn: never }];
    case 'allow':
      // Plain first; TLS when the server turned plain away (pg_hba.conf: hostssl only).
      return [
        { ssl: false, fallbackOn: (error) => codeOf(error) === '28000' },
        { ssl: encryptOnly, fallbackOn: never }
      ];
    case 'prefer':
      // TLS first; plain only when the server has no TLS at all. Channel binding needs TLS.
      return target.channelBinding === 'require'
        ? [{ ssl: encryptOnly, fallbackOn: never }]
        : [
            { ssl: encryptOnly, fallbackOn: (error) => messageOf(error) === NO_TLS_MESSAGE },
            { ssl: false, fallbackOn: never }
          ];
    case 'require':
      return [{ ssl: encryptOnly, fallbackOn: never }];
    case 'verify-ca':
      return [
        {
          ssl: { rejectUnauthorized: true, ...withCa(ca), checkServerIdentity: () => undefined },
          fallbackOn: never
        }
      ];
    case 'verify-full':
      return [{ ssl: { rejectUnauthorized: true, ...withCa(ca) }, fallbackOn: never }];
  }
}

function clientConfig(target: DatabaseTarget, ssl: false | ConnectionOptions): ClientConfig {
  return {
    host: target.host,
    port: target.port,
    user: target.user,
    // '' rather than undefined, so that pg does not fall back to PGPASSWORD or ~/.pgpass.
    password: target.password,
    database: target.database,
    ssl,
    enableChannelBinding: ssl !== false && target.channelBinding !== 'disable',
    application_name: target.applicationName ?? APPLICATION_NAME,
    ...(target.options === undefined ? {} : { options: target.options })
  };
}

/** Connect, `SELECT 1`, end. Aborting `signal` destroys the socket, so nothing outlives it. */
async function selectOne(
  Client: PgClientClass,
  config: ClientConfig,
  signal: AbortSignal
): Promise<void> {
  if (signal.aborted) throw new CancelledError();
  const client = new Client(config);
  // After connecting, pg reports a dropped connection as an 'error' event; the awaited calls
  // below already reject with it.
  client.on('error', () => undefined);
  const destroy = (): void => {
    client.connection.stream.destroy();
  };
  const connecting = client.connect();
  signal.addEventListener('abort', destroy, { once: true });
  let answered = false;
  try {
    await connecting;
    await client.query('SELECT 1');
    answered = true;
    await client.end();
  } catch (error) {
    if (!answered) throw error;
  } finally {
    signal.removeEventListener('abort', destroy);
    if (!answered) destroy();
  }
}

function withCa(ca: string | undefined): { ca?: string } {
  return ca === undefined ? {} : { ca };
}

function codeOf(error: unknown): unknown {
  return typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
}

function messageOf(error: unknown): unknown {
  return typeof error === 'object' && error !== null && 'message' in error
    ? error.message
    : undefined;
}
