import { REQUEST_METHODS } from '../neon/http.js';
import type { RequestKind } from '../neon/send.js';
import type { InputReader } from '../settings.js';
import { type Field, invalid, readDuration } from './fields.js';
import type { InputName } from '../inputs.js';
import { jsonErrorPlace } from '../util/json-error.js';
import { oneLine } from '../util/text.js';

// The request grammar: the `request` input (a method, a path under the API base with placeholders,
// a JSON body) and the preview-branch inputs (`create_branch`, `delete_branch` and theirs), read into
// one typed `RequestKind`.

/** The placeholders a `request` path may hold, filled from the inputs of the same name. */
export type Placeholders = Record<'project_id' | 'branch_id', string | undefined>;

/** The inputs that each ask for a request: at most one of them per step. */
const REQUEST_INPUTS = ['request', 'create_branch', 'delete_branch'] as const;
/** Inputs that only `create_branch` reads. */
const CREATE_INPUTS = ['parent', 'expires_in', 'role_name', 'database_name'] as const;

const BRANCH_NAME_FORM = 'a branch name of 1 to 256 characters, such as preview/pr-42';
const NAME_OR_ID_FORM =
  'a branch name (such as preview/pr-42) or id (such as br-wispy-meadow-118737)';

/**
 * The request the inputs ask for, if any. `request`, `create_branch` and `delete_branch` exclude
 * one another; the inputs of `create_branch` need it.
 */
export function requestKind(
  input: InputReader,
  values: Placeholders,
  apiHost: string
): RequestKind | undefined {
  const field = (name: InputName): Field => ({ value: input(name).trim(), name });
  const given = REQUEST_INPUTS.filter((name) => input(name) !== '');
  if (given.length > 1) {
    const [first, second] = given as [InputName, InputName];
    throw invalid(
      field(first),
      (named) =>
        `and ${named(second)} cannot both be set: a step sends one request. Use one step for each.`
    );
  }
  const create = given[0] === 'create_branch';
  const stray = CREATE_INPUTS.find((name) => input(name).trim() !== '');
  if (stray && !create)
    throw invalid(
      field(stray),
      (named) => `is an input of ${named('create_branch')}, which is not set.`
    );
  if (given[0] === 'delete_branch')
    return { kind: 'delete_branch', branch: branchName(input, 'delete_branch', NAME_OR_ID_FORM) };
  if (!create) return requestInput(field('request'), field('body'), values, apiHost);
  if (input('body').trim())
    throw invalid(
      field('body'),
      (named) => `is the body of ${named('request')}; ${named('create_branch')} writes its own.`
    );
  const expires = field('expires_in');
  return {
    kind: 'create_branch',
    name: branchName(input, 'create_branch', BRANCH_NAME_FORM),
    ...(field('parent').value && { parent: branchName(input, 'parent', NAME_OR_ID_FORM) }),
    ...(expires.value && { expiresInMs: readDuration(expires) }),
    ...(field('role_name').value && { roleName: identifier(field('role_name')) }),
    ...(field('database_name').value && { databaseName: identifier(field('database_name')) })
  };
}

/** A branch name as given (spaces around it dropped): set, at most 256 characters, no control character. */
function branchName(input: InputReader, name: InputName, form: string): string {
  const value = input(name).trim();
  const problem = !value
    ? 'it is empty (only spaces)'
    : value.length > 256
      ? `it has ${value.length} characters`
      : /\p{Cc}/u.test(value)
        ? 'it holds a control character or a newline'
        : undefined;
  if (!problem) return value;
  throw invalid({ value, name }, `must be ${form}; ${problem}.`);
}

/** A PostgreSQL role or database name: 1 to 63 characters, no control character. */
function identifier(field: Field): string {
  if (field.value.length <= 63 && !/\p{Cc}/u.test(field.value)) return field.value;
  throw invalid(
    field,
    `must be a PostgreSQL name of 1 to 63 characters; got '${oneLine(field.value, 80)}'.`
  );
}

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

export const REQUEST_FORM =
  'a method (GET, POST, PATCH, PUT or DELETE) and a path under the API base, such as POST /projects/{project_id}/branches';

/**
 * The `request` input: only a path under `api_host` (the key goes nowhere else), its placeholders
 * filled from the inputs; `body` JSON, sent as written.
 */
function requestInput(
  field: Field,
  body: Field,
  values: Record<string, string | undefined>,
  apiHost: string
): RequestKind | undefined {
  if (!field.value) {
    if (body.value)
      throw invalid(body, (named) => `needs ${named('request')}: it is the body of that request.`);
    return undefined;
  }
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
