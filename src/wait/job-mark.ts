import type { NeonClient } from '../neon/client.js';
import { PAGE_SIZE } from '../neon/paging.js';
import type { Operation } from '../neon/operation.js';
import type { Clock } from '../util/clock.js';

/**
 * Where the job's watch began, in the service's own terms: the service's time when the main step
 * asked (whole seconds, as `created_at` is written) and the ids of the operations then visible from
 * that instant on. An operation is the job's when it is newer than that, whatever the runner's
 * clock says, and whatever time a row already there claims.
 */
export interface JobMark {
  projectId: string;
  /** Epoch ms on the service's clock; undefined only in a mark from an older version without one. */
  createdAt?: number;
  ids: string[];
}

/** True for an operation created after the mark (the job's): not there then, and not older. */
export function isAfterMark(op: Operation, mark: JobMark): boolean {
  if (mark.ids.includes(op.id)) return false;
  if (mark.createdAt === undefined) return true;
  return Date.parse(op.created_at) >= mark.createdAt; // NaN: not after
}

/** True for an operation dated before the mark: in a List (newest first), no later page holds the job's. */
export const predatesMark = (op: Operation, mark: JobMark): boolean =>
  Date.parse(op.created_at) < (mark.createdAt ?? -Infinity);

/**
 * The job's starting point: a time the service's clock had surely reached when the List was asked
 * (from its `Date` headers; the runner's time if it sends none), never a row's timestamp (one dated
 * ahead would hide the job's operations), and the operations already there that are not older.
 */
export async function markJobStart(
  client: NeonClient,
  projectId: string,
  deadline: number,
  clock: Clock
): Promise<JobMark> {
  const askedAt = clock.now();
  const { operations } = await client.listOperations(projectId, { limit: PAGE_SIZE }, deadline);
  const createdAt = Math.floor(client.serviceClock.reachedBy(askedAt) / 1000) * 1000;
  // Newest first, so all of them are on this page; an unreadable time is not after the mark either.
  const ids = operations
    .filter((op) => !(Date.parse(op.created_at) < createdAt))
    .map((op) => op.id);
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
