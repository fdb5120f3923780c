import { savedJobMark } from './action/job-state.js';
import * as log from './action/log.js';
import { publish } from './action/publish.js';
import { readInputs } from './action/inputs.js';
import { runEngine } from './engine.js';

/**
 * The post step (`post-if: always()`): with `watch_job`, every operation the job started since the
 * main step's mark, waited for within `timeout` from now, reported as "Operations during this job",
 * failing the job when one did not succeed. Without a mark it does nothing and sends no request.
 */
export async function runPost(signal: AbortSignal): Promise<void> {
  const mark = savedJobMark();
  if (!mark) return;
  let settings;
  try {
    settings = readInputs();
  } catch {
    return; // the main step already reported the inputs
  }
  const report = await runEngine(
    {
      ...settings,
      projectId: mark.projectId,
      operationIds: [],
      givenOperations: [],
      jobMark: mark,
      watchJob: false,
      // The main step checked the database and listed the recent operations.
      databaseUrl: undefined,
      summaryLimit: 0
    },
    { log, signal }
  );
  await publish(settings, { ...report, waited: true }, signal);
}
