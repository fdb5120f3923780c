import type { ApiRequest } from '../neon/client.js';
import { READ_RULES, type Rules, WRITE_RULES } from '../neon/answer-rules.js';
import { REQUEST_METHODS, type RequestMethod } from '../neon/http.js';
import { sendRequest } from '../neon/send.js';
import { type Field, invalid } from '../settings/fields.js';
import { jsonErrorPlace } from '../util/json-error.js';
import { oneLine } from '../util/text.js';
import { operationsOf, type ReadContext, type RequestKindModule } from './kind.js';

// The free-form `request` input: a method, a path under the API base with placeholders filled from
// the inputs, and `body`, JSON sent as written; the operations of its answer are then awaited.

export interface ApiRequestKind extends Pick<ApiRequest, 'method' | 'path' | 'body'> {
  kind: 'request';
}

/** Its rows: a GET is safe to send again, any other method is not. */
const RULES = { read: READ_RULES, write: WRITE_RULES };

export const requestRules = (method: RequestMethod): Rules =>
  method === 'GET' ? RULES.read : RULES.write;

const REQUEST_FORM =
  'a method (GET, POST, PATCH, PUT or DELETE) and a path under the API base, such as POST /projects/{project_id}/branches';

export const apiRequest: RequestKindModule<ApiRequestKind> = {
  input: 'request',
  own: ['body'],
  stray: (named, asked) =>
    asked
      ? `is the body of ${named('request')}; ${named(asked)} writes its own request.`
      : `needs ${named('request')}: it is the body of that request.`,
  rules: RULES,
  connects: true,
  read: (input, context) =>
    requestInput(
      { name: 'request', value: input('request').trim() },
      { name: 'body', value: input('body').trim() },
      context
    ),
  async perform({ method, path, body }, deadline, deps) {
    const outcome = await sendRequest(
      { method, path, body, rules: requestRules(method) },
      deadline,
      deps
    );
    return { outcome, follow: { operations: operationsOf(outcome.response) } };
  }
};

/**
 * Why `path` would not stay under the API base once the URL parser resolves it (the client sends
 * `api_host` + `path`), or undefined when it stays.
 */
function escapesBase(apiHost: string, path: string): string | undefined {
  const base = new URL(apiHost);
  const href = `${apiHost}${path}`;
  if (!URL.canParse(href)) return 'is not a path the URL parser can read';
  const url = new URL(href);
  const under = `${base.pathname.replace(/\/+$/, '')}/`;
  if (url.origin === base.origin && url.pathname.startsWith(under)) return undefined;
  return `resolves outside the API base (to ${url.origin}${url.pathname})`;
}

/**
 * The `request` input: only a path under `api_host` (the key goes nowhere else), its placeholders
 * filled from the inputs; `body` JSON, sent as written.
 */
function requestInput(
  field: Field,
  body: Field,
  { placeholders, apiHost }: ReadContext
): ApiRequestKind {
  const values: Record<string, string | undefined> = placeholders;
  const wrong = (why: string) => invalid(field, `must be ${REQUEST_FORM}; ${why}.`);
  const [, word = '', rawPath = ''] = /^(\S+)\s+(\S+)$/.exec(field.value) ?? [];
  if (!word) throw wrong(`got '${oneLine(field.value, 80)}'`);
  const method = REQUEST_METHODS.find((m) => m === word.toUpperCase());
  if (!method) throw wrong(`'${oneLine(word, 20)}' is not one of these methods`);
  if (rawPath.includes('#'))
    throw wrong(
      `'${oneLine(rawPath, 80)}' holds '#': a fragment is never sent, and the URL parser reads it after resolving the path`
    );
  if (!rawPath.startsWith('/') || rawPath.startsWith('//') || rawPath.includes('\\'))
    throw wrong(
      `'${oneLine(rawPath, 80)}' is not a path relative to the API base (a full URL or //host is refused: the key goes only to api_host)`
    );
  // A path that could leave /api/v2 once decoded: a dot segment, or an encoded dot, slash or backslash.
  if (/(^|\/)\.\.?(\/|$|\?)|%2e|%2f|%5c/i.test(rawPath))
    throw wrong(`'${oneLine(rawPath, 80)}' holds a dot segment or an encoded dot or slash`);
  let missing: string | undefined;
  const path = rawPath.replace(/\{([^}]*)\}/g, (_, name: string) => {
    const value = Object.hasOwn(values, name) ? values[name] : undefined;
    if (value === undefined) missing ??= name;
    return encodeURIComponent(value ?? '');
  });
  if (/[{}]/.test(path)) throw wrong(`'${oneLine(rawPath, 80)}' has an unclosed placeholder`);
  if (missing !== undefined) {
    const known = Object.hasOwn(values, missing);
    const name = missing;
    throw invalid(field, (named) =>
      known
        ? `uses {${name}}, but ${named(name)} is not set.`
        : `uses {${oneLine(name, 30)}}, which is not a placeholder: only {project_id} and {branch_id} are filled in.`
    );
  }
  const escapes = escapesBase(apiHost, path);
  if (escapes) throw wrong(`'${oneLine(rawPath, 80)}' ${escapes}`);
  if (!body.value) return { kind: 'request', method, path };
  if (method === 'GET')
    throw invalid(body, (named) => `must be empty with a GET ${named('request')}.`);
  const place = jsonErrorPlace(body.value);
  // Where, not the parser's message: that quotes the text, and the body is never echoed.
  if (place) throw invalid(body, `must be JSON; it is not valid JSON, from ${place}.`);
  return { kind: 'request', method, path, body: body.value };
}
