import { MAX_PAGE_SIZE, PAGE_SIZE } from '../../neon/paging.js';
import { failed, type ModeContext } from '../mode.js';
import { aggregateStatus } from '../status.js';

/** Pages one check may read beyond those the awaited ids need (for ids created in between). */
const SPARE_PAGES = 2;
/** Operations created this long before the oldest open one may still be listed after it. */
const ORDER_SLACK_MS = 60_000;

/**
 * The ids given. One open operation is fetched by id (after the first check); several are
 * refreshed with List requests, newest first, only as deep as the oldest open one (a page holds up
 * to 1,000), so 3,000 awaited operations cost a few requests per check. Ids no page holds are
 * fetched by id from then on.
 */
export function operationsMode({ client, projectId, settings, tracker, list }: ModeContext) {
  const { policy } = settings;
  const offPage = new Set<string>();
  let checks = 0;
  return {
    scope: `project ${projectId}`,
    goal: `Waiting for ${tracker.list().length} operation(s) of project ${projectId}`,
    async refresh(deadline: number) {
      const open = tracker.openIds(policy);
      const listable = open.filter((id) => !offPage.has(id));
      // The first check lists even for one: its page brings the project's history along.
      const listing = listable.length > (checks++ === 0 ? 0 : 1);
      if (listing) {
        const wanted = new Set(listable);
        const limit = listable.length > PAGE_SIZE / 2 ? MAX_PAGE_SIZE : PAGE_SIZE;
        const oldest = tracker.oldestOpen(policy);
        const maxPages = listable.length > 1 ? Math.ceil(listable.length / limit) + SPARE_PAGES : 1;
        for await (const operations of list(deadline, limit, maxPages)) {
          for (const op of operations) tracker.record(op);
          for (const op of operations) wanted.delete(op.id);
          const last = Date.parse(operations.at(-1)?.created_at ?? '');
          if (wanted.size === 0 || (oldest !== undefined && last < oldest - ORDER_SLACK_MS)) break;
        }
        for (const id of wanted) offPage.add(id);
      }
      const byId = listing ? open.filter((id) => offPage.has(id)) : open;
      for (const id of byId) tracker.record(await client.getOperation(projectId, id, deadline));
    },
    verdict: () => tracker.verdict(policy),
    conclude() {
      if (settings.wait && tracker.verdict(policy) === 'failure')
        return failed('Operation(s)', tracker.failures(policy));
      return { status: aggregateStatus(tracker.seen().map((op) => op.status)) };
    }
  };
}
