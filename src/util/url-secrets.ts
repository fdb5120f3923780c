// The parts of a libpq URL that would reveal a secret: masked before the URL is even read
// (`database_url`), and for every connection URI an API answer holds.
import { isPlainValue, queryParams } from './redact.js';

// libpq 18's keywords (PQconninfoOptions in fe-connect.c; case-sensitive, and libpq refuses any
// other name), pg's `ssl` (refused below) and `uselibpqcompat` (what this check always does).
export const KEYWORDS = new Set(
  `host hostaddr port dbname user password passfile service options application_name
  fallback_application_name client_encoding connect_timeout keepalives keepalives_idle
  keepalives_interval keepalives_count tcp_user_timeout replication target_session_attrs
  load_balance_hosts min_protocol_version max_protocol_version sslmode sslnegotiation
  sslcompression sslcert sslkey sslcertmode sslpassword sslkeylogfile sslrootcert sslcrl sslcrldir
  sslsni requirepeer require_auth channel_binding ssl_min_protocol_version ssl_max_protocol_version
  gssencmode krbsrvname gsslib gssdelegation scram_client_key scram_server_key oauth_issuer
  oauth_client_id oauth_client_secret oauth_scope ssl uselibpqcompat`.split(/\s+/)
);
/** libpq's keywords whose values are secrets: a message never shows them, the rest may. */
export const SECRETS = [
  'password',
  'sslpassword',
  'oauth_client_secret',
  'scram_client_key',
  'scram_server_key'
];
export const HARMLESS_NAMES: ReadonlySet<string> = new Set(
  [...KEYWORDS].filter((name) => !SECRETS.includes(name))
);

/**
 * What would reveal a secret, to mask before validation (malformed values too): the URL, the
 * password as written, decoded and encoded, from the authority (to the last or the first `@`), and
 * the value of every query parameter not known to be harmless (however its name is spelled).
 */
export function secretsOf(value: string): string[] {
  const text = value.trim();
  const authority = /^[a-z][\w+.-]*:\/\/[^:@/]*:(.*)@/is.exec(text)?.[1];
  const search =
    /\?[^#]*/s.exec(text.slice(text.lastIndexOf('@') + 1))?.[0] ?? /\?.*/s.exec(text)?.[0];
  const inQuery = queryParams(search ?? '')
    .filter(({ name, value: given }) => !HARMLESS_NAMES.has(name) || !isPlainValue(given ?? ''))
    .map(({ raw }) => raw);
  const forms = [value, text];
  for (const written of [authority, authority?.split('@')[0], ...inQuery]) {
    if (!written) continue;
    let decoded = written;
    try {
      decoded = decodeURIComponent(written);
    } catch {
      // Malformed: the form as written is all there is.
    }
    forms.push(written, decoded, encodeURIComponent(decoded));
  }
  return [...new Set(forms)];
}
