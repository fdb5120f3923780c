import { CHECK_BUDGET, deepening, ORDER_SLACK_MS, PAGE_SIZE } from '../../neon/paging.js';
import { inScope } from '../../neon/operation.js';
import { failed, type ModeContext, type ModeWords } from '../mode.js';
import { isInProgress } from '../../neon/operation-status.js';
import { WAIT_STATUS } from '../status.js';

/** The first check looks this many pages deep for work started earlier. */
const FIRST_SCAN_PAGES = 3;

/**
 * Until no operation of the project (or branch) is in progress. Those found in progress are
 * followed until they end; one that ends badly fails the wait once the project is idle (at once
 * with fail_fast): a gate must not pass on it.
 */
export function projectMode({ client, projectId, settings, tracker, scope, list }: ModeContext) {
  const { policy } = settings;
  let checks = 0;
  return {
    scope,
    goal: `Waiting until no operation of ${scope} is in progress`,
    async refresh(deadline: number) {
      const first = checks++ === 0;
      const followed = tracker.seen().filter((op) => isInProgress(op.status));
      const oldest = Math.min(...followed.map((op) => Date.parse(op.created_at)));
      const unlisted = new Set(followed.map((op) => op.id));
      const [limit, maxPages] = first
        ? [PAGE_SIZE, FIRST_SCAN_PAGES]
        : [deepening(PAGE_SIZE), CHECK_BUDGET.pages];
      for await (const operations of list(deadline, limit, maxPages)) {
        for (const op of operations.filter((o) => inScope(o, settings))) {
          unlisted.delete(op.id);
          tracker.record(op, isInProgress(op.status));
        }
        // Later checks page only as deep as the oldest operation followed in progress.
        const last = Date.parse(operations.at(-1)?.created_at ?? '');
        if (!first && (unlisted.size === 0 || last < oldest - ORDER_SLACK_MS)) break;
      }
      // Those still in progress that slipped off the pages read: a few by id per check.
      for (const id of tracker.stalest([...unlisted], CHECK_BUDGET.byId))
        tracker.record(await client.getOperation(projectId, id, deadline));
    },
    verdict: () => tracker.verdict(policy, true),
    conclude() {
      const failures = settings.wait ? tracker.failures(policy) : [];
      if (failures.length) return failed(`Operation(s) of ${scope}`, failures);
      // Nothing open once a wait ends on its verdict; `wait: false` reports what is.
      return {
        status: tracker.openIds({ ...policy, failFast: false }).length
          ? WAIT_STATUS.busy
          : WAIT_STATUS.idle
      };
    }
  };
}

export const projectWords: ModeWords = {
  subject: 'project activity',
  heading: 'Operations seen in progress',
  section: 'Seen in progress',
  counted: 'seen in progress',
  none: 'No operation was in progress.',
  awaitsPlace: true
};
