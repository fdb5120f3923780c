/**
 * Secrets never leave the process. `::add-mask::` only asks the runner to mask a value in the
 * log; outputs, the summary file and PR comments are not masked by anyone, so every text this
 * action writes passes through `redact` first.
 */

const secrets = new Set<string>();

export const REDACTED = '***';

export function registerSecret(value: string): void {
  const trimmed = value.trim();
  if (trimmed.length < 4) return;
  for (const form of [
    value,
    trimmed,
    JSON.stringify(trimmed).slice(1, -1),
    encodeURIComponent(trimmed)
  ]) {
    if (form.length >= 4) secrets.add(form);
  }
}

export function redact(text: string): string {
  let out = text;
  // Longest first, so that a secret containing another is replaced whole.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out;
}

/** For tests: forget every registered secret. */
export function clearSecrets(): void {
  secrets.clear();
}

/** A URL as it may be shown: everything before the last `@` of its authority, and any `password=` value, hidden. */
export function redactUrl(value: string): string {
  return value
    .replace(/^([a-z][\w+.-]*:\/\/)?.*@/is, (_, scheme = '') => `${scheme}${REDACTED}@`)
    .replace(/([?&]password=)[^&#]*/gi, `$1${REDACTED}`);
}
