import { savedJobMark, savedMainVerdict } from './action/job-state.js';
import { runStep } from './main.js';
import type { MainVerdict, Report } from './report/model.js';
import { WAIT_STATUS } from './wait/status.js';

/**
 * The post step (`post-if: always()`): with `watch_job`, every operation the job started since the
 * main step's mark, waited for within `timeout` from now, reported as "Operations during this job"
 * beside the main step's verdict, failing the job when one did not succeed. Without a mark it does
 * nothing and sends no request.
 */
export async function runPost(signal: AbortSignal): Promise<void> {
  const mark = savedJobMark();
  if (!mark) return;
  const main = savedMainVerdict();
  await runStep(signal, {
    settings: (settings) => ({
      ...settings,
      projectId: mark.projectId,
      operationIds: [],
      givenOperations: [],
      jobMark: mark,
      watchJob: false,
      // The main step checked the database and listed the recent operations.
      databaseUrl: undefined,
      summaryLimit: 0
    }),
    report: (report) => wholeJob({ ...report, waited: true }, main)
  });
}

/**
 * The job's report: what the post step saw, with the main step's verdict beside it. The headline
 * is the worse of the two; the post step fails only for what it saw (the main step already did).
 */
function wholeJob(report: Report, main: MainVerdict | undefined): Report {
  if (!main || main.status === WAIT_STATUS.watching) return report;
  const status = report.failure || !main.failure ? report.status : main.status;
  return { ...report, status, mainStep: main };
}
