// `database_url`, a libpq URL, split by pg's parser (`pg-connection-string`) but for TLS: it reads
// `sslrootcert` whole and at once and ignores `system`, channel_binding and require_auth. Here:
// libpq 16's reading of those, libpq's environment for what the URL leaves out, and an input error
// for every parameter pg cannot honour.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'pg-connection-string';
import { DatabaseUrlError } from '../util/errors.js';
import { isPlainName, isPlainValue, REDACTED, redactUrl } from '../util/redact.js';
import { HARMLESS_NAMES, KEYWORDS, SECRETS } from '../util/url-secrets.js';

const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;
const AUTH_METHODS = ['password', 'md5', 'gss', 'sspi', 'scram-sha-256', 'none'];
const TLS_VERSIONS = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'] as const;

/**
 * libpq's environment variables (PQconninfoOptions in libpq's fe-connect.c) of the parameters that
 * make the connection safer or that this check refuses: libpq takes them when the URL lacks the
 * parameter (conninfo_add_defaults), and so does this check. The target itself (PGHOST, PGPORT,
 * PGUSER, PGDATABASE) and the password (PGPASSWORD, PGPASSFILE) come from the URL only.
 */
const ENVIRONMENT: Record<string, string> = {
  sslmode: 'PGSSLMODE',
  sslnegotiation: 'PGSSLNEGOTIATION',
  channel_binding: 'PGCHANNELBINDING',
  require_auth: 'PGREQUIREAUTH',
  sslrootcert: 'PGSSLROOTCERT',
  sslcert: 'PGSSLCERT',
  sslkey: 'PGSSLKEY',
  sslcertmode: 'PGSSLCERTMODE',
  sslcrl: 'PGSSLCRL',
  sslcrldir: 'PGSSLCRLDIR',
  ssl_min_protocol_version: 'PGSSLMINPROTOCOLVERSION',
  ssl_max_protocol_version: 'PGSSLMAXPROTOCOLVERSION',
  gssencmode: 'PGGSSENCMODE',
  requirepeer: 'PGREQUIREPEER',
  service: 'PGSERVICE'
};

export type DatabaseTarget = ReturnType<typeof parseDatabaseUrl>;

/** Parameters that would tighten security or move the connection, which pg cannot honour. */
const REFUSED: [string[], string][] = [
  [['sslcert', 'sslkey', 'sslpassword', 'sslcertmode'], 'client certificates are not supported'],
  [['sslcrl', 'sslcrldir'], 'certificate revocation lists are not supported'],
  [['gssencmode', 'krbsrvname', 'gsslib'], 'GSSAPI is not supported; use sslmode'],
  [['requirepeer'], 'Unix sockets are not supported'],
  [['hostaddr', 'service', 'passfile'], 'put the host, port, database and password in the URL'],
  [['ssl'], "it is pg's own parameter; use libpq's sslmode"]
];
/** Values of those that ask for nothing more than this check does. */
const HARMLESS = /^(sslcertmode=(disable|allow)|gssencmode=(disable|prefer))$/;

/**
 * Throws `DatabaseUrlError`, which shows no value it cannot prove harmless.
 * @param env libpq's environment (the process's: the job's, or the command's)
 */
export function parseDatabaseUrl(value: string, env: NodeJS.ProcessEnv = process.env) {
  const text = value.trim();
  if (text === '') throw invalid('is empty');
  // Until the URL parses, nothing of it is shown: any part may be the password.
  if (!/^postgres(ql)?:\/\//i.test(text)) throw invalid('does not start with postgresql://');
  let params: Map<string, string>;
  let config: ReturnType<typeof parse>;
  try {
    const url = new URL(text);
    // As libpq (conninfo_uri_parse_params): in order, the last value of a name wins.
    params = new Map(url.searchParams);
    // pg's parser would read these files at once, and check sslmode its own way.
    for (const name of ['sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'uselibpqcompat'])
      url.searchParams.delete(name);
    config = parse(url.href);
  } catch {
    throw invalid(
      'is not a valid URL (a malformed percent-encoding, or a special character in the password that is not percent-encoded?)'
    );
  }
  const fail = (reason: string): DatabaseUrlError =>
    invalid(reason, redactUrl(text, HARMLESS_NAMES));
  const fromEnvironment = new Set<string>();
  for (const [name, variable] of Object.entries(ENVIRONMENT)) {
    const given = env[variable];
    if (params.has(name) || given === undefined) continue;
    params.set(name, given);
    fromEnvironment.add(name);
  }
  const param = params.get.bind(params);
  /** `name=value` as a message shows it, saying where an environment value came from. */
  const said = (name: string): string => {
    if (SECRETS.includes(name)) return name;
    const given = param(name) ?? '';
    const from = fromEnvironment.has(name) ? ` (from ${ENVIRONMENT[name]})` : '';
    return `${name}=${isPlainValue(given) ? given : REDACTED}${from}`;
  };
  for (const name of params.keys()) {
    const lower = name.toLowerCase();
    const hint = KEYWORDS.has(lower) ? ` (names are case-sensitive: write ${lower})` : '';
    const shown = isPlainName(name) ? `the parameter '${name}'` : 'a parameter';
    if (!KEYWORDS.has(name)) throw fail(`has ${shown}, unknown to libpq${hint}`);
  }
  for (const [names, why] of REFUSED)
    for (const name of names) {
      const given = param(name);
      if (given !== undefined && !HARMLESS.test(`${name}=${given.toLowerCase()}`))
        throw fail(`has ${said(name)}, which this check cannot honour (${why})`);
    }
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const given = param(name);
    if (given === undefined) return fallback;
    const found = allowed.find((each) => each.toLowerCase() === given.toLowerCase());
    if (found === undefined) throw fail(`has ${said(name)}; expected one of ${allowed.join(', ')}`);
    return found;
  };

  const host = config.host;
  if (!host || host.startsWith('/')) throw fail('has no host (Unix sockets are not supported)');
  if (host.includes(',')) throw fail('names several hosts; give one');
  const port = config.port ? Number(config.port) : 5432;
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw fail('has an invalid port');
  const user = config.user;
  if (!user) throw fail('has no user name');
  if (config.database?.includes('/')) throw fail('has a "/" in the database name');

  const sslRootCert = param('sslrootcert') || defaultRootCert(env);
  const system = sslRootCert === 'system';
  if (param('sslmode')?.toLowerCase() === 'no-verify') params.set('sslmode', 'require');
  // libpq 16: sslrootcert=system defaults to verify-full, and refuses anything weaker.
  const sslMode = oneOf('sslmode', SSL_MODES, system ? 'verify-full' : 'prefer');
  const mode = params.has('sslmode') ? said('sslmode') : `sslmode=${sslMode}`;
  if (system && sslMode !== 'verify-full')
    throw fail(`has ${said('sslrootcert')} with ${mode}; libpq asks for verify-full with it`);
  // verify-ca checks no host name: it trusts only the CAs named. libpq refuses it without a root
  // certificate (initialize_SSL in fe-secure-openssl.c), and so does this check.
  if (sslMode === 'verify-ca' && !sslRootCert)
    throw fail(
      `has ${mode} without sslrootcert: verify-ca trusts only the CAs of an sslrootcert file; ` +
        'give sslrootcert=<file>, or use sslmode=verify-full'
    );
  const channelBinding = oneOf('channel_binding', ['disable', 'prefer', 'require'], 'prefer');
  if (channelBinding === 'require' && sslMode === 'disable')
    throw fail(`asks for ${said('channel_binding')}, which needs TLS, with ${mode}`);
  const directTls = oneOf('sslnegotiation', ['postgres', 'direct'], 'postgres') === 'direct';
  if (directTls && !['require', 'verify-ca', 'verify-full'].includes(sslMode))
    throw fail(`has ${said('sslnegotiation')} with ${mode}; it needs require or stronger`);
  const [minTls, maxTls] = ['min', 'max'].map((end) => {
    const name = `ssl_${end}_protocol_version`;
    return param(name) ? oneOf(name, TLS_VERSIONS, 'TLSv1.2') : undefined;
  });
  if (minTls && maxTls && TLS_VERSIONS.indexOf(minTls) > TLS_VERSIONS.indexOf(maxTls))
    throw fail(`has ssl_min_protocol_version=${minTls} above ssl_max_protocol_version=${maxTls}`);
  // libpq's require_auth: a list of methods, all plain or all negated with `!`.
  const auth = param('require_auth') || undefined;
  const items = auth?.toLowerCase().split(',') ?? [];
  const negated = items[0]?.startsWith('!') ?? false;
  const methods = items.map((item) => item.replace(/^!/, ''));
  if (methods.some((m, i) => items[i]?.startsWith('!') !== negated || !AUTH_METHODS.includes(m)))
    throw fail(
      `has ${said('require_auth')}; expected a list of ${AUTH_METHODS.join(', ')}, all or none negated with !`
    );

  const target = {
    host,
    port,
    database: param('dbname') || config.database || user,
    user,
    /** Not enumerable (below): logging or serialising a target does not show it. */
    password: config.password ?? '',
    sslMode,
    sslRootCert,
    channelBinding,
    requireAuth: auth ? { methods, negated } : undefined,
    minTls,
    maxTls,
    directTls: directTls || undefined,
    /** Neon reads `endpoint=<id>` from it when a client cannot send SNI. */
    options: config.options || undefined,
    applicationName: config.application_name || undefined
  };
  return Object.defineProperty(target, 'password', { enumerable: false });
}

/** libpq's root certificate when the URL and the environment name none, if the file exists. */
function defaultRootCert(env: NodeJS.ProcessEnv): string | undefined {
  const file = join(env.HOME || homedir(), '.postgresql', 'root.crt');
  return existsSync(file) ? file : undefined;
}

/** `host:port/database`, the way messages name a database (an IPv6 host in brackets). */
export function describeTarget(target: Pick<DatabaseTarget, 'host' | 'port' | 'database'>): string {
  const host = target.host.includes(':') ? `[${target.host}]` : target.host;
  return `${host}:${target.port}/${target.database}`;
}

function invalid(reason: string, shown?: string): DatabaseUrlError {
  return new DatabaseUrlError(
    (named) =>
      `Invalid ${named('database_url')}${shown === undefined ? '' : ` '${shown}'`}: it ${reason}. ` +
      'Expected postgresql://user:password@host[:port]/database?sslmode=require (or postgres://...).'
  );
}
