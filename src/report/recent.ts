import type { NeonClient, OperationsPage } from '../neon/client.js';
import type { Operation } from '../neon/operation.js';

/** With `branch_id`, at most this many pages are scanned for that branch's operations. */
export const BRANCH_SCAN_PAGES = 5;
const BRANCH_PAGE_SIZE = 200;

export interface RecentOperations {
  operations: Operation[];
  /** Operations looked at (more than shown when filtering by branch). */
  scanned: number;
  requests: number;
  /** The branch scan stopped at its bound before `limit` rows were found and before the end. */
  scanStopped: boolean;
}

/**
 * The project's newest `limit` operations (only `branchId`'s when given), paging with the cursor of
 * the previous page. Paging stops as soon as enough rows are found, on a page shorter than asked,
 * an empty page, a missing cursor or a cursor that did not change: the service returns a cursor
 * even on its last page, so "a cursor is present" never means "there is more".
 */
export async function fetchRecentOperations(
  client: NeonClient,
  projectId: string,
  options: {
    limit: number;
    branchId?: string;
    deadline: number;
    /** The newest page as the wait's last check fetched it: used instead of asking again. */
    newestPage?: OperationsPage & { limit: number };
  }
): Promise<RecentOperations> {
  const { limit, branchId, deadline, newestPage } = options;
  const result: RecentOperations = { operations: [], scanned: 0, requests: 0, scanStopped: false };
  if (limit <= 0) return result;
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    const reuse = page === 0 ? newestPage : undefined;
    const pageSize =
      reuse?.limit ??
      (branchId ? BRANCH_PAGE_SIZE : Math.min(1000, limit - result.operations.length));
    const { operations, cursor: next } =
      reuse ?? (await client.listOperations(projectId, { limit: pageSize, cursor }, deadline));
    if (!reuse) result.requests++;
    for (const op of operations) {
      result.scanned++;
      if (branchId && op.branch_id !== branchId) continue;
      if (result.operations.length < limit) result.operations.push(op);
    }
    const ended = operations.length < pageSize || !next || next === cursor;
    if (ended || result.operations.length >= limit) return result;
    if (branchId && page + 1 >= BRANCH_SCAN_PAGES) {
      result.scanStopped = true;
      return result;
    }
    cursor = next;
  }
}
