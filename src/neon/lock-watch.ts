import type { NeonClient } from './client.js';
import type { Operation } from './operation.js';
import { isInProgress } from './operation-status.js';
import { CHECK_BUDGET, operationPages, PAGE_SIZE } from './paging.js';
import { oneLine } from '../util/text.js';

// Who holds a project's lock while a request is answered 423 Locked, and when they should end.

/**
 * Each kind's typical duration (ms) among these operations: the project's history, as the wait
 * layer learns it (`typicalDurations` in wait/history.ts), passed in so that neon/ stays below wait/.
 */
export type Durations = (operations: Operation[]) => ReadonlyMap<string, number>;

/**
 * The lock's holders, looked for page after page (issue 36 class 5: a holder older than the 20
 * newest operations was missed). Each look reads the newest 20 (new holders are the newest), then
 * asks by id for the holders seen before that have slipped off it (at most `CHECK_BUDGET.byId`).
 * Once, when that shows none and the page was full, it pages on: pages of 100, at most
 * `DEEP_PAGES`, stopping at a page shorter than asked. An operation listed finished does not run
 * again, and one that starts later is listed first, so one deep scan finds what hides below; what
 * it found is then followed by id. The finished ones read are the project's history.
 */
export class LockWatch {
  /** Holders seen, by id: followed until they end. */
  private readonly held = new Map<string, Operation>();
  private scanned = false;
  /** Every operation read, for what a mutation's kind takes here. */
  readonly seen = new Map<string, Operation>();

  constructor(
    private readonly client: NeonClient,
    private readonly projectId: string
  ) {}

  async holders(deadline: number): Promise<Operation[]> {
    const { client, projectId } = this;
    const page = await client.listOperations(
      projectId,
      { limit: FIRST_LOOK },
      deadline,
      deadline,
      true
    );
    this.read(page.operations);
    const listed = new Set(page.operations.map((op) => op.id));
    const slipped = [...this.held.keys()].filter((id) => !listed.has(id));
    for (const id of slipped.slice(0, CHECK_BUDGET.byId))
      this.read([await client.getOperation(projectId, id, deadline)]);
    const full = page.operations.length >= FIRST_LOOK && page.cursor !== undefined;
    if (this.held.size === 0 && full && !this.scanned) {
      this.scanned = true;
      const first = { ...page, limit: FIRST_LOOK };
      const pages = operationPages(client, projectId, {
        limit: PAGE_SIZE,
        deadline,
        maxPages: DEEP_PAGES,
        first
      });
      for await (const operations of pages) this.read(operations);
    }
    return [...this.held.values()];
  }

  private read(operations: Operation[]): void {
    for (const op of operations) {
      this.seen.set(op.id, op);
      if (isInProgress(op.status)) this.held.set(op.id, op);
      else this.held.delete(op.id);
    }
  }
}

/** The newest operations each look reads. */
const FIRST_LOOK = 20;
/**
 * Pages of 100 one deep scan reads at most (300 operations below the first 20): as deep as the
 * project mode's first check looks (`FIRST_SCAN_PAGES`). A holder deeper than that is ridden out by
 * the bounded backoff of a 423 with no holder in view.
 */
const DEEP_PAGES = 3;

/**
 * Ms until the holders are expected to have ended, by their kinds' typical durations here;
 * undefined when one has no history, or all have run past theirs (then the lock's pace decides).
 */
export function expectedEndIn(
  holders: Operation[],
  typical: ReadonlyMap<string, number>,
  serviceNow: number
): number | undefined {
  let last = 0;
  for (const op of holders) {
    const ms = typical.get(op.action);
    // Whole-second timestamps: on average it began half a second after its created_at.
    const begun = Date.parse(op.created_at) + (/\.\d/.test(op.created_at) ? 0 : 500);
    if (ms === undefined || !Number.isFinite(begun)) return undefined;
    last = Math.max(last, begun + ms - serviceNow);
  }
  return last > 0 ? last : undefined;
}

/** `apply_config 1f2e… on br-x since 12:00:01`: who holds the project. */
export const holderName = (op: Operation): string =>
  `${oneLine(op.action, 40)} ${op.id.slice(0, 4)}…` +
  `${op.branch_id ? ` on ${op.branch_id}` : ''} since ${op.created_at.slice(11, 19)}`;
