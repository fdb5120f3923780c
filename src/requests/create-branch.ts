import type { Rules } from '../neon/answer-rules.js';
import { pullRequestAnnotation } from '../neon/branch-annotations.js';
import type { BranchOutcome, BranchOutcomeWord } from '../neon/branch-outcome.js';
import { connectionOfAnswer } from '../neon/branches.js';
import { type Branch, branchOf, projectPath } from '../neon/resources.js';
import { type RequestOutcome, sendRequest } from '../neon/send.js';
import type { ApiRequest } from '../neon/client.js';
import {
  type Field,
  invalid,
  readBranchName,
  readChoices,
  readDuration
} from '../settings/fields.js';
import { type InputName, ON_EXISTING_CHOICES } from '../inputs.js';
import { ApiError } from '../util/errors.js';
import { fieldsOf } from '../util/json-fields.js';
import { oneLine } from '../util/text.js';
import { connectionOf, findNamedBranch, parentFor } from './branch-lookups.js';
import {
  carriesMark,
  CREATE_MARK_KEY,
  EXPIRY_RULES,
  expiryFrom,
  newCreateMark,
  refuseUntouchable,
  renewExpiry,
  resetFromParent
} from './branch-life.js';
import { limitError } from './branch-limit-error.js';
import {
  operationsOf,
  type Performed,
  type PullRequestRef,
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
  /** What a branch of that name already there gets: reused as it is (none: the same), or reset from its parent. */
  onExisting?: OnExisting;
  /** The pull request the step runs for: written in the branch's annotation. */
  pullRequest?: PullRequestRef;
}

/** With `create_branch`, what an existing branch of that name gets: reused as it is, or reset from its parent. */
export type OnExisting = (typeof ON_EXISTING_CHOICES)[number];

/** The name makes the create idempotent: sent again, it can only create the branch or answer 409. */
// prettier-ignore
const RULES = {
  create_branch: { accepted: 'accept', conflict: 'adopt',  not_found: 'refuse', locked: 'await_lock', unavailable: 'retry', server_error: 'refuse', throttled: 'retry', no_answer: 'resend',      other: 'refuse' }
} as const satisfies Record<string, Rules>;

export const createBranch: RequestKindModule<CreateBranchKind> = {
  input: 'create_branch',
  // `database_name` is compare_schema's too: settings.ts refuses it when neither is asked.
  own: ['parent', 'expires_in', 'role_name', 'on_existing'],
  // The step waits for the branch it creates or adopts (its operations, or the branch until it has
  // none in progress). These would be awaited instead, or found unknown only after the create.
  excludes: {
    inputs: ['operation_id', 'operations', 'endpoint_id'],
    why: 'the step waits for the branch it creates. Wait for other work in a step of its own.'
  },
  // The renewal of a kept branch's expiry goes by its own row (the restore by reset_branch's).
  rules: { ...RULES, renew_expiry: EXPIRY_RULES },
  connects: true,
  read(input, context) {
    const field = (name: InputName): Field => ({ value: input(name).trim(), name });
    const expires = field('expires_in');
    return {
      kind: 'create_branch',
      name: readBranchName(field('create_branch'), 'name'),
      ...(field('parent').value && { parent: readBranchName(field('parent'), 'name or id') }),
      ...(expires.value && { expiresInMs: readDuration(expires) }),
      ...(field('role_name').value && { roleName: identifier(field('role_name')) }),
      ...(field('database_name').value && { databaseName: identifier(field('database_name')) }),
      ...(field('on_existing').value && { onExisting: onExistingOf(field('on_existing')) }),
      ...(context.pullRequest && { pullRequest: context.pullRequest })
    };
  },
  perform
};

/** `on_existing`: one of its row's choices (`readChoices` refuses any other). */
const onExistingOf = (field: Field): OnExisting | undefined =>
  ON_EXISTING_CHOICES.find((choice) => choice === readChoices(field)[0]);

/** A PostgreSQL role or database name: 1 to 63 characters, no control character. */
export function identifier(field: Field): string {
  if (field.value.length <= 63 && !/\p{Cc}/u.test(field.value)) return field.value;
  throw invalid(
    field,
    `must be a PostgreSQL name of 1 to 63 characters; got '${oneLine(field.value, 80)}'.`
  );
}

async function perform(
  kind: CreateBranchKind,
  deadline: number,
  deps: StepDeps
): Promise<Performed> {
  const { client, projectId } = deps;
  const parent = await parentFor(kind, deadline, deps);
  const expiresAt = kind.expiresInMs === undefined ? undefined : expiryFrom(kind.expiresInMs, deps);
  const mark = newCreateMark();
  const pr = kind.pullRequest;
  const body = {
    branch: { name: kind.name, parent_id: parent.id, ...(expiresAt && { expires_at: expiresAt }) },
    endpoints: [{ type: 'read_write' }],
    annotation_value: {
      ...(pr && pullRequestAnnotation(pr.repository, pr.number)),
      [CREATE_MARK_KEY]: mark
    }
  };
  const path = `${projectPath(projectId)}/branches`;
  const request = {
    method: 'POST',
    path,
    body: JSON.stringify(body),
    rules: RULES.create_branch,
    action: 'create_branch'
  } as const;
  const { outcome, found } = await createOrFind(request, kind.name, deadline, deps).catch(
    async (error: unknown) => {
      throw (await limitError(error, kind.name, deadline, deps)) ?? error;
    }
  );
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
  // The default or a protected branch is never adopted: its URL would reach the next step.
  refuseUntouchable('create_branch', found, 'adopted');
  // Ours only when a send of this step got no answer and the branch carries this create's mark.
  const created =
    outcome.unansweredAt !== undefined && (await carriesMark(found, mark, deadline, deps));
  deps.log(
    created
      ? `Branch ${found.name} (${found.id}) was created by this step's first request, whose answer was lost.`
      : `Branch ${found.name} (${found.id}) already exists (created ${found.createdAt}): ${kind.onExisting === 'reset' ? 'resetting' : 'reusing'} it.`
  );
  if (found.parentId !== parent.id)
    deps.warn(
      `Branch ${found.name} was made from ${found.parentId ?? 'no parent'}, not from ${parent.name} (${parent.id}) as asked; it is reused as it is.`
    );
  // A branch this step just made is fresh: neither reset nor renewed.
  const renewed =
    !created && kind.expiresInMs !== undefined
      ? await renewExpiry(found, kind.expiresInMs, deadline, deps)
      : found.expiresAt;
  // The expiry first: the restore locks the project until its operations end.
  const reset =
    !created && kind.onExisting === 'reset'
      ? await resetFromParent(found, deadline, deps)
      : undefined;
  const connection = await connectionOf(found.id, kind, deadline, deps);
  const word: BranchOutcomeWord = created ? 'created' : reset ? 'reset' : 'reused';
  const branch = outcomeOf(found, parent, word, renewed);
  // A reset's request is the restore: its operations are what the wait follows.
  const sent = reset?.outcome ?? outcome;
  return {
    outcome: { ...sent, branch: { ...branch, connection }, databaseUrl: connection?.url },
    follow: reset ? { operations: reset.operations } : { branchId: found.id }
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
