/**
 * The `database_url` input: a libpq-style connection URL, as `neondatabase/create-branch-action`
 * prints it. It carries a password, so nothing here ever puts the password into a message, and
 * `secretsOf` lists every form of it that must be masked, even when the URL is malformed.
 */
import { DatabaseUrlError } from '../util/errors.js';

export const DATABASE_URL_INPUT = 'database_url';
const EXPECTED_FORM =
  'postgresql://user:password@host[:port]/database?sslmode=require (or postgres://...)';

/** libpq's `sslmode` values; pg's `no-verify` is read as `require`. */
export const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'];
export type SslMode = 'disable' | 'allow' | 'prefer' | 'require' | 'verify-ca' | 'verify-full';
export type ChannelBinding = 'disable' | 'prefer' | 'require';

export interface DatabaseTarget {
  host: string;
  port: number;
  database: string;
  user: string;
  /** Not enumerable, so that logging or serialising a target does not print it. Empty when absent. */
  readonly password: string;
  /** libpq semantics: `require` encrypts without verifying (unless `sslRootCert` is set: then as `verify-ca`). */
  sslMode: SslMode;
  /** Path of a PEM file of trusted CAs, or `system` for the runtime's own CA store. */
  sslRootCert?: string;
  channelBinding: ChannelBinding;
  /** libpq `options` (Neon reads `endpoint=<id>` from it when a client cannot send SNI). */
  options?: string;
  applicationName?: string;
}

/** The input is malformed. The message names the input and the expected form, never the password. */
export { DatabaseUrlError };

/**
 * libpq parameters that would move the connection elsewhere than the URL's authority says. Read:
 * user, password, dbname, sslmode, sslrootcert, channel_binding, options, application_name.
 * Any other parameter (connect_timeout, target_session_attrs, ...) is accepted and ignored.
 */
const REJECTED_PARAMS = new Set(['host', 'hostaddr', 'port', 'service', 'passfile']);

/** Parses `database_url`; throws `DatabaseUrlError`. */
export function parseDatabaseUrl(value: string): DatabaseTarget {
  const text = value.trim();
  if (text === '') throw invalid('is empty');
  // Until the URL parses, nothing of it is shown: any part may be the password.
  if (!/^postgres(ql)?:\/\//i.test(text)) throw invalid('does not start with postgresql://');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid('is not a valid URL (is a special character in the password percent-encoded?)');
  }
  const shown = redactUrl(text);
  const fail = (reason: string): DatabaseUrlError => invalid(reason, shown);

  const params = url.searchParams;
  for (const name of REJECTED_PARAMS) {
    if (params.has(name))
      throw fail(`has '${name}=' in its query; put the host and port before the path`);
  }

  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') throw fail('has no host (Unix sockets are not supported)');
  if (host.includes(',')) throw fail('names several hosts; give one');
  const port = url.port === '' ? 5432 : Number(url.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw fail('has an invalid port');

  const user = params.get('user') ?? decode(url.username, 'user name', fail);
  if (user === '') throw fail('has no user name');
  const queryPassword = params.get('password');
  const password = queryPassword ?? decode(url.password, 'password', fail);
  const path = decode(url.pathname.replace(/^\//, ''), 'database name', fail);
  if (path.includes('/')) throw fail('has a "/" in the database name (percent-encode it as %2F)');
  const database = params.get('dbname') ?? (path === '' ? user : path);

  const sslModeText = (params.get('sslmode') ?? 'prefer').toLowerCase();
  const sslMode = sslModeText === 'no-verify' ? 'require' : sslModeText;
  if (!isSslMode(sslMode)) {
    throw fail(`has sslmode=${sslModeText}; expected one of ${SSL_MODES.join(', ')}`);
  }
  const channelBinding = (params.get('channel_binding') ?? 'prefer').toLowerCase();
  if (channelBinding !== 'disable' && channelBinding !== 'prefer' && channelBinding !== 'require') {
    throw fail(`has channel_binding=${channelBinding}; expected disable, prefer or require`);
  }
  if (channelBinding === 'require' && sslMode === 'disable') {
    throw fail('asks for channel_binding=require, which needs TLS, with sslmode=disable');
  }

  const target: DatabaseTarget = {
    host,
    port,
    database,
    user,
    password: '',
    sslMode,
    channelBinding,
    ...optional('sslRootCert', params.get('sslrootcert')),
    ...optional('options', params.get('options')),
    ...optional('applicationName', params.get('application_name'))
  };
  Object.defineProperty(target, 'password', { value: password, enumerable: false });
  return target;
}

/** `host:port/database`, the way messages name a database (an IPv6 host in brackets). */
export function describeTarget(target: Pick<DatabaseTarget, 'host' | 'port' | 'database'>): string {
  const host = target.host.includes(':') ? `[${target.host}]` : target.host;
  return `${host}:${target.port}/${target.database}`;
}

/**
 * Every string that would reveal the secret: the URL as given and trimmed, and the password as
 * written, percent-decoded and percent-encoded, from the authority and from a `password=` query
 * parameter. Works on malformed values too, so that masking can be set up before validation.
 */
export function secretsOf(value: string): string[] {
  const forms = new Set<string>([value, value.trim()]);
  const passwords = rawPasswords(value.trim());
  for (const match of value.matchAll(/[?&]password=([^&#]*)/gi)) passwords.push(match[1] as string);
  try {
    const url = new URL(value.trim());
    passwords.push(url.password);
    const fromQuery = url.searchParams.get('password');
    if (fromQuery !== null) passwords.push(fromQuery);
  } catch {
    // Malformed: the forms found in the text above are all there is.
  }
  for (const password of passwords) {
    for (const form of [password, tryDecode(password), encodeURIComponent(tryDecode(password))]) {
      forms.add(form);
    }
  }
  forms.delete('');
  return [...forms];
}

/** The URL with everything from `user:` to the last `@`, and any `password=` value, replaced by `***`. */
export function redactUrl(value: string): string {
  const text = value.trim();
  let out = text;
  const authority = /^([a-z][a-z0-9+.-]*:\/\/)(.*)@/is.exec(text);
  if (authority) {
    const userinfo = authority[2] as string;
    const colon = userinfo.indexOf(':');
    if (colon >= 0) {
      out = `${authority[1]}${userinfo.slice(0, colon)}:***@${text.slice(authority[0].length)}`;
    }
  }
  return out.replace(/([?&]password=)[^&#]*/gi, '$1***');
}

/**
 * The password as written after `user:`, up to the last `@` (how URL parsers read it) and up to
 * the first `@` (in case a later `@` belongs to the query of a malformed value).
 */
function rawPasswords(text: string): string[] {
  const found: string[] = [];
  for (const authority of [/^[a-z][a-z0-9+.-]*:\/\/(.*)@/is, /^[a-z][a-z0-9+.-]*:\/\/(.*?)@/is]) {
    const userinfo = authority.exec(text)?.[1];
    const colon = userinfo?.indexOf(':') ?? -1;
    if (userinfo !== undefined && colon >= 0) found.push(userinfo.slice(colon + 1));
  }
  return found;
}

function invalid(reason: string, shown?: string): DatabaseUrlError {
  const what = shown === undefined ? '' : ` '${shown}'`;
  return new DatabaseUrlError(
    `Invalid input '${DATABASE_URL_INPUT}'${what}: it ${reason}. Expected ${EXPECTED_FORM}.`
  );
}

function decode(text: string, what: string, fail: (reason: string) => DatabaseUrlError): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw fail(`has a malformed percent-encoding in the ${what}`);
  }
}

function tryDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function isSslMode(value: string): value is SslMode {
  return SSL_MODES.includes(value);
}

function optional<K extends string>(key: K, value: string | null): { [P in K]?: string } {
  return value === null || value === '' ? {} : ({ [key]: value } as { [P in K]: string });
}
