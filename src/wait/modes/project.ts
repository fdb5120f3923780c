import { PAGE_SIZE } from '../../neon/paging.js';
import { failed, type ModeContext, onBranch } from '../mode.js';
import { isInProgress, WAIT_STATUS } from '../status.js';

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
      const listed = new Set<string>();
      for await (const operations of list(deadline, PAGE_SIZE, checks++ ? 1 : FIRST_SCAN_PAGES)) {
        for (const op of operations.filter((o) => onBranch(o, settings))) {
          listed.add(op.id);
          tracker.record(op, isInProgress(op.status));
        }
      }
      // Operations still in progress that slipped off the newest page are followed by id.
      const slipped = tracker.seen().filter((op) => !listed.has(op.id) && isInProgress(op.status));
      for (const op of slipped)
        tracker.record(await client.getOperation(projectId, op.id, deadline));
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
