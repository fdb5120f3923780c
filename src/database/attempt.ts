/**
 * One probe attempt: connect with node-postgres, run `SELECT 1`, close. Kept here, as pg lacks it:
 * - TLS as libpq's `sslmode` means it (pg 8.2x verifies under `require`; no allow/prefer fallback).
 * - libpq's checks of how the server asks to authenticate. pg answers any request (cleartext, MD5,
 *   SCRAM with or without PLUS, none), and `enableChannelBinding` only prefers PLUS. The hook: pg's
 *   Client gets the password from the `password` function before it answers any request
 *   (`_getPassword` in pg/lib/client.js, for cleartext, MD5 and SASL alike): that function refuses,
 *   so no byte of the password leaves. Listeners on the Connection, added before the Client's own,
 *   tell it what was asked; `authenticationOk` is checked too (no request, or SCRAM unfinished).
 * - A bound on what the server sends: pg buffers each message whole, and every row.
 */
import type { Socket } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import type { Client, ClientConfig, Connection } from 'pg';
import { AttemptTimeoutError, CancelledError } from '../util/errors.js';
import { formatDuration } from '../util/duration.js';
import { codeOf, NO_TLS_MESSAGE } from './errors.js';
import type { DatabaseTarget } from './url.js';

export type PgClientClass = typeof Client;

const APPLICATION_NAME = 'neon-operations-wait-action';
/** A `SELECT 1` exchange takes a few hundred bytes; past this the socket is destroyed. */
const MAX_BYTES = 1 << 20;

export interface AttemptOptions {
  Client: PgClientClass;
  target: DatabaseTarget;
  /** Trusted CAs (PEM), already read; undefined: the runtime's default store. */
  ca?: string | string[];
  /** Connect, query and close must end within this; the socket is destroyed when it passes. */
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * Resolves when the database answered; rejects with pg's or Node's error, `AttemptTimeoutError`
 * when `timeoutMs` passed, or `CancelledError` when the signal aborted. The connection is closed
 * either way.
 */
export async function attemptSelectOne(options: AttemptOptions): Promise<void> {
  const { target, signal } = options;
  if (signal?.aborted) throw new CancelledError();
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const bound = AbortSignal.any(signal ? [timeout, signal] : [timeout]);
  try {
    const [tries, next] = tlsPlan(target, options.ca);
    for (const [index, ssl] of tries.entries()) {
      try {
        return await selectOne(options.Client, target, ssl, bound);
      } catch (error) {
        if (index === tries.length - 1 || bound.aborted || !next(error)) throw error;
      }
    }
  } catch (error) {
    if (signal?.aborted) throw new CancelledError();
    if (timeout.aborted)
      throw new AttemptTimeoutError(`no answer within ${formatDuration(options.timeoutMs)}`);
    throw error;
  }
}

type Tls = false | ConnectionOptions;

/** What libpq's sslmode means: the TLS settings tried in order, and which failure means "next". */
function tlsPlan(target: DatabaseTarget, ca?: string | string[]): [Tls[], (e: unknown) => boolean] {
  const versions = { minVersion: target.minTls, maxVersion: target.maxTls };
  const encryptOnly: Tls = { ...versions, rejectUnauthorized: false };
  const verify: Tls = { ...versions, rejectUnauthorized: true, ...(ca && { ca }) };
  let mode = target.sslMode;
  // libpq: with a root certificate, `require` verifies the chain; channel binding needs TLS.
  if (mode === 'require' && target.sslRootCert !== undefined) mode = 'verify-ca';
  if ((mode === 'allow' || mode === 'prefer') && target.channelBinding === 'require')
    mode = 'require';
  // allow: plain first, TLS when the server turned plain away (pg_hba.conf: hostssl only);
  // prefer: TLS first, plain only when the server has no TLS at all.
  if (mode === 'allow') return [[false, encryptOnly], (e) => codeOf(e) === '28000'];
  if (mode === 'prefer')
    return [[encryptOnly, false], (e) => (e as Error)?.message === NO_TLS_MESSAGE];
  const only: Tls = {
    disable: false as const,
    require: encryptOnly,
    'verify-ca': { ...verify, checkServerIdentity: () => undefined },
    'verify-full': verify
  }[mode];
  return [[only], () => false];
}

const ASKED = {
  none: 'asked for no password',
  password: 'asked for a cleartext password',
  md5: 'asked for an MD5 password',
  'scram-sha-256': 'offered SCRAM-SHA-256 without channel binding'
};
type Asked = keyof typeof ASKED;

/** Why libpq would refuse the way the server asks to authenticate; undefined when it would not. */
export function authRefusal(
  target: DatabaseTarget,
  asked: Asked,
  plus: boolean
): string | undefined {
  if (target.channelBinding === 'require' && !plus) {
    return `channel_binding=require, and the server ${ASKED[asked]} (only SCRAM-SHA-256-PLUS may authenticate)`;
  }
  const rule = target.requireAuth;
  if (rule && rule.methods.includes(asked) === rule.negated) {
    const list = rule.methods.map((method) => (rule.negated ? `!${method}` : method)).join(',');
    return `require_auth=${list}, and the server ${ASKED[asked].replace(/ without .*/, '')}`;
  }
  return undefined;
}

/** Connect, `SELECT 1`, end. Aborting `signal` destroys the socket, so nothing outlives it. */
async function selectOne(
  Client: PgClientClass,
  target: DatabaseTarget,
  ssl: Tls,
  signal: AbortSignal
): Promise<void> {
  if (signal.aborted) throw new CancelledError();
  let asked: Asked = 'none';
  let plus = false;
  let proven = false;
  let received = 0;
  const refused = (why: string): Error => new Error(`authentication refused: ${why}`);
  const config: ClientConfig & { sslnegotiation: string } = {
    host: target.host,
    port: target.port,
    user: target.user,
    password: () => {
      const why = authRefusal(target, asked, plus);
      if (why !== undefined) throw refused(`${why}; no password was sent`);
      return target.password;
    },
    database: target.database,
    ssl,
    sslnegotiation: target.directTls ? 'direct' : 'postgres',
    enableChannelBinding: ssl !== false && target.channelBinding !== 'disable',
    application_name: target.applicationName ?? APPLICATION_NAME,
    ...(target.options !== undefined && { options: target.options })
  };
  const client = new Client(config);
  // After connecting, pg reports a dropped connection as an 'error' event; the awaited calls
  // below already reject with it.
  client.on('error', () => undefined);
  const con: Connection & { stream: Socket } = client.connection as never;
  const destroy = (): void => {
    con.stream.destroy();
  };
  con.on('authenticationCleartextPassword', () => (asked = 'password'));
  con.on('authenticationMD5Password', () => (asked = 'md5'));
  con.on('authenticationSASL', (message: { mechanisms: string[] }) => {
    asked = 'scram-sha-256';
    plus = ssl !== false && message.mechanisms.includes('SCRAM-SHA-256-PLUS');
  });
  // Seen before pg checks the server's signature; a bad one fails the connection there.
  con.on('authenticationSASLFinal', () => (proven = true));
  con.on('authenticationOk', () => {
    const why =
      authRefusal(target, asked, plus) ??
      (asked === 'scram-sha-256' && !proven
        ? 'the server ended SCRAM without its proof'
        : undefined);
    if (why !== undefined) con.emit('error', refused(why));
  });
  const count = (chunk: Buffer): void => {
    received += chunk.length;
    if (received > MAX_BYTES) destroy();
  };
  for (const event of ['connect', 'sslconnect']) con.on(event, () => con.stream.on('data', count));

  const connecting = client.connect();
  signal.addEventListener('abort', destroy, { once: true });
  let answered = false;
  try {
    await connecting;
    await client.query('SELECT 1');
    answered = true;
    await client.end();
  } catch (error) {
    if (received > MAX_BYTES)
      throw new Error('the server sent more than 1 MiB; SELECT 1 needs a few hundred bytes', {
        cause: error
      });
    if (!answered) throw error;
  } finally {
    signal.removeEventListener('abort', destroy);
    if (!answered) destroy();
  }
}
