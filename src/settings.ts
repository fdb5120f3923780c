import type { EngineSettings } from './engine.js';
import type { InputName } from './inputs.js';
import { REQUEST_METHODS } from './neon/http.js';
import { RESOURCE_ID } from './neon/operation.js';
import type { ApiRequest } from './neon/request.js';
import { registerSecret } from './util/redact.js';
import { oneLine } from './util/text.js';
import { parseDatabaseUrl, secretsOf } from './database/url.js';
import { apiHostInput, apiKeyProblem } from './settings/api.js';
import {
  asBool,
  type Field,
  invalid,
  readBool,
  readChoices,
  readCount,
  readDuration,
  readField
} from './settings/fields.js';
import { operationIdsInput, operationsInput } from './settings/operations.js';
import { sinceInput } from './settings/since.js';

/** What a run was asked to do, checked before any request is sent. Only this module interprets inputs. */
export interface Settings extends EngineSettings {
  commentOnPr: boolean;
  commentTag: string;
  githubToken: string;
}

/** Reads one input by its name in action.yml, untrimmed ('' when unset): each reader decides what spaces mean. */
export type InputReader = (name: string) => string;

/** A true/false input read leniently (undefined when not one), for a step whose inputs are wrong. */
export const boolOrNot = (input: InputReader, name: string): boolean | undefined =>
  asBool(input(name).trim());

const ID_FORM = 'a Neon id of lower-case letters, digits and hyphens (1 to 60), e.g.';
const COMMENT_TAG = /^(?!.*--)[\w .:/@+-]{0,100}$/;
const COMMENT_TAG_FORM = 'up to 100 letters, digits, spaces or . _ : / @ + - (no "--")';

/**
 * Defaults and bounds are the rows' (`inputs.ts`). Errors are `InputError`s naming the input.
 * @param mask asks the log's viewer to hide a secret (`::add-mask::`); secrets are redacted anyway
 */
export function readSettings(input: InputReader, mask: (secret: string) => void): Settings {
  const field = (name: InputName): Field => ({ value: input(name).trim(), name });
  const bool = (name: InputName): boolean => readBool(field(name));
  const text = (name: InputName, pattern: RegExp, form: string): string | undefined =>
    readField(field(name), undefined, (v) => (pattern.test(v) ? v : undefined), form);

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
  const idsFromInput = operationIdsInput(field('operation_id'));
  const givenOperations = operationsInput(field('operations'), projectId);
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
    timeoutMs: readDuration(field('timeout')),
    intervalMs: readDuration(field('interval')),
    apiHost: apiHostInput(field('api_host')),
    projectId: projectId ?? givenOperations[0]?.project_id,
    orgId,
    branchId,
    endpointId,
    operationIds: [...new Set([...idsFromInput, ...givenOperations.map((op) => op.id)])],
    givenOperations,
    request,
    wait,
    policy: { failOn: readChoices(field('fail_on')), failFast: bool('fail_fast') },
    summary: bool('summary'),
    summaryLimit: readCount(field('summary_limit')),
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
  try {
    JSON.parse(body.value);
  } catch {
    // The parser's message quotes the text: the body is never echoed.
    throw invalid(body, 'must be JSON; it is not valid JSON.');
  }
  return { method, path, body: body.value };
}
