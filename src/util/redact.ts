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

/** A value that can be shown when its name is harmless: a plain word, path or list, no `=`, `&`, `;` or `%`. */
export const isPlainValue = (value: string): boolean => /^[\w.,:/!+-]{0,100}$/.test(value);

/** A parameter's name that can be shown: letters, digits, `_`, `.`, `;` or `-` (no `=` or `%`). */
export const isPlainName = (name: string): boolean => /^[\w.;-]{1,60}$/.test(name);

/** Percent-decoded, or as written when malformed. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The `name=value` pieces of a URL's query (`&`-separated), decoded as libpq decodes them. */
export function queryParams(
  search: string
): { name: string; written: string; value?: string; raw?: string }[] {
  return search
    .replace(/^\?/, '')
    .split('&')
    .filter((piece) => piece !== '')
    .map((piece) => {
      const equals = piece.indexOf('=');
      const written = equals < 0 ? piece : piece.slice(0, equals);
      const raw = equals < 0 ? undefined : piece.slice(equals + 1);
      return { name: decoded(written), written, value: raw && decoded(raw), raw };
    });
}

/**
 * A URL as a message may show it: no user or password, no fragment, and of its query only the
 * values of parameters named in `harmless` that are plain words (an allow-list: `&amp;password=`,
 * `;password=` or `pass%77ord=` stay hidden whatever follows them). Of a text that is no URL, its
 * user information hidden (`withoutUserinfo`) and nothing shown from the first `?`, `#`, `&`, `;`
 * or `=` of what follows.
 */
export function redactUrl(value: string, harmless: ReadonlySet<string> = new Set()): string {
  const scheme = /^[a-z][\w+.-]*:\/\//i.exec(value)?.[0] ?? '';
  // `u:p@host/db` parses too, as scheme `u:` and path `p@host/db`: only `scheme://` is read as a URL.
  if (!scheme || !URL.canParse(value)) {
    const rest = withoutUserinfo(value.slice(scheme.length));
    const hidden = rest.startsWith(`${REDACTED}@`) ? `${REDACTED}@` : '';
    const after = rest.slice(hidden.length);
    const cut = after.search(/[?#&;=]/);
    const shown = cut < 0 ? after : `${after.slice(0, cut)}${REDACTED}`;
    return `${scheme}${hidden}${shown}`;
  }
  const url = new URL(value);
  const user = url.username || url.password ? `${REDACTED}@` : '';
  const pieces = queryParams(url.search).map(({ name, written, value: given }) => {
    const shownName = isPlainName(written) ? written : REDACTED;
    if (given === undefined) return shownName;
    return `${shownName}=${harmless.has(name) && isPlainValue(given) ? given : REDACTED}`;
  });
  const query = pieces.length > 0 ? `?${pieces.join('&')}` : '';
  const fragment = url.hash ? `#${REDACTED}` : '';
  return `${url.protocol}//${user}${url.host}${url.pathname}${query}${fragment}`;
}

/**
 * Everything before the last `@` of the authority hidden. The authority ends at the first `/`, `?`
 * or `#` after its first `@`, not before: a malformed URL's password may hold those unencoded, and an
 * `@` in the path or the query (`application_name=a@b`) leaves the host shown.
 */
function withoutUserinfo(authorityOn: string): string {
  const firstAt = authorityOn.indexOf('@');
  if (firstAt < 0) return authorityOn;
  const toEnd = authorityOn.slice(firstAt).search(/[/?#]/);
  const authorityEnd = toEnd < 0 ? authorityOn.length : firstAt + toEnd;
  const lastAt = authorityOn.lastIndexOf('@', authorityEnd);
  return `${REDACTED}${authorityOn.slice(lastAt)}`;
}
