import type { Branch } from '../neon/resources.js';
import {
  type AnsweredConnection,
  databaseOf,
  defaultBranch,
  findBranch
} from '../neon/branches.js';
import type { Connection } from '../neon/branch-outcome.js';
import { READ_RULES } from '../neon/answer-rules.js';
import { sendRequest } from '../neon/send.js';
import { ApiError, InputError } from '../util/errors.js';
import { capital, oneLine } from '../util/text.js';
import { projectPath, type StepDeps } from './kind.js';

// What the branch kinds look up besides their own request: the parent, and the branch's connection.

/** The parent asked (a name or an id), else the project's default branch. */
export async function parentOf(
  asked: string | undefined,
  deadline: number,
  deps: StepDeps
): Promise<Branch> {
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

/**
 * The branch's connection URLs, direct and pooled, for the role and database asked (by default the
 * first database and its owner). What a creation's answer gave (`answered`) is not asked again;
 * the rest (all of an adopted branch's) is asked of `connection_uri`, through the request path (its
 * secrets masked on arrival). A branch without a compute has none: the outputs stay empty, and the
 * log says why.
 */
export async function connectionOf(
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
