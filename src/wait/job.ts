import type { NeonClient } from '../neon/client.js';
import { PAGE_SIZE } from '../neon/paging.js';
import type { Operation } from '../neon/operation.js';

/**
 * Where the project's operations stood when the job's watch began, in the service's own terms: the
 * newest operation then visible (its `created_at`) and every id that shared that instant. An
 * operation is the job's when it is newer than that, whatever the runner's clock says.
 */
export interface JobMark {
  projectId: string;
  /** Epoch ms; undefined for a project without any operation. */
  createdAt?: number;
  ids: string[];
}

/** True for an operation created after the mark (the job's), by the service's timestamps and ids. */
export function isAfterMark(op: Operation, mark: JobMark): boolean {
  if (mark.createdAt === undefined) return true;
  const created = Date.parse(op.created_at); // NaN: not after
  return created > mark.createdAt || (created === mark.createdAt && !mark.ids.includes(op.id));
}

/** The job's starting point: the newest operations now (all sharing a `created_at` are on page 1). */
export async function markJobStart(
  client: NeonClient,
  projectId: string,
  deadline: number
): Promise<JobMark> {
  const { operations } = await client.listOperations(projectId, { limit: PAGE_SIZE }, deadline);
  const times = operations.map((op) => Date.parse(op.created_at));
  const createdAt = Math.max(...times.filter(Number.isFinite));
  if (!Number.isFinite(createdAt)) return { projectId, ids: [] };
  const ids = operations.filter((_, i) => times[i] === createdAt).map((op) => op.id);
  return { projectId, createdAt, ids };
}

/** The mark as `core.saveState` keeps it, and back; undefined when there is none or it is unreadable. */
export const encodeMark = (mark: JobMark): string => JSON.stringify(mark);

export function decodeMark(text: string): JobMark | undefined {
  try {
    const { projectId, createdAt, ids } = JSON.parse(text) as Partial<JobMark>;
    if (typeof projectId !== 'string' || !Array.isArray(ids)) return undefined;
    const known = typeof createdAt === 'number' ? createdAt : undefined;
    return { projectId, createdAt: known, ids: ids.filter((id) => typeof id === 'string') };
  } catch {
    return undefined;
  }
}
