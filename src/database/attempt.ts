// One attempt (connect with pg, `SELECT 1`, close), and whether waiting can help when it fails.
// pg lacks libpq's sslmode (it verifies under `require`, never falls back), channel_binding=require
// and require_auth (it answers any request with the password), and a bound on what a server sends.
import type { Duplex } from 'node:stream';
import { setTimeout } from 'node:timers/promises';
import type { ConnectionOptions } from 'node:tls';
import type { Client, CustomTypesConfig } from 'pg';
import { AttemptTimeoutError, CancelledError } from '../util/errors.js';
import { formatDuration } from '../util/duration.js';
import { oneLine } from '../util/text.js';
import type { DatabaseTarget } from './url.js';

/**
 * Every value kept as the server sent it: nothing is parsed into typed values (pg's parser of a
 * binary array prints a line to stdout for each element of a type it does not know).
 */
const UNPARSED: CustomTypesConfig = { getTypeParser: () => (value: unknown) => value };

/** A `SELECT 1` exchange takes a few hundred bytes; past this the socket is destroyed. */
const MAX_BYTES = 1 << 20;

type Tls = false | ConnectionOptions;
/** Trusted CAs (PEM), already read; undefined: the runtime's default store. */
export type Ca = string | string[] | undefined;
/** `unresolved`: the host name does not resolve (ENOTFOUND), retried for a short grace only. */
export type AttemptFailure = { retry: boolean; message: string; unresolved?: boolean };

/** Undefined when the database answered. `timeoutMs` or `signal` ends the attempt at once. */
export async function attemptSelectOne(
  target: DatabaseTarget,
  ca: Ca,
  timeoutMs: number,
  signal?: AbortSignal
): Promise<AttemptFailure | undefined> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const { tries, next, asked } = tlsPlan(target, ca);
  for (const [index, ssl] of tries.entries()) {
    try {
      await selectOne(target, ssl, signal ? AbortSignal.any([timeout, signal]) : timeout);
      return;
    } catch (thrown) {
      const error = timeout.aborted
        ? new AttemptTimeoutError(`no answer within ${formatDuration(timeoutMs)}`)
        : thrown;
      if (signal?.aborted || index === tries.length - 1 || !next?.(error))
        return classifyConnectionError(error, asked);
    }
  }
}

/** libpq's sslmode: TLS settings in order, the failure moving to the next, what asked for TLS. */
function tlsPlan(target: DatabaseTarget, ca: Ca) {
  const versions = { minVersion: target.minTls, maxVersion: target.maxTls };
  const encrypt: Tls = { ...versions, rejectUnauthorized: false };
  const verify: Tls = { ...versions, rejectUnauthorized: true, ca };
  // libpq: a root certificate makes `require` verify the chain; channel binding needs TLS.
  let mode = target.sslMode === 'require' && target.sslRootCert ? 'verify-ca' : target.sslMode;
  const needsTls = target.channelBinding === 'require' && /^(allow|prefer)$/.test(mode);
  if (needsTls) mode = 'require';
  const plans: Record<typeof mode, [Tls[], ((e: unknown) => boolean)?]> = {
    disable: [[false]],
    // Plain first, TLS when the server turns plain away (pg_hba.conf: hostssl only).
    allow: [[false, encrypt], (e) => codeOf(e) === '28000'],
    // TLS first, plain only when the server has no TLS at all.
    prefer: [[encrypt, false], (e) => (e as Error)?.message === NO_TLS_MESSAGE],
    require: [[encrypt]],
    'verify-ca': [[{ ...verify, checkServerIdentity: () => undefined }]],
    'verify-full': [[verify]]
  };
  const [tries, next] = plans[mode];
  return { tries, next, asked: needsTls ? 'channel_binding=require' : `sslmode=${target.sslMode}` };
}

const ASKED = {
  none: 'asked for no password',
  password: 'asked for a cleartext password',
  md5: 'asked for an MD5 password',
  'scram-sha-256': 'offered SCRAM-SHA-256 without channel binding'
};
/** pg's authentication requests (and SASL's three) by the names of libpq's require_auth. */
const REQUESTS: Record<string, keyof typeof ASKED | 'ok'> = {
  authenticationOk: 'ok',
  authenticationCleartextPassword: 'password',
  authenticationMD5Password: 'md5'
};

/** Connect, `SELECT 1`, end. Aborting `signal` destroys the socket, so nothing outlives it. */
async function selectOne(target: DatabaseTarget, ssl: Tls, signal: AbortSignal): Promise<void> {
  // Loaded on first use: runs without `database_url` never load pg.
  const pg = (await import('pg')) as { Client: typeof Client };
  if (signal.aborted) throw new CancelledError();
  let asked: keyof typeof ASKED = 'none';
  let mechanisms: string[] | undefined;
  let proven = false;
  let authenticated = false;
  // libpq's check of every request (check_expected_areq, pg_SASL_init in fe-auth.c): why it refuses.
  const refusal = (event: string, message?: { mechanisms?: string[] }): string | undefined => {
    const request = event.startsWith('authenticationSASL') ? 'scram-sha-256' : REQUESTS[event];
    if (request === undefined)
      return event === 'readyForQuery' && !authenticated
        ? 'the server skipped AuthenticationOk'
        : undefined;
    if (event === 'authenticationSASL') {
      if (mechanisms) return 'the server asked for SASL a second time';
      mechanisms = message?.mechanisms ?? [];
    }
    if (event === 'authenticationSASLFinal') proven = true; // pg then checks the signature
    if (request !== 'ok') asked = request;
    const method = request === 'ok' ? (asked === 'none' ? 'none' : undefined) : request;
    const rule = target.requireAuth;
    if (rule && method && rule.methods.includes(method) === rule.negated) {
      const list = rule.methods.map((each) => (rule.negated ? `!${each}` : each));
      return `require_auth=${list.join(',')}, and the server ${ASKED[method].replace(/ without .*/, '')}`;
    }
    if (request === 'ok' && asked === 'scram-sha-256' && !proven)
      return 'the server ended SCRAM without its proof';
    const plus = ssl !== false && mechanisms?.includes('SCRAM-SHA-256-PLUS') === true;
    const bound = request === 'ok' ? proven : plus && request === 'scram-sha-256';
    if (target.channelBinding === 'require' && !bound)
      return `channel_binding=require, and the server ${ASKED[asked]} (only SCRAM-SHA-256-PLUS may authenticate)`;
    authenticated = request === 'ok';
  };
  const client = new pg.Client({
    host: target.host,
    port: target.port,
    user: target.user,
    database: target.database,
    // A function: pg would read PGPASSWORD or ~/.pgpass for an empty string.
    password: () => target.password,
    ssl,
    sslnegotiation: target.directTls ? 'direct' : 'postgres',
    enableChannelBinding: ssl !== false && target.channelBinding !== 'disable',
    application_name: target.applicationName ?? 'neon-operations-wait-action',
    options: target.options
  });
  // A dropped connection is also an 'error' event; the awaited calls below reject with it already.
  client.on('error', () => undefined);
  const con = client.connection;
  const destroy = (): void => void con.stream.destroy();
  // Every message passes here first: pg never sees a refused request (it would send the password).
  const emit = con.emit.bind(con);
  let refused = false;
  con.emit = ((event: string, ...args: unknown[]): boolean => {
    if (refused) return event === 'end' && emit(event);
    const why = refusal(event, args[0] as { mechanisms?: string[] } | undefined);
    if (why === undefined) return emit(event, ...args);
    refused = true;
    emit('error', new Error(`authentication refused: ${why}; no password was sent`));
    destroy();
    return true;
  }) as typeof con.emit;
  let received = 0;
  // pg's parser throws out of the socket's handler on what it cannot read: end the connection.
  const guard = (stream: Duplex): void => {
    const emitData = stream.emit.bind(stream);
    stream.emit = ((event: string, ...args: unknown[]): boolean => {
      try {
        return emitData(event, ...args);
      } catch (error) {
        stream.destroy(new Error(`the server broke the protocol: ${(error as Error).message}`));
        return true;
      }
    }) as typeof stream.emit;
    stream.on('data', (chunk: Buffer) => (received += chunk.length) > MAX_BYTES && destroy());
  };
  for (const event of ['connect', 'sslconnect']) con.on(event, () => guard(con.stream));

  const connecting = client.connect();
  signal.addEventListener('abort', destroy, { once: true });
  try {
    await connecting;
    await client.query({ text: 'SELECT 1', types: UNPARSED });
    // A goodbye, not a wait: a server that never closes must not hold the answer back.
    await Promise.race([client.end().catch(() => undefined), setTimeout(100)]);
  } catch (error) {
    if (received <= MAX_BYTES) throw error;
    const why = 'the server sent more than 1 MiB; SELECT 1 needs a few hundred bytes';
    throw new Error(why, { cause: error });
  } finally {
    signal.removeEventListener('abort', destroy);
    destroy();
  }
}

/** SQLSTATEs waiting does not fix: 28 (password, role, pg_hba.conf), 3D000 (no such database), 42. */
const REJECTED_SQLSTATE = /^(28|3D000$|42)/;
const TLS_VERIFY_CODE =
  /^(CERT_|DEPTH_ZERO_SELF_SIGNED|ERR_TLS_CERT_ALTNAME|HOSTNAME_MISMATCH|SELF_SIGNED|UNABLE_TO_)/;
/** Messages waiting does not fix: our checks, Neon's proxy refusing, pg's SCRAM failures. */
const REJECTED_MESSAGES = [
  /^(authentication refused: |the server sent more than |the server broke |SASL: )/,
  /endpoint id is not specified|unsupported startup parameter|password authentication failed/i
];
const NO_TLS_MESSAGE = 'The server does not support SSL connections';

/** `tls` names what asked for TLS (`sslmode=verify-full`). */
export function classifyConnectionError(error: unknown, tls: string): AttemptFailure {
  const text = oneLine(describe(error));
  const code = codeOf(error);
  const rejected = REJECTED_MESSAGES.some((pattern) => pattern.test(text));
  if (/^[0-9A-Z]{5}$/.test(code) && 'severity' in (error as object)) {
    const retry = !rejected && !REJECTED_SQLSTATE.test(code);
    return { retry, message: `${text} (SQLSTATE ${code})` };
  }
  if (TLS_VERIFY_CODE.test(code))
    return { retry: false, message: `TLS certificate verification failed (${tls}): ${text}` };
  if (text === NO_TLS_MESSAGE)
    return { retry: false, message: `the server does not offer TLS, which ${tls} asks for` };
  if (/client password must be a (non-empty )?string/.test(text))
    return { retry: false, message: 'the server asks for a password, and the URL has none' };
  // The resolver's "no such name", not EAI_AGAIN's "try later": a typo in the URL's host, mostly.
  if (code === 'ENOTFOUND') return { retry: true, message: text, unresolved: true };
  // Anything else (refused, reset, timeouts, Neon's compute starting, rate limits) may pass.
  return { retry: !rejected, message: text };
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

// Duck-typed (Node's errors are not `instanceof Error` in test sandboxes); a refused `localhost`
// (::1 and 127.0.0.1) is an AggregateError with an empty message.
function describe(error: unknown): string {
  const { message, errors } = (error ?? {}) as { message?: unknown; errors?: unknown };
  const said = typeof message === 'string' ? message : '';
  if (!said && Array.isArray(errors) && errors.length > 0)
    return [...new Set(errors.map(describe))].join('; ');
  return said || codeOf(error) || String(error);
}
