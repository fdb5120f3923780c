import type { NeonClient } from './client.js';
import { inScope, type Operation, type Place } from './operation.js';
import { type FetchedPage, MAX_PAGE_SIZE, operationPages } from './paging.js';

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
  /** With `since`: the operations are those created since then (epoch ms). */
  since?: number;
}

/** With `since`, pages read at most (50,000 operations: far more than a PR's preview branch sees). */
const SINCE_MAX_PAGES = 50;

/**
 * The project's newest `limit` operations (only those of a compute or a branch, when given: `place`),
 * each once, asking for no more than is still missing.
 */
export async function fetchRecentOperations(
  client: NeonClient,
  projectId: string,
  options: {
    limit: number;
    place?: Place;
    deadline: number;
    /** The newest page as the wait's last check fetched it: used instead of asking again. */
    newestPage?: FetchedPage;
    /** Only operations created since then (epoch ms), across every page. */
    since?: number;
  }
): Promise<RecentOperations> {
  const { limit, place = {}, deadline, newestPage, since } = options;
  // A compute's or a branch's operations are scattered among the project's: pages are scanned.
  const narrow = place.branchId !== undefined || place.endpointId !== undefined;
  const result: RecentOperations = { operations: [], scanned: 0, requests: 0, scanStopped: false };
  if (since !== undefined) result.since = since;
  if (limit <= 0) return result;
  const bound = { reached: false };
  const pageSize = (): number => {
    if (since !== undefined) return MAX_PAGE_SIZE;
    return narrow ? BRANCH_PAGE_SIZE : Math.min(MAX_PAGE_SIZE, limit - result.operations.length);
  };
  const maxPages =
    since !== undefined ? SINCE_MAX_PAGES : narrow ? BRANCH_SCAN_PAGES : Number.POSITIVE_INFINITY;
  const inTime = (op: Operation) => since === undefined || Date.parse(op.created_at) >= since;
  const pages = operationPages(client, projectId, {
    limit: pageSize,
    deadline,
    maxPages,
    first: newestPage,
    onPage: (page) => (result.requests += page === newestPage ? 0 : 1),
    bound
  });
  for await (const operations of pages) {
    result.scanned += operations.length;
    const recent = operations.filter(inTime);
    const wanted = recent.filter((op) => inScope(op, place));
    result.operations.push(...wanted.slice(0, limit - result.operations.length));
    // Newest first: a page that reaches back before `since` is the last one needed.
    if (result.operations.length >= limit || recent.length < operations.length) break;
  }
  result.scanStopped = bound.reached;
  return result;
}
