import type { EngineSettings } from './engine.js';
import type { InputName } from './inputs.js';
import { RESOURCE_ID } from './neon/operation.js';
import { CONNECTING_KINDS, readRequest } from './requests/index.js';
import { identifier } from './requests/create-branch.js';
import type { PullRequestRef } from './requests/kind.js';
import { registerSecret } from './util/redact.js';
import { parseDatabaseUrl } from './database/url.js';
import { secretsOf } from './util/url-secrets.js';
import { apiHostInput, apiKeyProblem } from './settings/api.js';
import {
  asBool,
  type Field,
  type InputReader,
  invalid,
  readBool,
  readChoices,
  readCount,
  readDuration,
  readField
} from './settings/fields.js';
import { operationIdsInput, operationsInput } from './settings/operation-ids.js';
import { sinceInput } from './settings/since.js';

/** What a run was asked to do, checked before any request is sent. Only this module interprets inputs. */
export interface Settings extends EngineSettings {
  commentOnPr: boolean;
  commentTag: string;
  githubToken: string;
}

/** A true/false input read leniently (undefined when not one), for a step whose inputs are wrong. */
export const boolOrNot = (input: InputReader, name: string): boolean | undefined =>
  asBool(input(name).trim());

const ID_FORM = 'a Neon id of lower-case letters, digits and hyphens (1 to 60), e.g.';
const COMMENT_TAG = /^(?!.*--)[\w .:/@+-]{0,100}$/;
const COMMENT_TAG_FORM = 'up to 100 letters, digits, spaces or . _ : / @ + - (no "--")';

/**
 * Defaults and bounds are the rows' (`inputs.ts`). Errors are `InputError`s naming the input.
 * @param mask asks the log's viewer to hide a secret (`::add-mask::`); secrets are redacted anyway
 * @param event what the front end read of the run's event: the pull request it is for, if any
 */
export function readSettings(
  input: InputReader,
  mask: (secret: string) => void,
  event: { pullRequest?: PullRequestRef } = {}
): Settings {
  const field = (name: InputName): Field => ({ value: input(name).trim(), name });
  const bool = (name: InputName): boolean => readBool(field(name));
  const text = (name: InputName, pattern: RegExp, form: string): string | undefined =>
    readField(field(name), undefined, (v) => (pattern.test(v) ? v : undefined), form);

  const databaseInput = input('database_url').trim();
  // `response`: the request's answer's first connection URI, known after the request.
  const fromResponse = databaseInput === 'response';
  const databaseUrl = fromResponse ? '' : databaseInput;
  // Masked before anything else can print them, even a message about another input.
  for (const secret of [
    input('api_key'),
    input('github_token'),
    ...(databaseUrl ? secretsOf(databaseUrl) : [])
  ]) {
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
  const apiHost = apiHostInput(field('api_host'));
  const placeholders = { project_id: projectId, branch_id: branchId };
  const request = readRequest(input, { placeholders, apiHost, ...event });
  if (fromResponse && !CONNECTING_KINDS.some((kind) => kind === request?.kind))
    throw invalid(field('database_url'), (named) => {
      const kinds = CONNECTING_KINDS.map(named);
      return `is 'response', which needs ${kinds.slice(0, -1).join(', ')} or ${kinds.at(-1)}.`;
    });
  const review = reviewInputs(field, Boolean(branchId), request?.kind);
  return {
    ...review,
    apiKey: key.value,
    timeoutMs: readDuration(field('timeout')),
    intervalMs: readDuration(field('interval')),
    apiHost,
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

/**
 * `compare_schema`, `fail_on_destructive` and the `database_name` compared: a review needs a branch
 * (`branch_id`, or one the request makes or keeps: not a deletion's), the gate needs the review,
 * and `database_name` names the database of `create_branch` or of the review.
 */
function reviewInputs(
  field: (name: InputName) => Field,
  branchNamed: boolean,
  kind: string | undefined
): Pick<Settings, 'compareSchema' | 'failOnDestructive' | 'databaseName'> {
  const compareSchema = readBool(field('compare_schema'));
  const failOnDestructive = readBool(field('fail_on_destructive'));
  const keepsBranch = kind !== undefined && kind !== 'delete_branch' && kind !== 'request';
  if (compareSchema && !branchNamed && !keepsBranch)
    throw invalid(
      field('compare_schema'),
      (named) =>
        `needs a branch to compare with its parent: set ${named('branch_id')}, or ${named('create_branch')}.`
    );
  if (failOnDestructive && !compareSchema)
    throw invalid(
      field('fail_on_destructive'),
      (named) => `needs ${named('compare_schema')}: without a review there is nothing to fail on.`
    );
  const database = field('database_name');
  if (database.value && !compareSchema && kind !== 'create_branch')
    throw invalid(
      database,
      (named) =>
        `is read only with ${named('create_branch')} or ${named('compare_schema')}, and neither is set.`
    );
  return {
    compareSchema,
    failOnDestructive,
    ...(database.value && { databaseName: identifier(database) })
  };
}
