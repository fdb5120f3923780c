import { REDACTED } from '../util/redact.js';

// The answer to a `request` may hold secrets (a created branch's role password and connection
// URIs): found here by field, so that they are masked before anything is written.

/** A field that holds a secret: a password, or a connection URI (which holds the password). */
const isSecretField = (key: string, value: unknown): value is string =>
  typeof value === 'string' &&
  (/password$/i.test(key) || /_uri$/i.test(key) || /^postgres(ql)?:\/\//i.test(value));

/** Every secret value of a JSON answer, in document order. */
export function responseSecrets(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) responseSecrets(item, found);
  else if (value && typeof value === 'object')
    for (const [key, field] of Object.entries(value)) {
      if (isSecretField(key, field)) found.push(field);
      else responseSecrets(field, found);
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
  responseSecrets(value).find((secret) => /^postgres(ql)?:\/\//i.test(secret));
