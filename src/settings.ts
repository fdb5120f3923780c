import { isLoopbackHost } from './neon/http.js';
import { isOperation, normalizeOperation, RESOURCE_ID, UUID } from './neon/operation.js';
import type { EngineSettings } from './engine.js';
import { type InputName, input as row } from './inputs.js';
import { REQUEST_METHODS } from './neon/http.js';
import type { ApiRequest } from './neon/request.js';
import { formatDuration, parseDuration, YEAR_MS } from './util/duration.js';
import { InputError, type Naming } from './util/errors.js';
import { redactUrl, registerSecret } from './util/redact.js';
import { jsonErrorPlace } from './util/json-error.js';
import { capital, oneLine } from './util/text.js';
import { parseDatabaseUrl, secretsOf } from './database/url.js';

/** What a run was asked to do, checked before any request is sent. Only this module interprets inputs. */
export interface Settings extends EngineSettings {
  commentOnPr: boolean;
  commentTag: string;
  githubToken: string;
}

/** Reads one input by its name in action.yml, untrimmed ('' when unset): each reader decides what spaces mean. */
export type InputReader = (name: string) => string;

type Field = { value: string; name: InputName };

/** As `core.getBooleanInput` reads them (the YAML 1.2 core schema's booleans). */
const BOOL = new Map([
  ['true', true],
  ['True', true],
  ['TRUE', true],
  ['false', false],
  ['False', false],
  ['FALSE', false]
]);
const BOOL_FORM = 'true or false (true, True, TRUE, false, False or FALSE)';
const ID_FORM = 'a Neon id of lower-case letters, digits and hyphens (1 to 60), e.g.';
const COMMENT_TAG = /^(?!.*--)[\w .:/@+-]{0,100}$/;
const COMMENT_TAG_FORM = 'up to 100 letters, digits, spaces or . _ : / @ + - (no "--")';

/**
 * Defaults and bounds are the rows' (`inputs.ts`). Errors are `InputError`s naming the input.
 * @param mask asks the log's viewer to hide a secret (`::add-mask::`); secrets are redacted anyway
 */
export function readSettings(input: InputReader, mask: (secret: string) => void): Settings {
  const field = (name: InputName): Field => ({ value: input(name).trim(), name });
  const bool = (name: InputName): boolean =>
    check(field(name), row(name).default === 'true', (v) => BOOL.get(v), BOOL_FORM);
  const text = (name: InputName, pattern: RegExp, form: string): string | undefined =>
    check(field(name), undefined, (v) => (pattern.test(v) ? v : undefined), form);

  const databaseInput = input('database_url').trim();
  // `response`: the request's answer's first connection URI, known after the request.
  const fromResponse = databaseInput === 'response';
  const databaseUrl = fromResponse ? '' : databaseInput;
  // Masked before anything else can print them, even a message about another input.
  for (const secret of [input('api_key'), ...(databaseUrl ? secretsOf(databaseUrl) : [])]) {
    if (secret.trim()) mask(secret.trim());
    registerSecret(secret);
  }
  const key = field('api_key');
  const keyProblem = apiKeyProblem(key.value);
  if (keyProblem) throw invalid(key, keyProblem);

  const projectId = text('project_id', RESOURCE_ID, `${ID_FORM} spring-example-302709`);
  const orgId = text('org_id', RESOURCE_ID, `${ID_FORM} org-morning-bread-81040908`);
  const branchId = text('branch_id', RESOURCE_ID, `${ID_FORM} br-wispy-meadow-118737`);
  const wait = bool('wait');
  const watchJob = bool('watch_job');
  // The post step would look once and pass a job whose operations still run: a gate that is not one.
  if (watchJob && !wait)
    throw invalid(
      field('watch_job'),
      (named) =>
        `cannot be true while ${named('wait')} is false: the post step would look once and pass ` +
        "the job's operations still in progress. Set wait to true (the post step then waits for " +
        'them), or watch_job to false.'
    );
  const endpointId = text('endpoint_id', RESOURCE_ID, `${ID_FORM} ep-cool-darkness-123456`);
  const idsFromInput = operationIds(field('operation_id'));
  const givenOperations = operationsJson(field('operations'), projectId);
  if (databaseInput === 'response' && !input('request').trim())
    throw invalid(
      field('database_url'),
      (named) => `is 'response', which needs ${named('request')}.`
    );
  const request = requestInput(field('request'), field('body'), {
    project_id: projectId,
    branch_id: branchId
  });
  return {
    apiKey: key.value,
    timeoutMs: duration(field('timeout')),
    intervalMs: duration(field('interval')),
    apiHost: apiHostInput(field('api_host')),
    projectId: projectId ?? givenOperations[0]?.project_id,
    orgId,
    branchId,
    endpointId,
    operationIds: [...new Set([...idsFromInput, ...givenOperations.map((op) => op.id)])],
    givenOperations,
    request,
    wait,
    policy: { failOn: chosen(field('fail_on')), failFast: bool('fail_fast') },
    summary: bool('summary'),
    summaryLimit: count(field('summary_limit')),
    commentOnPr: bool('comment_on_pr'),
    commentTag: text('comment_tag', COMMENT_TAG, COMMENT_TAG_FORM) ?? '',
    githubToken: input('github_token').trim(),
    // Parsed now (a malformed URL is an input error), used after the wait.
    databaseUrl: databaseUrl ? parseDatabaseUrl(databaseUrl) : undefined,
    databaseFromResponse: fromResponse,
    watchJob,
    sinceMs: sinceInput(input('since').trim(), Date.now())
  };
}

/** What is wrong with an API key, if anything; the key itself is never quoted. */
function apiKeyProblem(key: string): string | undefined {
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

/** A true/false input read leniently (undefined when not one), for a step whose inputs are wrong. */
export const boolOrNot = (input: InputReader, name: string): boolean | undefined =>
  BOOL.get(input(name).trim());

export function check<T>(field: Field, unset: T, read: (v: string) => T | undefined, form: string) {
  const parsed = field.value === '' ? unset : read(field.value);
  if (parsed !== undefined || !field.value) return parsed as T;
  throw invalid(field, `must be ${form}; got '${oneLine(field.value, 60)}'.`);
}

/** An error whose message starts with the input's name (`text` may name others). */
/**
 * A `choice` input (one of its row's `choices`) or a `list` one (any of them, separated by commas
 * or spaces); unset: the row's default.
 */
export function chosen(field: Field): string[] {
  const { type, choices = [], default: fallback = '' } = row(field.name);
  const words = (field.value || fallback).split(/[\s,]+/).filter(Boolean);
  const wrong = words.find((word) => !choices.includes(word));
  const named = `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}`;
  if (wrong === undefined && (type === 'list' || words.length === 1)) return words;
  const form = type === 'list' ? `any of ${named}, separated by commas` : named;
  throw invalid(field, `must be ${form}; got '${oneLine(field.value, 60)}'.`);
}

function invalid({ name }: Field, text: string | ((named: Naming) => string)): InputError {
  const words = typeof text === 'string' ? () => text : text;
  return new InputError(name, (named) => `${capital(named(name))} ${words(named)}`);
}

const ISO_TIME =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;
/** ISO 8601's basic format (20261125, 20261125T100000Z), rewritten in the extended one above. */
const ISO_BASIC = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2}(?:\.\d+)?)?(Z|[+-]\d{4})?)?$/i;

/** Epoch ms of an ISO 8601 time in either format, else NaN. */
function isoTime(value: string): number {
  const text = value.replace(ISO_BASIC, (_, y, mo, d, h, mi, sec, zone = '') => {
    const time = h ? `T${h}:${mi}${sec ? `:${sec}` : ''}` : '';
    return `${y}-${mo}-${d}${time}${zone.replace(/^([+-]\d\d)(\d\d)$/, '$1:$2')}`;
  });
  return ISO_TIME.test(text) ? Date.parse(text) : NaN;
}

const SINCE_FORM =
  'an ISO 8601 time such as 2026-11-26T10:00:00Z or 20261126 (for example ${{ github.event.pull_request.created_at }}) ' +
  'or a duration back from now such as 2h or 7d, within the last year';

/**
 * `since`: an ISO 8601 time (e.g. a pull request's created_at) or a duration back from now. A bare
 * number is neither (`20261125` is a date; `90` would be seconds only for `timeout`), so it is refused.
 */
export function sinceInput(value: string, now: number): number | undefined {
  const field: Field = { value, name: 'since' };
  const bare = /^\d+(\.\d+)?$/.test(value);
  const back = bare ? undefined : parseDuration(value);
  const at = back !== undefined ? now - back : isoTime(value);
  const unitless = `must be ${SINCE_FORM}; got '${value}', a number without a unit.`;
  if (bare && Number.isNaN(at)) throw invalid(field, unitless);
  // The API keeps operations for about 6 months.
  const recent = now - at <= YEAR_MS && at <= now + 86_400_000;
  return check(field, undefined, () => (recent ? at : undefined), SINCE_FORM);
}

function operationIds(field: Field): string[] {
  const ids = field.value.split(/[\s,]+/).filter(Boolean);
  const wrong = ids.find((id) => !UUID.test(id));
  if (wrong === undefined) return [...new Set(ids.map((id) => id.toLowerCase()))];
  throw invalid(
    field,
    'must hold operation ids (UUIDs such as d8ac46eb-a757-42b1-9907-f78322ee394e) separated by ' +
      `commas, spaces or newlines; '${oneLine(wrong, 60)}' is not one.`
  );
}

const JSON_FORM =
  'must be JSON: the body of the response that started the work (an object with an "operations" array) or that array itself';

/** The operations of `field`, all of one project: `projectId` when given. */
function operationsJson(field: Field, projectId?: string) {
  const wrong = (why: string): InputError => invalid(field, `${JSON_FORM}; ${why}.`);
  if (!field.value) return [];
  let list: unknown;
  try {
    list = JSON.parse(field.value);
  } catch {
    throw wrong(`it is not valid JSON, from ${jsonErrorPlace(field.value)}`);
  }
  const answer = list as { operations?: unknown; message?: unknown } | null;
  if (!Array.isArray(list)) list = answer?.operations;
  // An error the API answered, piped in (`curl -s … |`): its own words say what went wrong.
  if (!Array.isArray(list) && typeof answer?.message === 'string')
    throw invalid(
      field,
      `holds an error the API answered, not operations: ${oneLine(answer.message, 300)}`
    );
  if (!Array.isArray(list)) throw wrong('it has no "operations" array');
  if (!list.length) throw wrong('its "operations" array is empty, so there is nothing to wait for');
  const operations = list.map((item: unknown, index) => {
    if (isOperation(item) && UUID.test(item.id) && RESOURCE_ID.test(item.project_id)) {
      return normalizeOperation(item);
    }
    throw wrong(
      `item ${index} is not an operation (it needs a UUID "id", a "project_id", an "action" and a "status")`
    );
  });
  const projects = [...new Set(operations.map((op) => op.project_id))];
  const several = `holds operations of several projects (${projects.join(', ')}); wait for one project per step.`;
  if (projects.length > 1) throw invalid(field, several);
  if (projectId && projects[0] !== projectId) {
    const other = (named: Naming) => `${named('project_id')} is '${projectId}'`;
    throw invalid(field, (named) => `belongs to project '${projects[0]}', but ${other(named)}.`);
  }
  return operations;
}

const REQUEST_FORM =
  'a method (GET, POST, PATCH, PUT or DELETE) and a path under the API base, such as POST /projects/{project_id}/branches';

/**
 * The `request` input: only a path under `api_host` (the key goes nowhere else), its placeholders
 * filled from the inputs; `body` JSON, sent as written.
 */
function requestInput(
  field: Field,
  body: Field,
  values: Record<string, string | undefined>
): ApiRequest | undefined {
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
  if (!body.value) return { method, path };
  if (method === 'GET')
    throw invalid(body, (named) => `must be empty with a GET ${named('request')}.`);
  const place = jsonErrorPlace(body.value);
  // Where, not the parser's message: that quotes the text, and the body is never echoed.
  if (place) throw invalid(body, `must be JSON; it is not valid JSON, from ${place}.`);
  return { method, path, body: body.value };
}

function duration(field: Field): number {
  const { default: fallback = '', min = 0, max = Infinity } = row(field.name);
  const value = field.value || fallback;
  const ms = parseDuration(value) ?? NaN;
  if (ms >= min && ms <= max) return ms;
  const why = Number.isNaN(ms) ? 'not a duration' : ms < min ? 'too short' : 'too long';
  const form = `a duration from ${formatDuration(min)} to ${formatDuration(max)}, such as 90, 90s, 15m, 1h or 1m30s`;
  throw invalid(field, `must be ${form}; '${oneLine(value, 60)}' is ${why}.`);
}

function count(field: Field): number {
  const { default: fallback, min = 0, max = Infinity } = row(field.name);
  const inBounds = (v: string) => (/^\d+$/.test(v) && +v >= min && +v <= max ? +v : undefined);
  return check(field, Number(fallback), inBounds, `a whole number from ${min} to ${max}`);
}

function apiHostInput(field: Field): string {
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
