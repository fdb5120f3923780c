import type { MainVerdict, Report } from '../report/model.js';
import * as state from './job-state.js';
import { runAction } from './main.js';

/**
 * The post step (`post-if: always()`): with `watch_job`, every operation the job started since the
 * main step's mark, waited for within `timeout` from now and reported beside the main step's
 * verdict. Without a mark it does nothing and sends no request.
 */
export async function runPost(signal: AbortSignal): Promise<void> {
  const mark = state.savedJobMark();
  if (!mark) return;
  const main = state.savedMainVerdict();
  const settings = {
    projectId: mark.projectId,
    operationIds: [],
    givenOperations: [],
    jobMark: mark,
    watchJob: false,
    // The main step listed the recent operations, and checked the database unless it only watched.
    ...(main && { databaseUrl: undefined }),
    summaryLimit: 0
  };
  await runAction(signal, {
    settings,
    report: (seen) => wholeJob({ ...seen, waited: true }, main)
  });
}

/**
 * The job's report: what the post step saw, with the main step's verdict beside it. The headline
 * is the worse of the two; the post step fails only for what it saw (the main step already did).
 */
function wholeJob(report: Report, main: MainVerdict | undefined): Report {
  if (!main) return report; // none saved: the main step only set the mark (no ids to wait for)
  const status = report.failure || !main.failure ? report.status : main.status;
  return { ...report, status, mainStep: main };
}
