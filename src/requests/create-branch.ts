import type { Rules } from '../neon/answer-rules.js';
import type { BranchOutcome, BranchOutcomeWord } from '../neon/branch-outcome.js';
import { connectionOfAnswer } from '../neon/branches.js';
import { type Branch, branchOf } from '../neon/resources.js';
import { type RequestOutcome, sendRequest } from '../neon/send.js';
import type { ApiRequest } from '../neon/client.js';
import { type Field, invalid, readBranchName, readDuration } from '../settings/fields.js';
import type { InputName } from '../inputs.js';
import { systemClock } from '../util/clock.js';
import { ApiError } from '../util/errors.js';
import { fieldsOf } from '../util/json-fields.js';
import { oneLine } from '../util/text.js';
import { connectionOf, findNamedBranch, parentFor } from './branch-lookups.js';
import {
  operationsOf,
  type Performed,
  projectPath,
  type RequestKindModule,
  type StepDeps
} from './kind.js';

// `create_branch: NAME`: get or create the branch of this exact name (a rerun reuses it), then wait
// until it is ready; its connection URLs are the outputs.

export interface CreateBranchKind {
  kind: 'create_branch';
  name: string;
  /** A branch name or id; none: the project's default branch. */
  parent?: string;
  /** How long the branch lives, from its creation (sent as `expires_at` on the service's clock). */
  expiresInMs?: number;
  roleName?: string;
  databaseName?: string;
}

/** The name makes the create idempotent: sent again, it can only create the branch or answer 409. */
// prettier-ignore
const RULES = {
  create_branch: { accepted: 'accept', conflict: 'adopt',  not_found: 'refuse', locked: 'await_lock', unavailable: 'retry', server_error: 'refuse', throttled: 'retry', no_answer: 'resend',      other: 'refuse' }
} as const satisfies Record<string, Rules>;

export const createBranch: RequestKindModule<CreateBranchKind> = {
  input: 'create_branch',
  // `database_name` is compare_schema's too: settings.ts refuses it when neither is asked.
  own: ['parent', 'expires_in', 'role_name'],
  // The step waits for the branch it creates or adopts (its operations, or the branch until it has
  // none in progress). These would be awaited instead, or found unknown only after the create.
  excludes: {
    inputs: ['operation_id', 'operations', 'endpoint_id'],
    why: 'the step waits for the branch it creates. Wait for other work in a step of its own.'
  },
  rules: RULES,
  connects: true,
  read(input) {
    const field = (name: InputName): Field => ({ value: input(name).trim(), name });
    const expires = field('expires_in');
    return {
      kind: 'create_branch',
      name: readBranchName(field('create_branch'), 'name'),
      ...(field('parent').value && { parent: readBranchName(field('parent'), 'name or id') }),
      ...(expires.value && { expiresInMs: readDuration(expires) }),
      ...(field('role_name').value && { roleName: identifier(field('role_name')) }),
      ...(field('database_name').value && { databaseName: identifier(field('database_name')) })
    };
  },
  perform
};

/** A PostgreSQL role or database name: 1 to 63 characters, no control character. */
export function identifier(field: Field): string {
  if (field.value.length <= 63 && !/\p{Cc}/u.test(field.value)) return field.value;
  throw invalid(
    field,
    `must be a PostgreSQL name of 1 to 63 characters; got '${oneLine(field.value, 80)}'.`
  );
}

/** RFC 3339 to the second, as `expires_at` is written. */
const toSeconds = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

async function perform(
  kind: CreateBranchKind,
  deadline: number,
  deps: StepDeps
): Promise<Performed> {
  const { client, projectId } = deps;
  const parent = await parentFor(kind, deadline, deps);
  // On the service's clock: it deletes the branch when its own clock passes this.
  const expiresAt =
    kind.expiresInMs === undefined
      ? undefined
      : toSeconds(
          client.serviceClock.toService((deps.clock ?? systemClock).now()) + kind.expiresInMs
        );
  const body = {
    branch: { name: kind.name, parent_id: parent.id, ...(expiresAt && { expires_at: expiresAt }) },
    endpoints: [{ type: 'read_write' }]
  };
  const path = `${projectPath(projectId)}/branches`;
  const request = {
    method: 'POST',
    path,
    body: JSON.stringify(body),
    rules: RULES.create_branch,
    action: 'create_branch'
  } as const;
  const { outcome, found } = await createOrFind(request, kind.name, deadline, deps);
  if (!found) {
    const made = branchOfAnswer(outcome.response);
    const branch = outcomeOf(made, parent, 'created', made.expiresAt ?? expiresAt);
    deps.log(`Created branch ${made.name} (${made.id}) from ${parent.name}.`);
    // The answer names the new branch's connection: asked again only for what it lacks.
    const answered = connectionOfAnswer(outcome.response, outcome.databaseUrl, kind);
    if (answered?.pooledUrl) client.maskSecret(answered.pooledUrl);
    const connection = await connectionOf(made.id, kind, deadline, deps, answered);
    return {
      outcome: { ...outcome, branch: { ...branch, connection }, databaseUrl: connection?.url },
      follow: { operations: operationsOf(outcome.response) }
    };
  }
  // Ours only when a send of this step got no answer and the branch is no older than that send;
  // `created_at` counts whole seconds, so the send's second counts as after it.
  const sentAt = outcome.unansweredAt;
  const sentSecond =
    sentAt === undefined
      ? Infinity
      : Math.floor(client.serviceClock.toService(sentAt) / 1000) * 1000;
  const created = Date.parse(found.createdAt) >= sentSecond;
  deps.log(
    created
      ? `Branch ${found.name} (${found.id}) was created by this step's first request, whose answer was lost.`
      : `Branch ${found.name} (${found.id}) already exists (created ${found.createdAt}): reusing it.`
  );
  if (found.parentId !== parent.id)
    deps.warn(
      `Branch ${found.name} was made from ${found.parentId ?? 'no parent'}, not from ${parent.name} (${parent.id}) as asked; it is reused as it is.`
    );
  const connection = await connectionOf(found.id, kind, deadline, deps);
  const branch = outcomeOf(found, parent, created ? 'created' : 'reused', found.expiresAt);
  return {
    outcome: { ...outcome, branch: { ...branch, connection }, databaseUrl: connection?.url },
    follow: { branchId: found.id }
  };
}

/** A 409 whose name no branch has when looked up (deleted meanwhile): the create is sent again, this many times in all. */
const MAX_CREATES = 3;

/**
 * The create sent until it is accepted (no `found`), or a 409 for the name and the branch of that
 * exact name (`found`, never a part of it). A 409 whose branch is not listed (deleted between the
 * two, or a conflict of another kind) sends the create again, `MAX_CREATES` in all; then it is the
 * API's error, its message kept.
 */
async function createOrFind(
  request: ApiRequest,
  name: string,
  deadline: number,
  deps: StepDeps
): Promise<{ outcome: RequestOutcome; found?: Branch }> {
  let earlier: Pick<RequestOutcome, 'attempts' | 'unansweredAt'> = { attempts: 0 };
  for (let sends = 1; ; sends++) {
    const sent = await sendRequest(request, deadline, deps);
    // What the earlier sends did counts too: their attempts, and a first send that got no answer.
    const outcome = {
      ...sent,
      attempts: earlier.attempts + sent.attempts,
      unansweredAt: earlier.unansweredAt ?? sent.unansweredAt
    };
    if (outcome.ended === 'accept') return { outcome };
    const found = await findNamedBranch('create_branch', name, 'name', deadline, deps);
    if (found) return { outcome, found };
    const conflict = `${request.method} ${request.path} answered ${outcome.answerError ?? 'HTTP 409'}, but no branch is named exactly ${name}`;
    if (sends >= MAX_CREATES)
      throw new ApiError(`${conflict} (${sends} times): not a name taken, so not adopted.`, 409);
    deps.log(`${conflict}: deleted meanwhile, or another conflict; sending the create again.`);
    earlier = outcome;
  }
}

function outcomeOf(
  made: Branch,
  parent: Branch,
  outcome: BranchOutcomeWord,
  expiresAt?: string
): BranchOutcome {
  return {
    id: made.id,
    name: made.name,
    outcome,
    parentId: made.parentId ?? parent.id,
    parentName: made.parentId && made.parentId !== parent.id ? undefined : parent.name,
    ...(expiresAt && { expiresAt })
  };
}

/** The branch a creation's answer holds. */
function branchOfAnswer(response: unknown): Branch {
  const branch = branchOf(fieldsOf(response).get('branch'));
  if (branch) return branch;
  throw new ApiError('The API answered the creation of a branch without a readable branch.', 201);
}
