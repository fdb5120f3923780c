import {
  CHECK_BUDGET,
  deepening,
  MAX_PAGE_SIZE,
  ORDER_SLACK_MS,
  PAGE_SIZE
} from '../../neon/paging.js';
import { CancelledError, DeadlineError } from '../../util/errors.js';
import { failed, type ModeContext, type ModeWords } from '../mode.js';
import { aggregateStatus } from '../status.js';

/**
 * The first check's List brings the project's history, an optimisation: its faults are retried this
 * long (429s until the deadline; a refusal not at all), then the awaited operations are asked for by
 * id.
 */
const FIRST_LIST_MS = 5_000;

/**
 * The ids given. One open operation is fetched by id (after the first check); several are
 * refreshed with List requests, newest first, only as deep as the oldest open one (a page holds up
 * to 1,000), so 3,000 awaited operations cost a few requests per check. Ids the pages did not hold
 * are fetched by id from then on, a few per check, the longest unheard first: requests per check
 * stay within `CHECK_BUDGET` however the open ones are spread through the list.
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
      const unheard = new Set(open);
      const listable = open.filter((id) => !offPage.has(id));
      const first = checks++ === 0;
      // The first check lists even for one: its page brings the project's history along.
      if (listable.length > (first ? 0 : 1)) {
        const wanted = new Set(listable);
        const limit = listable.length > PAGE_SIZE / 2 ? MAX_PAGE_SIZE : PAGE_SIZE;
        const oldest = tracker.oldestOpen(policy);
        const maxPages = listable.length > 1 ? CHECK_BUDGET.pages : 1;
        const patience = first ? tracker.now() + FIRST_LIST_MS : deadline;
        const throttled = client.throttled;
        try {
          for await (const operations of list(deadline, deepening(limit), maxPages, patience)) {
            for (const op of operations) {
              tracker.record(op);
              wanted.delete(op.id);
              unheard.delete(op.id);
            }
            const last = Date.parse(operations.at(-1)?.created_at ?? '');
            if (wanted.size === 0 || (oldest !== undefined && last < oldest - ORDER_SLACK_MS))
              break;
          }
          for (const id of wanted) offPage.add(id);
        } catch (error) {
          // The List is an optimisation: the awaited operations' own answers decide, unless its
          // faults lasted the whole wait (429s are retried until the deadline).
          const lasted = patience >= deadline || client.throttled > throttled;
          const over = error instanceof DeadlineError && lasted;
          if (over || error instanceof CancelledError) throw error;
        }
      }
      for (const id of tracker.stalest([...unheard], CHECK_BUDGET.byId))
        tracker.record(await client.getOperation(projectId, id, deadline));
    },
    verdict: () => tracker.verdict(policy),
    conclude() {
      if (settings.wait && tracker.verdict(policy) === 'failure')
        return failed('Operation(s)', tracker.failures(policy));
      return { status: aggregateStatus(tracker.seen().map((op) => op.status)) };
    }
  };
}

export const operationsWords: ModeWords = {
  subject: 'operations',
  heading: 'Awaited operations',
  section: 'Awaited',
  counted: 'awaited',
  none: '',
  awaitsPlace: false
};
