import { REDACTED } from '../util/redact.js';

// The answer to a `request` may hold secrets (a created branch's role password and connection
// URIs, a new API key, a credential's token): found here by field, so that they are masked before
// anything is written.

/**
 * What a field the OpenAPI document marks `x-sensitive` holds:
 * - `secret`: a credential, masked (`***` in `response`, `::add-mask::` in the log). Most are
 *   "returned exactly once": a log is the only other place they would live.
 * - `holds secrets`: a list or object of secret fields, masked field by field inside it;
 * - `personal`: a name, an e-mail, a host, a database name or a state. Not a credential, and not
 *   masked: a mask hides every occurrence of the value in the log, so masking `main`, `neondb`,
 *   `ready` or a host would blank ordinary words of every message.
 */
export type Sensitivity = 'secret' | 'holds secrets' | 'personal';

/**
 * Every field name marked `x-sensitive` in Neon's OpenAPI document (API v2), and what it holds.
 * Kept here, not read from the document at run time (the bundle carries no YAML); a test reads the
 * document and fails when a marked field is missing, so a new one is classified when the
 * `@neondatabase/api-client` update brings it.
 */
export const SENSITIVE_FIELDS: Readonly<Record<string, Sensitivity>> = {
  // ApiKeyCreateResponse: the new API key.
  key: 'secret',
  // CreateCredentialResponse.
  api_token: 'secret',
  s3_secret_access_key: 'secret',
  // NeonAuthCreateIntegrationResponse: the server key is secret; the publishable client key is
  // meant for browsers, but the document marks it and masking a random string hides nothing else.
  secret_server_key: 'secret',
  pub_client_key: 'secret',
  // Role, RolePasswordResponse, ConnectionParameters, StandardEmailServer.
  password: 'secret',
  // ConnectionDetails: the URI holds the password.
  connection_uri: 'secret',
  connection_uris: 'holds secrets',
  roles: 'holds secrets',
  name: 'personal',
  last_name: 'personal',
  email: 'personal',
  granted_to_email: 'personal',
  login: 'personal',
  username: 'personal',
  tax_id: 'personal',
  address_city: 'personal',
  address_country: 'personal',
  address_line1: 'personal',
  address_line2: 'personal',
  address_postal_code: 'personal',
  address_state: 'personal',
  state: 'personal',
  host: 'personal',
  pooler_host: 'personal',
  database: 'personal',
  database_name: 'personal',
  db_name: 'personal',
  schema_name: 'personal',
  table_name: 'personal',
  column_name: 'personal',
  masking_function: 'personal',
  masking_value: 'personal'
};

/**
 * Names that are secrets whether or not the document marks them (it marks no `client_secret`, an
 * OAuth provider's): a key, a token, anything named secret, a password, a URI.
 */
const SECRET_NAMES = [/^key$/i, /token$/i, /secret/i, /password$/i, /_uri$/i];

/** What each field name was found to be: every answer is searched, and pages repeat a few names. */
const secretNames = new Map<string, boolean>();
/** Names remembered at most (an answer could hold any number of names). */
const NAMES_REMEMBERED = 10_000;

function isSecretName(key: string): boolean {
  let secret = secretNames.get(key);
  if (secret === undefined) {
    secret =
      (Object.hasOwn(SENSITIVE_FIELDS, key) && SENSITIVE_FIELDS[key] === 'secret') ||
      SECRET_NAMES.some((name) => name.test(key));
    if (secretNames.size < NAMES_REMEMBERED) secretNames.set(key, secret);
  }
  return secret;
}

const CONNECTION_URI = /^postgres(ql)?:\/\//i;

/** A field that holds a secret: by its name, or a connection URI (which holds the password). */
const isSecretField = (key: string, value: unknown): value is string =>
  typeof value === 'string' && (isSecretName(key) || CONNECTION_URI.test(value));

/**
 * Every secret value of a JSON answer, in document order. Every answer is searched, pages of 1,000
 * operations too: `for…in` (a parsed object inherits nothing enumerable) took a tenth of the time
 * of `Object.keys` with `Reflect.get` in a Jest worker, and half of it in Node itself.
 */
export function responseSecrets(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) responseSecrets(item, found);
  else if (value && typeof value === 'object') {
    const fields = value as Record<string, unknown>;
    for (const key in fields) {
      const field = fields[key];
      if (isSecretField(key, field)) found.push(field);
      else if (typeof field === 'object') responseSecrets(field, found);
    }
  }
  return found;
}

/** The answer with every secret field's value replaced by `***` (the `response` output). */
export function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (!value || typeof value !== 'object') return value;
  const fields = Object.entries(value).map(([key, field]) => [
    key,
    isSecretField(key, field) ? REDACTED : withoutSecrets(field)
  ]);
  return Object.fromEntries(fields);
}

/** The first connection URI of an answer (`connection_uris[0].connection_uri` in a branch creation's). */
export const firstConnectionUri = (value: unknown): string | undefined =>
  responseSecrets(value).find((secret) => CONNECTION_URI.test(secret));
