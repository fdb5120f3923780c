/**
 * Whether waiting can help a failed attempt: a database still starting, a compute waking, a refused
 * or dropped connection: retry. Credentials, role, database, certificate: reject at once, saying which.
 */
import { oneLine } from '../util/text.js';

/** SQLSTATE classes and codes that waiting does not fix. */
const REJECTED_SQLSTATE = [
  /^28/, // invalid authorization: wrong password (28P01), unknown role or no pg_hba entry (28000)
  /^3D000$/, // the database does not exist
  /^42/ // e.g. 42501: no CONNECT privilege on the database
];

/** Certificate verification failures reported by Node's TLS layer (OpenSSL's codes). */
const TLS_VERIFY_CODE =
  /^(CERT_|DEPTH_ZERO_SELF_SIGNED|ERR_TLS_CERT_ALTNAME|HOSTNAME_MISMATCH|SELF_SIGNED|UNABLE_TO_)/;

/**
 * Errors without a SQLSTATE that waiting does not fix: the checks of `attempt.ts`, Neon's proxy
 * without an endpoint id or refusing a startup parameter, pg's own SCRAM failures.
 */
const REJECTED_MESSAGES = [
  /^authentication refused: /,
  /^the server sent more than /,
  /endpoint id is not specified/i,
  /unsupported startup parameter/i,
  /password authentication failed/i,
  /^SASL: /
];

/** pg's error when `sslmode` needs TLS and the server answers that it has none. */
export const NO_TLS_MESSAGE = 'The server does not support SSL connections';

/** `tls` names what asked for TLS (`sslmode=verify-full`); `message` is one line, without the password. */
export function classifyConnectionError(
  error: unknown,
  tls: string
): { retry: boolean; message: string } {
  const text = oneLine(describe(error));
  const sqlstate = sqlstateOf(error);
  if (sqlstate !== undefined) {
    const rejected =
      REJECTED_SQLSTATE.some((pattern) => pattern.test(sqlstate)) ||
      REJECTED_MESSAGES.some((pattern) => pattern.test(text));
    return { retry: !rejected, message: `${text} (SQLSTATE ${sqlstate})` };
  }
  const code = codeOf(error);
  if (code !== undefined && TLS_VERIFY_CODE.test(code))
    return { retry: false, message: `TLS certificate verification failed (${tls}): ${text}` };
  if (text === NO_TLS_MESSAGE) {
    return { retry: false, message: `the server does not offer TLS, which ${tls} asks for` };
  }
  if (/client password must be a (non-empty )?string/.test(text)) {
    return { retry: false, message: 'the server asks for a password, and the URL has none' };
  }
  if (REJECTED_MESSAGES.some((pattern) => pattern.test(text)))
    return { retry: false, message: text };
  // Everything else (refused, reset, DNS, timeouts, Neon's "Couldn't connect to compute node",
  // "Console request failed", rate limits) may pass: retry it until the deadline.
  return { retry: true, message: text };
}

/** The SQLSTATE of an error the server sent (pg's DatabaseError), if it is one. */
function sqlstateOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('severity' in error)) return undefined;
  const code = codeOf(error);
  return code !== undefined && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

export function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

/**
 * Duck-typed: errors made by Node's core live in another realm than test sandboxes, where
 * `instanceof Error` is false. Node 20+ reports a refused `localhost` (tried on ::1 and 127.0.0.1)
 * as an AggregateError with an empty message.
 */
function describe(error: unknown): string {
  if (typeof error !== 'object' || error === null) return String(error);
  const message = 'message' in error && typeof error.message === 'string' ? error.message : '';
  if (message === '' && 'errors' in error && Array.isArray(error.errors)) {
    const inner = [...new Set(error.errors.map((each: unknown) => describe(each)))];
    if (inner.length > 0) return inner.join('; ');
  }
  return message || codeOf(error) || String(error);
}
