import { fieldsOf, textOf } from '../util/json-fields.js';
import { ApiError } from '../util/errors.js';
import { oneLine } from '../util/text.js';
import { isOperation, normalizeOperation, type Operation, RESOURCE_ID, UUID } from './operation.js';

// The API's resources as the step reads them from its answers, each with its parser: an answer is
// `unknown` until each field read has the type the reader needs.

/** Where a project is, under the API base; its resources are below it. */
export const projectPath = (projectId: string): string =>
  `/projects/${encodeURIComponent(projectId)}`;

/** Where a branch of the project is (`…/restore`, `…/databases` below it). */
export const branchPath = (projectId: string, branchId: string): string =>
  `${projectPath(projectId)}/branches/${encodeURIComponent(branchId)}`;

/** A page of List operations: its operations and the cursor of the next page. */
export type OperationsPage = { operations: Operation[]; cursor?: string };

export interface Project {
  id: string;
  name?: string;
  org_id?: string;
}

/** An endpoint, its branch and its hosts: its own (`host`) and its computes' (compute groups). */
export interface EndpointHosts {
  id: string;
  branchId: string;
  host: string;
  /** Each compute's `compute_host` and `compute_pooled_host`, as answered. */
  computeHosts: string[];
}

/** A branch as the step reads it from the API (`Branch` in the OpenAPI document). */
export interface Branch {
  id: string;
  name: string;
  parentId?: string;
  default: boolean;
  protected: boolean;
  /** On the service's clock (RFC 3339). */
  createdAt: string;
  expiresAt?: string;
}

/**
 * A List answer: its `key` array, every item readable (else undefined: an unreadable answer), and
 * the next page's cursor, which the OpenAPI document names `pagination.cursor` for operations
 * (`Pagination`) and `pagination.next` for branches (`CursorPagination`).
 */
export function listOf<T>(
  body: unknown,
  key: string,
  item: (value: unknown) => T | undefined,
  cursor: 'cursor' | 'next' = 'cursor'
): { items: T[]; next?: string } | undefined {
  const fields = fieldsOf(body);
  const list = fields.get(key);
  const items = Array.isArray(list) ? list.map(item).filter((read) => read !== undefined) : [];
  if (!Array.isArray(list) || items.length < list.length) return undefined;
  const next = textOf(fieldsOf(fields.get('pagination')), cursor);
  return { items, ...(next && { next }) };
}

/**
 * An id the API sent goes on to outputs, URLs and the summary, where a later step may put it in a
 * shell line: it must be an id. One that is not makes the answer untrustworthy: an API error.
 */
function checkId(what: string, value: unknown, pattern: RegExp): void {
  if (typeof value === 'string' && pattern.test(value)) return;
  const shown = oneLine(JSON.stringify(value) ?? String(value), 80);
  throw new ApiError(
    `The API answered with a ${what} that is not a valid id (${shown}); it is not passed on.`,
    200
  );
}

/** An operation, the ids the action names checked; other fields are data passed on as written. */
export function operationOf(value: unknown): Operation | undefined {
  if (!isOperation(value)) return undefined;
  const op = normalizeOperation(value);
  checkId('operation id', op.id, UUID);
  checkId('operation "project_id"', op.project_id, RESOURCE_ID);
  return op;
}

export function endpointOf(value: unknown): EndpointHosts | undefined {
  const fields = fieldsOf(value);
  const [id, branchId, host] = ['id', 'branch_id', 'host'].map((key) => textOf(fields, key));
  if (id === undefined || branchId === undefined || host === undefined) return undefined;
  checkId('endpoint id', id, RESOURCE_ID);
  checkId('endpoint "branch_id"', branchId, RESOURCE_ID);
  return { id, branchId, host, computeHosts: computeHostsOf(fields.get('group')) };
}

/** The hosts of a compute group's computes; an endpoint without a group (older answers) has none. */
function computeHostsOf(group: unknown): string[] {
  const computes = fieldsOf(group).get('computes');
  if (!Array.isArray(computes)) return [];
  return computes.flatMap((compute: unknown) => {
    const fields = fieldsOf(compute);
    const hosts = [textOf(fields, 'compute_host'), textOf(fields, 'compute_pooled_host')];
    return hosts.filter((host): host is string => host !== undefined && host !== '');
  });
}

/** A project: its id checked, its name and organisation when the answer has them. */
export function projectOf(value: unknown): Project | undefined {
  const fields = fieldsOf(value);
  const [id, name, orgId] = ['id', 'name', 'org_id'].map((key) => textOf(fields, key));
  if (id === undefined) return undefined;
  checkId('project id', id, RESOURCE_ID);
  return { id, ...(name !== undefined && { name }), ...(orgId !== undefined && { org_id: orgId }) };
}

/** A database of a branch (`GET …/databases`): its name and its owner role; undefined without them. */
export function databaseOf(value: unknown): { name: string; owner: string } | undefined {
  const fields = fieldsOf(value);
  const [name, owner] = [textOf(fields, 'name'), textOf(fields, 'owner_name')];
  return name !== undefined && owner !== undefined ? { name, owner } : undefined;
}

/** A branch of an answer, or undefined when it lacks what the step reads. */
export function branchOf(value: unknown): Branch | undefined {
  const fields = fieldsOf(value);
  const text = (key: string) => textOf(fields, key);
  const id = text('id');
  const name = text('name');
  const createdAt = text('created_at');
  if (!id || !RESOURCE_ID.test(id) || name === undefined || !createdAt) return undefined;
  const parentId = text('parent_id');
  return {
    id,
    name,
    createdAt,
    default: fields.get('default') === true,
    protected: fields.get('protected') === true,
    ...(parentId && RESOURCE_ID.test(parentId) && { parentId }),
    ...(text('expires_at') && { expiresAt: text('expires_at') })
  };
}
