import { type FetchedPage, MAX_PAGE_SIZE, operationPages, PAGE_SIZE } from '../../neon/paging.js';
import type { Conclusion, ModeContext, WaitMode } from '../mode.js';
import { aggregateStatus, type Verdict } from '../status.js';
import { describeFailures } from './describe.js';

/** Pages one check may read beyond those the awaited ids need (for ids created in between). */
const SPARE_PAGES = 2;
/** Operations created this long before the oldest open one may still be listed after it. */
const ORDER_SLACK_MS = 60_000;

/**
 * Waits for the operations named by id. One open operation is fetched by id. Several are refreshed
 * with List requests, newest first, reading only as deep as the oldest open one (a page holds up to
 * 1,000), so 3,000 awaited operations cost a few requests per check; ids that no page holds are
 * fetched by id (and from then on always by id).
 */
export class OperationsMode implements WaitMode {
  readonly kind = 'operations';
  readonly goal: string;
  readonly scope: string;
  private readonly offPage = new Set<string>();
  private page?: FetchedPage;

  constructor(private readonly ctx: ModeContext) {
    this.scope = `project ${ctx.projectId}`;
    this.goal = `Waiting for ${ctx.tracker.size} operation(s) of project ${ctx.projectId}`;
  }

  newestPage(): FetchedPage | undefined {
    return this.page;
  }

  async refresh(deadline: number): Promise<void> {
    const { client, projectId, tracker, settings } = this.ctx;
    this.page = undefined;
    const open = tracker.openIds(settings.failFast);
    let byId = open;
    const listable = open.filter((id) => !this.offPage.has(id));
    if (listable.length >= 2) {
      const wanted = new Set(listable);
      const limit = listable.length > PAGE_SIZE / 2 ? MAX_PAGE_SIZE : PAGE_SIZE;
      const oldest = tracker.oldestOpen(settings.failFast);
      const pages = operationPages(client, projectId, {
        limit,
        deadline,
        maxPages: Math.ceil(listable.length / limit) + SPARE_PAGES,
        onPage: (page) => (this.page ??= page)
      });
      for await (const operations of pages) {
        for (const op of operations) {
          if (!tracker.has(op.id)) continue;
          tracker.record(op);
          wanted.delete(op.id);
        }
        const last = Date.parse(operations.at(-1)?.created_at ?? '');
        const pastOldest = oldest !== undefined && last < oldest - ORDER_SLACK_MS;
        if (wanted.size === 0 || pastOldest) break;
      }
      const listed = new Set(listable);
      byId = open.filter((id) => !listed.has(id) || wanted.has(id));
      for (const id of wanted) this.offPage.add(id);
    }
    for (const id of byId) tracker.record(await client.getOperation(projectId, id, deadline));
  }

  verdict(): Verdict {
    return this.ctx.tracker.verdict(this.ctx.settings.failFast);
  }

  conclude(): Conclusion {
    const { tracker, settings } = this.ctx;
    const status = aggregateStatus(tracker.seen().map((op) => op.status));
    if (!settings.wait || this.verdict() !== 'failure') return { status };
    const failed = tracker.failures(settings.failFast);
    return { status, failure: `Operation(s) did not succeed: ${describeFailures(failed)}` };
  }
}
