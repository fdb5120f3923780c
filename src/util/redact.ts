// Secrets never leave the process. `::add-mask::` masks the log only; outputs, the summary and PR
// comments are masked by no one, so every text written passes through `redact` first.
const secrets = new Set<string>();

export const REDACTED = '***';

/** Registers a secret (of 4 characters or more) in every form an output or a message holds. */
export function registerSecret(value: string): void {
  const trimmed = value.trim();
  if (trimmed.length < 4) return;
  // As given, trimmed, escaped in JSON and in a URL.
  const forms = [value, trimmed, JSON.stringify(trimmed).slice(1, -1), encodeURIComponent(trimmed)];
  for (const form of forms) if (form.length >= 4) secrets.add(form);
}

export function redact(text: string): string {
  // Longest first, so that a secret containing another is replaced whole.
  const longestFirst = [...secrets].sort((a, b) => b.length - a.length);
  return longestFirst.reduce((out, secret) => out.replaceAll(secret, REDACTED), text);
}

/** For tests: forget every registered secret. */
export const clearSecrets = (): void => secrets.clear();

/** libpq's parameters whose value is a secret: the passwords, libpq 18's OAuth secret and SCRAM keys. */
export const SECRET_PARAMS =
  /([?&](?:(?:ssl)?password|oauth_client_secret|scram_\w+_key)=)([^&#]*)/gi;

/**
 * A URL as it may be shown: its user information (everything before the last `@` of its authority)
 * and every secret parameter's value hidden. The authority ends at the first `/`, `?` or `#` after
 * its first `@`, not before: a malformed URL's password may hold those unencoded, and an `@` in the
 * path or the query (`application_name=a@b`) leaves the host shown.
 */
export function redactUrl(value: string): string {
  const scheme = /^[a-z][\w+.-]*:\/\//i.exec(value)?.[0] ?? '';
  const rest = value.slice(scheme.length);
  return `${scheme}${withoutUserinfo(rest)}`.replace(SECRET_PARAMS, `$1${REDACTED}`);
}

function withoutUserinfo(authorityOn: string): string {
  const firstAt = authorityOn.indexOf('@');
  if (firstAt < 0) return authorityOn;
  const toEnd = authorityOn.slice(firstAt).search(/[/?#]/);
  const authorityEnd = toEnd < 0 ? authorityOn.length : firstAt + toEnd;
  const lastAt = authorityOn.lastIndexOf('@', authorityEnd);
  return `${REDACTED}${authorityOn.slice(lastAt)}`;
}
