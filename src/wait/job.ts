import type { NeonClient } from '../neon/client.js';
import { PAGE_SIZE } from '../neon/paging.js';
import type { Operation } from '../neon/operation.js';
import type { JobMark } from './mode.js';

/**
 * The job's starting point: the newest operation the service shows now (all that share its
 * `created_at` are on the first page).
 */
export async function markJobStart(
  client: NeonClient,
  projectId: string,
  deadline: number
): Promise<JobMark> {
  const { operations } = await client.listOperations(projectId, { limit: PAGE_SIZE }, deadline);
  const createdAt = Math.max(
    ...operations.map((op) => Date.parse(op.created_at)).filter(Number.isFinite)
  );
  if (!Number.isFinite(createdAt)) return { projectId, ids: [] };
  return {
    projectId,
    createdAt,
    ids: operations.filter((op) => Date.parse(op.created_at) === createdAt).map((op) => op.id)
  };
}

/** True for an operation created after the mark (the job's), by the service's timestamps and ids. */
export function isAfterMark(op: Operation, mark: JobMark): boolean {
  if (mark.createdAt === undefined) return true;
  const created = Date.parse(op.created_at);
  if (!Number.isFinite(created)) return false;
  return created > mark.createdAt || (created === mark.createdAt && !mark.ids.includes(op.id));
}

/** The mark as `core.saveState` keeps it, and back; undefined when there is none or it is unreadable. */
export function encodeMark(mark: JobMark): string {
  return JSON.stringify(mark);
}

export function decodeMark(text: string): JobMark | undefined {
  if (!text) return undefined;
  try {
    const value = JSON.parse(text) as Partial<JobMark>;
    if (typeof value.projectId !== 'string' || !Array.isArray(value.ids)) return undefined;
    return {
      projectId: value.projectId,
      createdAt: typeof value.createdAt === 'number' ? value.createdAt : undefined,
      ids: value.ids.filter((id): id is string => typeof id === 'string')
    };
  } catch {
    return undefined;
  }
}
