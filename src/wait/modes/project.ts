import { type FetchedPage, operationPages, PAGE_SIZE } from '../../neon/paging.js';
import type { Conclusion, ModeContext, WaitMode } from '../mode.js';
import { isInProgress, type Verdict, WAIT_STATUS } from '../status.js';
import { failed, scopeOf } from './describe.js';

/** The first check looks this many pages deep for work started earlier. */
const FIRST_SCAN_PAGES = 3;

/**
 * Waits until no operation of the project (or of one branch) is in progress. Operations found in
 * progress become awaited ones, followed until they end; one that ends badly fails the wait once
 * the project is idle (at once with fail_fast): a gate must not pass on it.
 */
export class ProjectMode implements WaitMode {
  readonly kind = 'project';
  readonly goal: string;
  readonly scope: string;
  private checks = 0;
  private page?: FetchedPage;

  constructor(private readonly ctx: ModeContext) {
    this.scope = scopeOf(ctx.projectId, ctx.settings.branchId);
    this.goal = `Waiting until no operation of ${this.scope} is in progress`;
  }

  newestPage(): FetchedPage | undefined {
    return this.page;
  }

  async refresh(deadline: number): Promise<void> {
    const { client, projectId, tracker, settings } = this.ctx;
    this.page = undefined;
    const onPage = new Set<string>();
    const pages = operationPages(client, projectId, {
      limit: PAGE_SIZE,
      deadline,
      maxPages: this.checks++ === 0 ? FIRST_SCAN_PAGES : 1,
      onPage: (page) => (this.page ??= page)
    });
    for await (const operations of pages) {
      for (const op of operations) {
        if (settings.branchId && op.branch_id !== settings.branchId) continue;
        onPage.add(op.id);
        if (tracker.has(op.id)) tracker.record(op);
        else if (isInProgress(op.status)) tracker.adopt(op);
      }
    }
    // Operations still in progress that slipped off the newest page are followed by id.
    for (const op of tracker.seen()) {
      if (!onPage.has(op.id) && isInProgress(op.status))
        tracker.record(await client.getOperation(projectId, op.id, deadline));
    }
  }

  verdict(): Verdict {
    return this.ctx.tracker.settledVerdict(this.ctx.settings.failFast);
  }

  conclude(): Conclusion {
    const { tracker, settings } = this.ctx;
    if (!settings.wait) {
      const busy = tracker.openIds(false).length > 0;
      return { status: busy ? WAIT_STATUS.busy : WAIT_STATUS.idle };
    }
    // Idle, but work this wait followed may not have succeeded.
    const failures = tracker.failures(settings.failFast);
    return failures.length
      ? failed(`Operation(s) of ${this.scope}`, failures)
      : { status: WAIT_STATUS.idle };
  }
}
