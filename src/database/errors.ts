/**
 * Whether waiting can help a failed attempt: a database starting, a compute waking, a refused or
 * dropped connection: retry. Credentials, role, database, certificate: reject at once, saying which.
 */
import { oneLine } from '../util/text.js';

/**
 * SQLSTATEs that waiting does not fix: 28 (wrong password, unknown role, no pg_hba.conf entry),
 * 3D000 (no such database), 42 (e.g. 42501: no CONNECT privilege).
 */
const REJECTED_SQLSTATE = /^(28|3D000$|42)/;

/** Certificate verification failures reported by Node's TLS layer (OpenSSL's codes). */
const TLS_VERIFY_CODE =
  /^(CERT_|DEPTH_ZERO_SELF_SIGNED|ERR_TLS_CERT_ALTNAME|HOSTNAME_MISMATCH|SELF_SIGNED|UNABLE_TO_)/;

/**
 * Errors, with or without a SQLSTATE, that waiting does not fix: the checks of `attempt.ts`, Neon's
 * proxy without an endpoint id or refusing a startup parameter, pg's own SCRAM failures.
 */
const REJECTED_MESSAGES = [
  /^(authentication refused: |the server sent more than |SASL: )/,
  /endpoint id is not specified|unsupported startup parameter|password authentication failed/i
];

/** pg's error when `sslmode` needs TLS and the server answers that it has none. */
export const NO_TLS_MESSAGE = 'The server does not support SSL connections';

/** `tls` names what asked for TLS (`sslmode=verify-full`); `message` is one line, without the password. */
export function classifyConnectionError(
  error: unknown,
  tls: string
): { retry: boolean; message: string } {
  const text = oneLine(describe(error));
  const code = codeOf(error);
  const rejected = REJECTED_MESSAGES.some((pattern) => pattern.test(text));
  // pg's DatabaseError: the server sent a SQLSTATE.
  if (code && /^[0-9A-Z]{5}$/.test(code) && 'severity' in (error as object))
    return {
      retry: !(rejected || REJECTED_SQLSTATE.test(code)),
      message: `${text} (SQLSTATE ${code})`
    };
  if (code && TLS_VERIFY_CODE.test(code))
    return { retry: false, message: `TLS certificate verification failed (${tls}): ${text}` };
  if (text === NO_TLS_MESSAGE)
    return { retry: false, message: `the server does not offer TLS, which ${tls} asks for` };
  if (/client password must be a (non-empty )?string/.test(text))
    return { retry: false, message: 'the server asks for a password, and the URL has none' };
  // Anything else (refused, reset, DNS, timeouts, Neon's "Couldn't connect to compute node",
  // "Console request failed", rate limits) may pass: retry it until the deadline.
  return { retry: !rejected, message: text };
}

export function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Duck-typed: errors made by Node's core live in another realm than test sandboxes, where
 * `instanceof Error` is false. Node 20+ reports a refused `localhost` (tried on ::1 and 127.0.0.1)
 * as an AggregateError with an empty message.
 */
function describe(error: unknown): string {
  if (typeof error !== 'object' || error === null) return String(error);
  const { message: m, errors } = error as { message?: unknown; errors?: unknown };
  const message = typeof m === 'string' ? m : '';
  if (message === '' && Array.isArray(errors) && errors.length > 0)
    return [...new Set(errors.map((each: unknown) => describe(each)))].join('; ');
  return message || codeOf(error) || String(error);
}
