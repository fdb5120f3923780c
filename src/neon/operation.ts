/** An operation as the API returns it. Fields beyond these are kept and passed through untouched. */
export interface Operation {
  id: string;
  project_id: string;
  branch_id?: string;
  endpoint_id?: string;
  /**
   * Any string, shown as written: the service has actions the OpenAPI document's OperationAction
   * enum lacks (`delete_tenant`), and new ones arrive often, so no list is kept to check or label them.
   */
  action: string;
  /** One of `API_STATUSES` (`operation-status.ts`), or a newer one: unknown, taken as in progress. */
  status: string;
  failures_count: number;
  created_at: string;
  updated_at: string;
  total_duration_ms?: number;
  error?: string;
  retry_at?: string;
  [field: string]: unknown;
}

/** An awaited operation the API has not described yet (an id given, not yet answered for). */
export interface UnseenOperation {
  id: string;
  project_id?: undefined;
  branch_id?: undefined;
  endpoint_id?: undefined;
  action?: undefined;
  status?: undefined;
  failures_count?: undefined;
  created_at?: undefined;
  updated_at?: undefined;
  total_duration_ms?: undefined;
  error?: undefined;
  retry_at?: undefined;
}

/** What the wait reports of an awaited operation: as last seen, or its id only. */
export type AwaitedOperation = Operation | UnseenOperation;

/** Whether the API has described the operation (every operation it answered with has a status). */
export const isSeen = (op: AwaitedOperation): op is Operation => op.status !== undefined;

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The API's pattern for project, branch and endpoint ids. */
export const RESOURCE_ID = /^[a-z0-9-]{1,60}$/;

/** What an answer must hold to be taken as an operation; `normalizeOperation` makes the rest. */
export interface OperationLike extends Pick<Operation, 'id' | 'project_id' | 'action' | 'status'> {
  [field: string]: unknown;
}

export function isOperation(value: unknown): value is OperationLike {
  if (typeof value !== 'object' || value === null) return false;
  const fields: Record<string, unknown> = { ...value };
  return ['id', 'project_id', 'action', 'status'].every((key) => typeof fields[key] === 'string');
}

/**
 * The fields this action reads coerced to their documented types (a log line, a sum); others kept.
 * A time the answer lacks is '' (no time: `Date.parse` gives NaN, as for any unreadable one).
 */
export function normalizeOperation(op: OperationLike): Operation {
  const text = (value: unknown): string | undefined =>
    value === undefined || typeof value === 'string' ? value : String(value);
  const failures = Number(op.failures_count);
  const fixed: Operation = {
    ...op,
    id: op.id.toLowerCase(),
    failures_count: Number.isFinite(failures) ? failures : 0,
    created_at: text(op.created_at) ?? '',
    updated_at: text(op.updated_at) ?? ''
  };
  if (op.error !== undefined && typeof op.error !== 'string')
    fixed.error = JSON.stringify(op.error);
  // `null` names no branch or compute, as an absent field does (not a branch called "null").
  for (const field of ['branch_id', 'endpoint_id'] as const)
    if (op[field] === undefined || op[field] === null) delete fixed[field];
    else fixed[field] = text(op[field]);
  return fixed;
}

/** The first 8 characters of a UUID: enough to tell operations apart in a log line. */
export const shortId = (id: string): string => id.slice(0, 8);

/** Where a wait or a report looks: a compute (`endpointId`), else a branch, else the whole project. */
export interface Place {
  branchId?: string;
  endpointId?: string;
}

/**
 * Whether an operation is in the place followed:
 * - a compute: the operations that name it; its branch's and the project's name none and are not
 *   its own (a compute wait gates on that compute alone, wherever the rest stands);
 * - a branch: its own, and the project's own, which name no branch (the `epc_sync` a branch
 *   creation answers since 2026): they act on the whole project, the branch with it, and hold the
 *   project's lock, so a gate on "the branch is ready" that passed while one ran would let the
 *   next step's request meet `423 Locked`, or a creation's last operation fail unseen;
 * - the project: every one.
 */
export function inScope(op: Operation, { branchId, endpointId }: Place): boolean {
  if (endpointId) return op.endpoint_id === endpointId;
  if (branchId) return op.branch_id === branchId || isProjectLevel(op);
  return true;
}

/** An operation on the project as a whole: it names no branch. */
export const isProjectLevel = (op: Operation): boolean => !op.branch_id;
