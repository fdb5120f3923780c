import { type Branch, projectPath } from '../neon/resources.js';
import {
  type AnsweredConnection,
  branchMatches,
  type BranchMatches,
  connectionNames,
  listBranches,
  matchesIn
} from '../neon/branches.js';
import type { Connection } from '../neon/branch-outcome.js';
import type { InputName } from '../inputs.js';
import { ApiError, InputError } from '../util/errors.js';
import { capital, oneLine } from '../util/text.js';
import { refuseUntouchable } from './branch-life.js';
import type { StepDeps } from './kind.js';

// What the branch kinds look up besides their own request: the branch an input names, the parent,
// and the branch's connection.

/**
 * How a text names a branch: `name or id` (delete_branch, parent, reset_branch), or `name` for a
 * branch to create (create_branch: the branch of that name, made if none is).
 */
export type NamedAs = 'name' | 'name or id';

/**
 * The one rule of every input that names a branch: the branch of exactly that name, else (`name or
 * id`) the branch of that id. A text that is one branch's name and another's id is an input error
 * naming both, never a guess (a `github.head_ref` may be `br-…`); so is a name to create that is
 * another branch's id, which no later step could tell from it. Undefined: no such branch.
 */
export function namedBranch(
  input: InputName,
  text: string,
  { byName, byId }: BranchMatches,
  as: NamedAs
): Branch | undefined {
  const clash = byId && byId !== byName && (byName || as === 'name');
  if (!clash) return as === 'name' ? byName : (byName ?? byId);
  const shown = oneLine(text, 80);
  const idOf = `the id of branch ${byId.name}`;
  throw new InputError(input, (named) =>
    byName
      ? `${capital(named(input))} '${shown}' names two branches: branch ${byName.name} (${byName.id}) by its name, and ${idOf}. ` +
        `Name the one meant otherwise: '${byName.id}' (the id of the first) or '${byId.name}' (the name of the second). Nothing was changed.`
      : `${capital(named(input))} '${shown}' is ${idOf}: a branch of that name could not be told from it by a name or id. ` +
        'Choose another name. Nothing was changed.'
  );
}

/** The branch `text` names in the project, by the one rule (`namedBranch`); undefined: none. */
export async function findNamedBranch(
  input: InputName,
  text: string,
  as: NamedAs,
  deadline: number,
  { client, projectId }: StepDeps
): Promise<Branch | undefined> {
  return namedBranch(input, text, await branchMatches(client, projectId, text, deadline), as);
}

/**
 * The parent of a branch to create, once the name to create is checked by the one rule
 * (`namedBranch`). Without a parent asked, the default branch is found in the list of every
 * branch, which also holds any branch the name would clash with: one read for both.
 */
export async function parentFor(
  create: { name: string; parent?: string },
  deadline: number,
  deps: StepDeps
): Promise<Branch> {
  const { client, projectId } = deps;
  const listed = create.parent ? undefined : await listBranches(client, projectId, deadline);
  const matches = listed
    ? matchesIn(listed, create.name)
    : await branchMatches(client, projectId, create.name, deadline);
  const existing = namedBranch('create_branch', create.name, matches, 'name');
  // The default or a protected branch is never adopted (its URL would reach the next step): refused unsent.
  if (existing) refuseUntouchable('create_branch', existing, 'adopted');
  const parent = create.parent
    ? await findNamedBranch('parent', create.parent, 'name or id', deadline, deps)
    : listed?.find((b) => b.default);
  if (parent) return parent;
  if (!create.parent) throw new ApiError(`Project ${projectId} lists no default branch.`, 404);
  throw noSuchBranch('parent', create.parent, projectId, 'created');
}

/** The input error of a branch to act on that no branch's name or id is: nothing was `done`. */
export function noSuchBranch(
  input: InputName,
  text: string,
  projectId: string,
  done: string
): InputError {
  const name = oneLine(text, 80);
  return new InputError(
    input,
    (named) =>
      `${capital(named(input))} names no branch of project ${projectId}: no branch has the name or id '${name}'. Nothing was ${done}.`
  );
}

/**
 * The branch's connection URLs, direct and pooled, for the role and database asked (by default the
 * first database and its owner). What a creation's answer gave (`answered`) is not asked again;
 * the rest (all of an adopted branch's) is looked up at `connection_uri` (its secrets masked on
 * arrival). A branch without a compute has none: the outputs stay empty, and the log says why.
 */
export async function connectionOf(
  branchId: string,
  asked: { databaseName?: string; roleName?: string },
  deadline: number,
  deps: StepDeps,
  answered?: AnsweredConnection
): Promise<Connection | undefined> {
  const { client, projectId } = deps;
  const names = answered ?? (await connectionNames(client, projectId, branchId, deadline, asked));
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
    try {
      return await client.connectionUri(path, deadline);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      deps.warn(
        `No ${pooled ? 'pooled ' : ''}connection URL for branch ${branchId} (${error.message})`
      );
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
