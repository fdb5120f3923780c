import type { NeonClient } from './client.js';
import { fieldsOf, textOf } from '../util/json-fields.js';
import { ApiError } from '../util/errors.js';
import type { Connection } from './branch-outcome.js';
import { annotationValues } from './branch-annotations.js';
import { type SweepBranch, sweepBranchOf } from './branch-sweep.js';
import { type Page, pages } from './paging.js';
import { type Branch, branchOf, branchPath, databaseOf, listOf, projectPath } from './resources.js';

/** How many pages of the branch list are read at most, of this many branches each. */
const MAX_PAGES = 50;
const PAGE_LIMIT = 100;

/**
 * The project's branches whose name or id holds `search` (all of them without it), every page.
 * The API matches part of a name: the caller picks the exact one.
 */
export function listBranches(
  client: NeonClient,
  projectId: string,
  deadline: number,
  search?: string
): Promise<Branch[]> {
  return branchesAs(client, projectId, deadline, (item) => branchOf(item), search);
}

/** Every branch of the project as a sweep reads it: with `last_reset_at` and its annotation. */
export function listSweepBranches(
  client: NeonClient,
  projectId: string,
  deadline: number
): Promise<SweepBranch[]> {
  return branchesAs(client, projectId, deadline, sweepBranchOf);
}

/** The project owner's `branches_limit` (`GET /projects/{project_id}`); undefined when the answer has none. */
export async function branchesLimit(
  client: NeonClient,
  projectId: string,
  deadline: number
): Promise<number | undefined> {
  const path = projectPath(projectId);
  const body = await client.getJson(path, deadline, `Project ${projectId} was not found`);
  const owner = fieldsOf(fieldsOf(body.project).get('owner'));
  const limit = owner.get('branches_limit');
  return typeof limit === 'number' && Number.isInteger(limit) && limit >= 0 ? limit : undefined;
}

/** Every page of the branch list, each item read by `read` with its page's annotations. */
async function branchesAs<T extends { id: string }>(
  client: NeonClient,
  projectId: string,
  deadline: number,
  read: (item: unknown, annotations: ReadonlyMap<string, Record<string, string>>) => T | undefined,
  search?: string
): Promise<T[]> {
  const fetchPage = async (cursor: string | undefined): Promise<Page<T>> => {
    const query = new URLSearchParams({ limit: String(PAGE_LIMIT) });
    if (search) query.set('search', search);
    if (cursor) query.set('cursor', cursor);
    const path = `${projectPath(projectId)}/branches?${query}`;
    const body = await client.getJson(path, deadline, `Project ${projectId} was not found`);
    // Not a list of branches, the answer cannot say that none matches (a deletion would pass).
    const list = listOf(body, 'branches', (item: unknown) => item, 'next');
    if (!list)
      throw new ApiError(
        `The API answered the list of branches of project ${projectId} without a "branches" array: a malformed answer.`,
        200
      );
    const annotations = annotationValues(body.annotations);
    const items = list.items.flatMap((item) => read(item, annotations) ?? []);
    return { items, ...(list.next && { next: list.next }), limit: PAGE_LIMIT };
  };
  const found: T[] = [];
  for await (const branches of pages(fetchPage, { maxPages: MAX_PAGES })) found.push(...branches);
  return found;
}

/** The branches a text may name: the one of exactly that name, the one of that id (either may be missing). */
export interface BranchMatches {
  byName?: Branch;
  byId?: Branch;
}

/** The branches of `branches` that `text` names exactly, as a name or as an id (`preview/pr-1` is never `preview/pr-12`). */
export const matchesIn = (branches: readonly Branch[], text: string): BranchMatches => ({
  byName: branches.find((b) => b.name === text),
  byId: branches.find((b) => b.id === text)
});

/** The project's branches whose exact name or id is `text` (the API's search matches a part). */
export async function branchMatches(
  client: NeonClient,
  projectId: string,
  text: string,
  deadline: number
): Promise<BranchMatches> {
  return matchesIn(await listBranches(client, projectId, deadline, text), text);
}

/** Whether the branch of this id still exists (`GET …/branches/{id}`; a 404: no longer). */
export async function branchExists(
  client: NeonClient,
  projectId: string,
  branchId: string,
  deadline: number
): Promise<boolean> {
  const path = branchPath(projectId, branchId);
  try {
    await client.getJson(path, deadline, `Branch ${branchId} was not found`);
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return false;
    throw error;
  }
}

/**
 * The database and role a connection names: those asked, else the branch's first database and its
 * owner role (the one a new project makes, `neondb` owned by `neondb_owner`).
 */
export async function connectionNames(
  client: NeonClient,
  projectId: string,
  branchId: string,
  deadline: number,
  asked: { databaseName?: string; roleName?: string }
): Promise<{ database: string; role: string } | undefined> {
  const { databaseName, roleName } = asked;
  if (databaseName && roleName) return { database: databaseName, role: roleName };
  const path = `${branchPath(projectId, branchId)}/databases`;
  const body = await client.getJson(path, deadline, `Branch ${branchId} was not found`);
  const list: unknown[] = Array.isArray(body.databases) ? body.databases : [];
  const databases = list.flatMap((item) => databaseOf(item) ?? []);
  const database = databaseName ? databases.find((d) => d.name === databaseName) : databases[0];
  if (!database) return undefined;
  return { database: database.name, role: roleName ?? database.owner };
}

/** The role and database a connection names, and its URLs (`pooledUrl` when it could be built). */
export type AnsweredConnection = Pick<Connection, 'url' | 'pooledUrl' | 'database' | 'role'>;

/**
 * The connection a branch creation's answer holds, when it is the one asked: its first
 * `connection_uris` entry (the owner role and the database, present when the new branch has a
 * compute and its parent one role and one database), whose role and database are those asked or
 * none was. `uri` is that entry's URI unmasked (`masked` is the answer with its secrets `***`).
 * The pooled URL is the same URI on `pooler_host`, as Neon documents it ("identical except the
 * hostname"); built only when the URI's host is the entry's `host` and the URL writes back
 * unchanged, else left to the caller to ask.
 */
export function connectionOfAnswer(
  masked: unknown,
  uri: string | undefined,
  asked: { databaseName?: string; roleName?: string }
): AnsweredConnection | undefined {
  const list = fieldsOf(masked).get('connection_uris');
  const [first] = Array.isArray(list) ? list : [];
  const fields = fieldsOf(fieldsOf(first).get('connection_parameters'));
  const text = (key: string): string => textOf(fields, key) ?? '';
  if (!uri) return undefined;
  const [role, database] = [text('role'), text('database')];
  if (!role || !database) return undefined;
  if ((asked.roleName ?? role) !== role || (asked.databaseName ?? database) !== database)
    return undefined;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  // The unmasked URI is the answer's first: it must be this entry's (its role and database).
  const named = (part: string) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return part; // malformed: as written, which names no role or database
    }
  };
  if (named(url.username) !== role || named(url.pathname.slice(1)) !== database) return undefined;
  const poolerHost = text('pooler_host');
  if (!poolerHost || url.hostname !== text('host') || url.href !== uri)
    return { url: uri, database, role };
  url.hostname = poolerHost;
  return { url: uri, pooledUrl: url.href, database, role };
}
