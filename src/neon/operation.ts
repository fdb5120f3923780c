/** An operation as the API returns it. Fields beyond these are kept and passed through untouched. */
export interface Operation {
  id: string;
  project_id: string;
  branch_id?: string;
  endpoint_id?: string;
  action: string;
  status: string;
  failures_count: number;
  created_at: string;
  updated_at: string;
  total_duration_ms?: number;
  error?: string;
  retry_at?: string;
  [field: string]: unknown;
}

export interface Project {
  id: string;
  name?: string;
  org_id?: string;
  [field: string]: unknown;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The API's pattern for project, branch and endpoint ids. */
export const RESOURCE_ID = /^[a-z0-9-]{1,60}$/;

export const isOperation = (value: unknown): value is Operation =>
  typeof value === 'object' &&
  value !== null &&
  ['id', 'project_id', 'action', 'status'].every(
    (key) => typeof (value as Operation)[key] === 'string'
  );

/** The fields this action reads coerced to their documented types (a log line, a sum); others kept. */
export function normalizeOperation(op: Operation): Operation {
  const fixed: Operation = { ...op, id: op.id.toLowerCase() };
  if (op.error !== undefined && typeof op.error !== 'string')
    fixed.error = JSON.stringify(op.error);
  const failures = Number(op.failures_count);
  fixed.failures_count = Number.isFinite(failures) ? failures : 0;
  for (const field of ['created_at', 'updated_at', 'branch_id', 'endpoint_id'] as const)
    if (op[field] !== undefined && typeof op[field] !== 'string') fixed[field] = String(op[field]);
  return fixed;
}

/** The first 8 characters of a UUID: enough to tell operations apart in a log line. */
export const shortId = (id: string): string => id.slice(0, 8);
