import type { NeonClient } from './client.js';
import type { Operation } from './operation.js';
import type { OperationsPage } from './resources.js';

/** Operations asked for per List request while following a few: small, quick answers. */
export const PAGE_SIZE = 100;
/** The largest page the API serves (about 0.5 MB of operations). */
export const MAX_PAGE_SIZE = 1000;

/**
 * Requests one check may spend, whatever the spread of what it follows: List pages, then
 * operations fetched by id (those the pages did not hold, the longest unheard first). Jobs of an
 * account share 700 requests a minute.
 */
export const CHECK_BUDGET = { pages: 4, byId: 3 } as const;

/** Operations created this long before another may still be listed after it (newest first). */
export const ORDER_SLACK_MS = 60_000;

/** The limit for each page of a check: `first`, then the largest (deeper pages go far back). */
export function deepening(first: number): () => number {
  let pages = 0;
  return () => (pages++ === 0 ? first : MAX_PAGE_SIZE);
}

/** A page of List operations as fetched, with the limit it was asked with (so a reader can reuse it). */
export type FetchedPage = OperationsPage & { limit: number };

interface PagingOptions {
  limit: number | (() => number);
  deadline: number;
  /** When to give up faults other than 429 (see `NeonClient.listOperations`). */
  patience?: number;
  maxPages: number;
  /** A page already fetched with this limit: used as the first page instead of asking again. */
  first?: FetchedPage;
  onPage?: (page: FetchedPage) => void;
  /** Set to true when paging stopped at `maxPages` while the service had more to give. */
  bound?: { reached: boolean };
}

/** One page of a list as read: its items, the next page's cursor, and the limit it was asked with. */
export interface Page<T> {
  items: T[];
  next?: string;
  limit: number;
}

/**
 * Every page of a list, each item once, newest first: the one pager of the API's lists. The
 * service returns a cursor even on its last page, so paging stops on a page shorter than asked, a
 * missing or unchanged cursor, a page that adds nothing new (a cursor that loops, pages that
 * overlap), and after `maxPages` requests (`bound.reached` then says so). The consumer may stop
 * early (`break`).
 */
export async function* pages<T extends { id: string }>(
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
  options: { maxPages: number; first?: Page<T>; bound?: { reached: boolean } }
): AsyncGenerator<T[]> {
  const { maxPages, bound } = options;
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let requests = 0, page = options.first; ; page = undefined) {
    if (!page && requests++ >= maxPages) {
      if (bound) bound.reached = true;
      return;
    }
    page ??= await fetchPage(cursor);
    const fresh = page.items.filter((item) => !seen.has(item.id));
    if (fresh.length === 0) return;
    for (const item of fresh) seen.add(item.id);
    yield fresh;
    if (page.items.length < page.limit || !page.next || page.next === cursor) return;
    cursor = page.next;
  }
}

/** The project's operations, newest first, page after page (`pages`), by `List operations`. */
export function operationPages(
  client: NeonClient,
  projectId: string,
  options: PagingOptions
): AsyncGenerator<Operation[]> {
  const { limit, deadline, patience, first } = options;
  const asPage = (page: FetchedPage): Page<Operation> => {
    options.onPage?.(page);
    return { items: page.operations, next: page.cursor, limit: page.limit };
  };
  const fetchPage = async (cursor: string | undefined) => {
    const asked = typeof limit === 'function' ? limit() : limit;
    const page = await client.listOperations(
      projectId,
      { limit: asked, cursor },
      deadline,
      patience
    );
    return asPage({ ...page, limit: asked });
  };
  return pages(fetchPage, { ...options, first: first && asPage(first) });
}
