import type { NeonClient } from '../neon/client.js';
import { PAGE_SIZE } from '../neon/paging.js';
import type { JobMark } from './mode.js';

/** The job's starting point: the newest operations now (all sharing a `created_at` are on page 1). */
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
  const ids = operations.filter((op) => Date.parse(op.created_at) === createdAt).map((op) => op.id);
  return { projectId, createdAt, ids };
}

/** The mark as `core.saveState` keeps it, and back; undefined when there is none or it is unreadable. */
export function encodeMark(mark: JobMark): string {
  return JSON.stringify(mark);
}

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
