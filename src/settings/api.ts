/** The API's key and base URL: what may carry the key, and where to. */
import { input as row } from '../inputs.js';
import { isLoopbackHost } from '../neon/http.js';
import type { InputError, Naming } from '../util/errors.js';
import { redactUrl } from '../util/redact.js';
import { oneLine } from '../util/text.js';
import { type Field, invalid } from './fields.js';

/** What is wrong with an API key, if anything; the key itself is never quoted. */
export function apiKeyProblem(key: string): string | undefined {
  if (!key)
    return 'is required: pass a Neon API key from a secret, e.g. api_key: ${{ secrets.NEON_API_KEY }}.';
  if (/\s/.test(key)) return 'must be a single token without spaces or newlines.';
  // A header carries visible ASCII only (else every request fails till the deadline).
  if (!/^[\x21-\x7e]+$/.test(key))
    return (
      'must be a Neon API key of visible ASCII characters (letters, digits, punctuation); it holds ' +
      'a character no HTTP header can carry (such as a zero-width space, a letter outside ASCII ' +
      'or a control character). Copy the key into the secret again.'
    );
  return undefined;
}

export function apiHostInput(field: Field): string {
  const fallback = row(field.name).default as string;
  const value = field.value || fallback;
  const wrong = (why: string | ((named: Naming) => string)): InputError =>
    invalid(field, (named) => {
      const reason = typeof why === 'string' ? why : why(named);
      return `must be the API's base URL, such as ${fallback} (https; plain http only for 127.0.0.1, ::1 or localhost); ${reason}.`;
    });
  if (!URL.canParse(value)) throw wrong(`'${oneLine(redactUrl(value), 60)}' is not a URL`);
  const url = new URL(value);
  if (url.username || url.password)
    throw wrong((named) => `it must not hold credentials: pass the key in ${named('api_key')}`);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname)))
    throw wrong(`'${url.protocol}//${url.host}' is not allowed`);
  if (url.search || url.hash || /[?#]/.test(value))
    throw wrong('it must not have a query or a fragment');
  return url.href.replace(/\/+$/, '');
}
