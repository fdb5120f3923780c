import { type Branch, branchOf } from '../neon/resources.js';
import {
  type AnsweredConnection,
  type BranchOutcome,
  type Connection,
  connectionOfAnswer,
  databaseOf,
  defaultBranch,
  findBranch
} from '../neon/branches.js';
import { isOperation, normalizeOperation, type Operation } from '../neon/operation.js';
import {
  type RequestDeps,
  type RequestKind,
  type RequestOutcome,
  requestRules,
  sendRequest
} from '../neon/send.js';
import { READ_RULES, REQUEST_RULES } from '../neon/answer-rules.js';
import { systemClock } from '../util/clock.js';
import { ApiError, InputError } from '../util/errors.js';
import { capital, oneLine } from '../util/text.js';
import { fieldsOf } from '../util/json-fields.js';

/** What the wait follows once the request is done. */
export type Follow =
  | { operations: Operation[] } // the operations the answer started
  | { branchId: string } // an adopted branch: until it has no operation in progress
  | 'nothing'; // a branch already gone

export interface StepDeps extends RequestDeps {
  /** Warnings the log shows as such (an adopted branch of another parent). */
  warn: (line: string) => void;
}

/**
 * One typed request, its whole exchange: the kind's lookups, the request sent by its row of rules,
 * and what its answer means (a created or adopted branch, a deletion or a branch already gone).
 */
export async function performRequest(
  kind: RequestKind,
  deadline: number,
  deps: StepDeps
): Promise<{ outcome: RequestOutcome; follow: Follow }> {
  switch (kind.kind) {
    case 'request': {
      const { method, path, body } = kind;
      const outcome = await sendRequest(
        { method, path, body, rules: requestRules(method) },
        deadline,
        deps
      );
      return { outcome, follow: { operations: operationsOf(outcome.response) } };
    }
    case 'create_branch':
      return createBranch(kind, deadline, deps);
    case 'delete_branch':
      return deleteBranch(kind, deadline, deps);
  }
}

const projectPath = (projectId: string) => `/projects/${encodeURIComponent(projectId)}`;

/** RFC 3339 to the second, as `expires_at` is written. */
const toSeconds = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

async function createBranch(
  kind: Extract<RequestKind, { kind: 'create_branch' }>,
  deadline: number,
  deps: StepDeps
): Promise<{ outcome: RequestOutcome; follow: Follow }> {
  const { client, projectId } = deps;
  const parent = await parentOf(kind.parent, deadline, deps);
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
    rules: REQUEST_RULES.create_branch,
    action: 'create_branch'
  } as const;
  const outcome = await sendRequest(request, deadline, deps);
  if (outcome.ended === 'accept') {
    const made = branchOfAnswer(outcome.response);
    const branch = outcomeOf(made, parent, true, made.expiresAt ?? expiresAt);
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
  // 409: a branch of that name exists. Found by its exact name, never by a part of it.
  const found = await findBranch(client, projectId, kind.name, deadline, 'name');
  if (!found)
    throw new ApiError(
      `${request.method} ${path} answered 409 for the name ${kind.name}, but no branch of that exact name is listed.`,
      409
    );
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
  const branch = outcomeOf(found, parent, created, found.expiresAt);
  return {
    outcome: { ...outcome, branch: { ...branch, connection }, databaseUrl: connection?.url },
    follow: { branchId: found.id }
  };
}

function outcomeOf(
  made: Branch,
  parent: Branch,
  created: boolean,
  expiresAt?: string
): BranchOutcome {
  return {
    id: made.id,
    name: made.name,
    parentId: made.parentId ?? parent.id,
    parentName: made.parentId && made.parentId !== parent.id ? undefined : parent.name,
    created,
    ...(expiresAt && { expiresAt })
  };
}

/** The parent asked (a name or an id), else the project's default branch. */
async function parentOf(asked: string | undefined, deadline: number, deps: StepDeps) {
  const { client, projectId } = deps;
  const parent = asked
    ? await findBranch(client, projectId, asked, deadline)
    : await defaultBranch(client, projectId, deadline);
  if (parent) return parent;
  if (!asked) throw new ApiError(`Project ${projectId} lists no default branch.`, 404);
  const name = oneLine(asked, 80);
  throw new InputError(
    'parent',
    (named) =>
      `${capital(named('parent'))} names no branch of project ${projectId}: no branch has the name or id '${name}'. Nothing was created.`
  );
}

async function deleteBranch(
  kind: Extract<RequestKind, { kind: 'delete_branch' }>,
  deadline: number,
  deps: StepDeps
): Promise<{ outcome: RequestOutcome; follow: Follow }> {
  const { client, projectId } = deps;
  const found = await findBranch(client, projectId, kind.branch, deadline);
  const gone = (id: string): { outcome: RequestOutcome; follow: Follow } => {
    deps.log(`Branch ${kind.branch} is already gone: nothing to delete.`);
    const branch = { id, name: found?.name ?? kind.branch, deleted: false };
    const path = `${projectPath(projectId)}/branches/${encodeURIComponent(id)}`;
    const outcome: RequestOutcome = {
      method: 'DELETE',
      path,
      attempts: 0,
      lockedMs: 0,
      holders: []
    };
    return { outcome: { ...outcome, ended: 'gone', branch }, follow: 'nothing' };
  };
  if (!found) return gone(kind.branch);
  const refused = found.default
    ? "the project's default branch"
    : found.protected
      ? 'a protected branch'
      : '';
  if (refused)
    throw new InputError(
      'delete_branch',
      (named) =>
        `${capital(named('delete_branch'))} names ${found.name} (${found.id}), ${refused}: it is not deleted. Name a preview branch.`
    );
  const path = `${projectPath(projectId)}/branches/${encodeURIComponent(found.id)}`;
  const outcome = await sendRequest(
    { method: 'DELETE', path, rules: REQUEST_RULES.delete_branch, action: 'delete_timeline' },
    deadline,
    deps
  );
  if (outcome.ended === 'gone')
    return {
      ...gone(found.id),
      outcome: { ...outcome, branch: { id: found.id, name: found.name, deleted: false } }
    };
  deps.log(`Deleting branch ${found.name} (${found.id}).`);
  const branch = { id: found.id, name: found.name, parentId: found.parentId, deleted: true };
  return {
    outcome: { ...outcome, branch },
    follow: { operations: operationsOf(outcome.response) }
  };
}

/** The branch a creation's answer holds. */
function branchOfAnswer(response: unknown): Branch {
  const branch = branchOf(fieldsOf(response).get('branch'));
  if (branch) return branch;
  throw new ApiError('The API answered the creation of a branch without a readable branch.', 201);
}

/**
 * The branch's connection URLs, direct and pooled, for the role and database asked (by default the
 * first database and its owner). What a creation's answer gave (`answered`) is not asked again;
 * the rest (all of an adopted branch's) is asked of `connection_uri`, through the request path (its
 * secrets masked on arrival). A branch without a compute has none: the outputs stay empty, and the
 * log says why.
 */
async function connectionOf(
  branchId: string,
  asked: { databaseName?: string; roleName?: string },
  deadline: number,
  deps: StepDeps,
  answered?: AnsweredConnection
): Promise<Connection | undefined> {
  const { client, projectId } = deps;
  const names = answered ?? (await databaseOf(client, projectId, branchId, deadline, asked));
  if (!names) {
    deps.warn(
      `Branch ${branchId} has no database${asked.databaseName ? ` named ${asked.databaseName}` : ''}: no connection URL.`
    );
    return undefined;
  }
  const uri = async (pooled: boolean) => {
    const query = new URLSearchParams({
      branch_id: branchId,
      database_name: names.database,
      role_name: names.role
    });
    if (pooled) query.set('pooled', 'true');
    const path = `${projectPath(projectId)}/connection_uri?${query}`;
    const quiet = { ...deps, onProgress: undefined };
    try {
      return (await sendRequest({ method: 'GET', path, rules: READ_RULES }, deadline, quiet))
        .databaseUrl;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      deps.warn(`No connection URL for branch ${branchId} (${error.message})`);
      return undefined;
    }
  };
  const url = answered?.url ?? (await uri(false));
  if (!url) return undefined;
  const pooledUrl = answered?.pooledUrl ?? (await uri(true));
  return {
    url,
    host: new URL(url).hostname,
    ...(pooledUrl && { pooledUrl, pooledHost: new URL(pooledUrl).hostname }),
    database: names.database,
    role: names.role
  };
}

/** The operations an answer started (its `operations` array), as the API described them. */
export function operationsOf(response: unknown): Operation[] {
  const list =
    response && typeof response === 'object' && 'operations' in response
      ? response.operations
      : undefined;
  return Array.isArray(list) ? list.filter(isOperation).map(normalizeOperation) : [];
}
