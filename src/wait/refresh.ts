import type { NeonClient, OperationsPage } from '../neon/client.js';
import { isInProgress } from './status.js';
import type { OperationTracker } from './tracker.js';

/** Newest operations fetched in one List request; awaited operations are nearly always among them. */
export const LIST_LIMIT = 100;
/** Project mode looks this many pages deep on its first check for work started earlier. */
const FIRST_SCAN_PAGES = 3;

/**
 * Brings the tracker up to date with as few requests as it can: one open operation is fetched by id;
 * several are refreshed with one List request of the newest page, and only those not on it are
 * fetched by id (and from then on always by id).
 */
/** The newest page of List operations as the last check saw it, for the summary to reuse. */
export type NewestPage = OperationsPage & { limit: number };

export class OperationRefresher {
  private readonly offPage = new Set<string>();
  newestPage?: NewestPage;

  constructor(
    private readonly client: NeonClient,
    private readonly projectId: string,
    private readonly tracker: OperationTracker,
    private readonly failFast: boolean
  ) {}

  async refresh(deadline: number): Promise<void> {
    this.newestPage = undefined;
    const open = this.tracker.openIds(this.failFast);
    const listable = open.filter((id) => !this.offPage.has(id));
    let byId = open;
    if (listable.length >= 2) {
      const page = await this.client.listOperations(
        this.projectId,
        { limit: LIST_LIMIT },
        deadline
      );
      this.newestPage = { ...page, limit: LIST_LIMIT };
      const found = new Set<string>();
      for (const op of page.operations) {
        if (this.tracker.has(op.id)) {
          this.tracker.record(op);
          found.add(op.id);
        }
      }
      byId = open.filter((id) => !found.has(id));
      for (const id of byId) this.offPage.add(id);
    }
    for (const id of byId) {
      this.tracker.record(await this.client.getOperation(this.projectId, id, deadline));
    }
  }
}

/**
 * Project mode: the project (or one branch of it) is idle when none of its operations is in
 * progress. Operations found in progress become awaited ones, followed until they end.
 */
export class ProjectRefresher {
  private checks = 0;
  newestPage?: NewestPage;

  constructor(
    private readonly client: NeonClient,
    private readonly projectId: string,
    private readonly branchId: string | undefined,
    private readonly tracker: OperationTracker
  ) {}

  async refresh(deadline: number): Promise<void> {
    const pages = this.checks++ === 0 ? FIRST_SCAN_PAGES : 1;
    const onPage = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < pages; page++) {
      const result = await this.client.listOperations(
        this.projectId,
        { limit: LIST_LIMIT, cursor },
        deadline
      );
      if (page === 0) this.newestPage = { ...result, limit: LIST_LIMIT };
      for (const op of result.operations) {
        if (this.branchId && op.branch_id !== this.branchId) continue;
        onPage.add(op.id);
        if (this.tracker.has(op.id)) this.tracker.record(op);
        else if (isInProgress(op.status)) this.tracker.adopt(op);
      }
      if (result.operations.length < LIST_LIMIT || !result.cursor || result.cursor === cursor)
        break;
      cursor = result.cursor;
    }
    // In-progress operations that slipped off the newest page are followed by id.
    for (const op of this.tracker.seen()) {
      if (!onPage.has(op.id) && isInProgress(op.status)) {
        this.tracker.record(await this.client.getOperation(this.projectId, op.id, deadline));
      }
    }
  }
}
