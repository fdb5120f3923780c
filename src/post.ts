import { clientFor } from './action/client.js';
import { savedJobMark } from './action/job-state.js';
import * as log from './action/log.js';
import { publish } from './action/publish.js';
import { readSettings } from './action/settings.js';
import { consoleLinksFor } from './report/links.js';
import { buildReport } from './report/model.js';
import { waitFor } from './wait/wait.js';

/**
 * The post step (`post-if: always()`): with `watch_job`, every operation the job started since the
 * main step's mark, waited for within `timeout` from now, reported as "Operations during this job",
 * failing the job when one did not succeed. Without a mark it does nothing and sends no request.
 */
export async function runPost(signal: AbortSignal): Promise<void> {
  const mark = savedJobMark();
  if (!mark) return;
  let settings;
  let client;
  try {
    settings = readSettings();
    client = clientFor(settings, signal);
  } catch {
    return; // the main step already reported the inputs
  }
  const result = await waitFor(
    {
      ...settings,
      projectId: mark.projectId,
      operationIds: [],
      givenOperations: [],
      jobMark: mark,
      watchJob: false
    },
    { client, signal, log }
  );
  const report = buildReport(result, {
    waited: true,
    branchId: settings.branchId,
    timeoutMs: settings.timeoutMs,
    consoleLinks: consoleLinksFor(settings.apiHost),
    requests: client.requests
  });
  await publish(settings, report, signal);
  await client.close().catch(() => undefined);
}
