import { PAGE_SIZE } from '../../neon/paging.js';
import { isAfterMark, predatesMark } from '../job-mark.js';
import { inScope } from '../../neon/operation.js';
import { failed, type ModeContext, type ModeWords } from '../mode.js';
import { aggregateStatus, WAIT_STATUS } from '../status.js';

/** Pages a check reads at most: 5,000 operations started by one job is far beyond any job. */
const JOB_MAX_PAGES = 50;

/**
 * The post step of `watch_job`: every operation of the project (or branch) created since the
 * job's mark, across every page, until none is in progress. One that did not succeed fails the job.
 */
export function jobMode({ settings, tracker, scope, list }: ModeContext) {
  const mark = settings.jobMark;
  // `kindFor` picks this mode only with a mark: its absence is a defect, not a state to carry on in.
  if (mark === undefined) throw new Error('The job mode was chosen without a job mark.');
  return {
    scope,
    goal: `Following every operation this job started on ${scope}`,
    async refresh(deadline: number) {
      for await (const operations of list(deadline, PAGE_SIZE, JOB_MAX_PAGES)) {
        for (const op of operations)
          if (isAfterMark(op, mark) && inScope(op, settings)) tracker.record(op, true);
        // Newest first: once a page reaches back past the mark, older pages hold nothing of the job.
        if (operations.some((op) => predatesMark(op, mark))) break;
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

export const jobWords: ModeWords = {
  subject: 'operations during this job',
  heading: 'Operations during this job',
  section: 'This job',
  counted: 'during this job',
  none: 'This job started no operation.',
  awaitsPlace: false
};
