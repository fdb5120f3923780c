import { CHECK_BUDGET, deepening, ORDER_SLACK_MS, PAGE_SIZE } from '../../neon/paging.js';
import { isAfterMark, predatesMark } from '../job-mark.js';
import { inScope } from '../../neon/operation.js';
import { failed, type ModeContext, type ModeWords } from '../mode.js';
import { aggregateStatus, WAIT_STATUS } from '../status.js';

/**
 * Pages the first check reads at most, back to the mark: 1,000 a page after the first, so 50
 * hold about 49,000 operations, far beyond any job (the account's 700 requests a minute).
 */
const JOB_MAX_PAGES = 50;

/**
 * The post step of `watch_job`: every operation of the project (or branch) created since the
 * job's mark, until none is in progress. One that did not succeed fails the job.
 *
 * The first check reads back to the mark, across every page, to learn the job's operations. Later
 * checks keep round five's bound (`CHECK_BUDGET`) however many the job started, as the ids mode
 * does: they read the newest pages only as deep as new operations may be (the newest one known,
 * less the listing's slack) and as the oldest one still open, and fetch by id, a few a check, the
 * open ones those pages did not hold.
 */
export function jobMode({ client, projectId, settings, tracker, scope, list }: ModeContext) {
  const mark = settings.jobMark;
  // `kindFor` picks this mode only with a mark: its absence is a defect, not a state to carry on in.
  if (mark === undefined) throw new Error('The job mode was chosen without a job mark.');
  const { policy } = settings;
  /** Creation time of the job's newest operation found (undefined: none yet, read to the mark). */
  let newest: number | undefined;
  let checks = 0;
  return {
    scope,
    goal: `Following every operation this job started on ${scope}`,
    async refresh(deadline: number) {
      const first = checks++ === 0;
      const unlisted = new Set(tracker.openIds(policy));
      const oldest = tracker.oldestOpen(policy);
      // Older than this, no page can hold an operation the last check did not already see.
      const seenBelow = newest === undefined ? undefined : newest - ORDER_SLACK_MS;
      const maxPages = first ? JOB_MAX_PAGES : CHECK_BUDGET.pages;
      for await (const operations of list(deadline, deepening(PAGE_SIZE), maxPages)) {
        for (const op of operations) {
          unlisted.delete(op.id);
          if (!isAfterMark(op, mark) || !inScope(op, settings)) continue;
          tracker.record(op, true);
          newest = Math.max(newest ?? -Infinity, Date.parse(op.created_at));
        }
        // Newest first: once a page reaches back past the mark, older pages hold nothing of the job.
        if (operations.some((op) => predatesMark(op, mark))) break;
        const last = Date.parse(operations.at(-1)?.created_at ?? '');
        const newFound = seenBelow !== undefined && last < seenBelow;
        const openFound =
          unlisted.size === 0 || (oldest !== undefined && last < oldest - ORDER_SLACK_MS);
        if (!first && newFound && openFound) break;
      }
      // Those still open that the pages read did not hold: a few by id per check.
      for (const id of tracker.stalest([...unlisted], CHECK_BUDGET.byId))
        tracker.record(await client.getOperation(projectId, id, deadline));
    },
    verdict: () => tracker.verdict(policy, true),
    conclude() {
      const failures = tracker.failures(policy);
      if (failures.length) return failed(`Operation(s) this job started on ${scope}`, failures);
      const statuses = tracker.seen().map((op) => op.status);
      return { status: statuses.length ? aggregateStatus(statuses) : WAIT_STATUS.idle };
    }
  };
}

export const jobWords: ModeWords = {
  subject: 'operations during this job',
  heading: 'Operations during this job',
  section: 'This job',
  counted: 'during this job',
  none: 'This job started no operation.',
  awaitsPlace: false
};
