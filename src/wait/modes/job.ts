import { PAGE_SIZE } from '../../neon/paging.js';
import { isAfterMark, type JobMark } from '../job.js';
import { failed, type ModeContext, onBranch } from '../mode.js';
import { aggregateStatus, WAIT_STATUS } from '../status.js';

/** Pages a check reads at most: 5,000 operations started by one job is far beyond any job. */
const JOB_MAX_PAGES = 50;

/**
 * The post step of `watch_job`: every operation of the project (or branch) created since the
 * job's mark, across every page, until none is in progress. One that did not succeed fails the job.
 */
export function jobMode({ settings, tracker, scope, list }: ModeContext) {
  const mark = settings.jobMark as JobMark;
  return {
    scope,
    goal: `Following every operation this job started on ${scope}`,
    async refresh(deadline: number) {
      for await (const operations of list(deadline, PAGE_SIZE, JOB_MAX_PAGES)) {
        for (const op of operations)
          if (isAfterMark(op, mark) && onBranch(op, settings)) tracker.record(op, true);
        // Newest first: once a page reaches back past the mark, older pages hold nothing of the job.
        if (operations.some((op) => !isAfterMark(op, mark))) break;
      }
    },
    verdict: () => tracker.verdict(settings.policy, true),
    conclude() {
      const failures = tracker.failures(settings.policy);
      if (failures.length) return failed(`Operation(s) this job started on ${scope}`, failures);
      const statuses = tracker.seen().map((op) => op.status);
      return { status: statuses.length ? aggregateStatus(statuses) : WAIT_STATUS.idle };
    }
  };
}
