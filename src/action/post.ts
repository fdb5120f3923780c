import type { MainEnding, Report } from '../report/model.js';
import { boolOrNot } from '../settings.js';
import * as state from './job-state.js';
import * as log from './log.js';
import { input, runAction } from './main.js';

/**
 * The post step (`post-if: always()`): with `watch_job`, every operation the job started since the
 * main step's mark, waited for within `timeout` from now and reported beside the main step's
 * verdict. Without a mark it sends no request (and warns when `watch_job` asked for one). Named
 * `run`, as @github/local-action's `--post` expects (`npm run local`).
 */
export async function run(signal = new AbortController().signal): Promise<void> {
  const mark = state.savedJobMark();
  if (!mark) {
    // The main step ended before it learnt where the job began (its log says why).
    if (boolOrNot(input, 'watch_job'))
      log.warning(
        'watch_job is true, but the main step left no mark of where the job began (it ended ' +
          'before the wait started, or GITHUB_STATE could not be written; see its log): ' +
          "the job's operations are not watched.",
        'watch_job has nothing to watch'
      );
    return;
  }
  const main = state.savedMainEnding();
  const schemaTarget = state.savedSchemaTarget();
  await runAction(signal, {
    settings: {
      projectId: mark.projectId,
      operationIds: [],
      givenOperations: [],
      jobMark: mark,
      watchJob: false,
      // The post step never writes: the step's request was the main step's to send (sent again, a
      // branch a later step deleted would be made again and left behind).
      request: undefined,
      databaseFromResponse: false,
      // The main step listed the recent operations, and checked the database unless it only watched.
      ...(main && { databaseUrl: undefined }),
      summaryLimit: 0,
      // compare_schema: the branch the main step made or named, compared after the job's migrations.
      ...(schemaTarget && { schemaTarget })
    },
    report: (seen) => wholeJob({ ...seen, waited: true }, main)
  });
}

/**
 * The job's report: what the post step saw, with the main step's verdict beside it. The headline
 * is the worse of the two; the post step fails only for what it saw (the main step already did).
 */
function wholeJob(report: Report, main: MainEnding | undefined): Report {
  if (!main) return report; // none saved: the main step only set the mark (no ids to wait for)
  const status = report.failure || !main.failure ? report.status : main.status;
  return { ...report, status, mainStep: main };
}
