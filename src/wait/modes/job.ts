import { type FetchedPage, operationPages, PAGE_SIZE } from '../../neon/paging.js';
import { isAfterMark } from '../job.js';
import type { Conclusion, JobMark, ModeContext, WaitMode } from '../mode.js';
import { aggregateStatus, type Verdict, WAIT_STATUS } from '../status.js';
import { failed, scopeOf } from './describe.js';

/** Pages read per check at most: 5,000 operations started by one job is far beyond any real job. */
const MAX_PAGES = 50;

/**
 * The post step of `watch_job`: every operation of the project (or of `branch_id`) created since
 * the job's mark, across every page, followed until none is in progress. One that did not succeed
 * (`error`, `cancelled`, or `failed` with no retry in sight) fails the job, named.
 */
export class JobMode implements WaitMode {
  readonly kind = 'job';
  readonly goal: string;
  readonly scope: string;
  private page?: FetchedPage;

  constructor(
    private readonly ctx: ModeContext,
    private readonly mark: JobMark
  ) {
    this.scope = scopeOf(ctx.projectId, ctx.settings.branchId);
    this.goal = `Following every operation this job started on ${this.scope}`;
  }

  newestPage(): FetchedPage | undefined {
    return this.page;
  }

  async refresh(deadline: number): Promise<void> {
    const { client, projectId, tracker, settings } = this.ctx;
    this.page = undefined;
    const pages = operationPages(client, projectId, {
      limit: PAGE_SIZE,
      deadline,
      maxPages: MAX_PAGES,
      onPage: (page) => (this.page ??= page)
    });
    for await (const operations of pages) {
      for (const op of operations) {
        if (!isAfterMark(op, this.mark)) continue;
        if (settings.branchId && op.branch_id !== settings.branchId) continue;
        tracker.adopt(op);
      }
      // Newest first: once a page reaches back past the mark, older pages hold nothing of the job.
      if (operations.some((op) => !isAfterMark(op, this.mark))) break;
    }
  }

  verdict(): Verdict {
    return this.ctx.tracker.settledVerdict(this.ctx.settings.failFast);
  }

  conclude(): Conclusion {
    const { tracker, settings } = this.ctx;
    const failures = tracker.failures(settings.failFast);
    if (failures.length) return failed(`Operation(s) this job started on ${this.scope}`, failures);
    const seen = tracker.seen();
    return {
      status: seen.length ? aggregateStatus(seen.map((op) => op.status)) : WAIT_STATUS.idle
    };
  }
}
