import { clientFor } from './action/client.js';
import { saveJobMark } from './action/job-state.js';
import * as log from './action/log.js';
import { publish } from './action/publish.js';
import { readSettings, type Settings, summaryWanted } from './action/settings.js';
import type { NeonClient } from './neon/client.js';
import { consoleLinksFor } from './report/links.js';
import { buildReport, inputErrorReport } from './report/model.js';
import { recentForSummary } from './report/recent.js';
import { InputError } from './util/errors.js';
import { checkDatabase } from './wait/database.js';
import { waitFor } from './wait/wait.js';

/** The whole step: settings → wait → report → publish (summary, comment, outputs, result). */
export async function run(signal: AbortSignal = new AbortController().signal): Promise<void> {
  const startedAt = Date.now();
  let settings: Settings;
  let client: NeonClient;
  try {
    settings = readSettings();
    client = clientFor(settings, signal);
  } catch (error) {
    // A bad input, or a proxy variable undici cannot read (the client's transport is made here):
    // no request is sent, outputs still set.
    const message =
      error instanceof InputError
        ? error.message
        : `HTTPS_PROXY / HTTP_PROXY does not hold a usable proxy URL: ${(error as Error).message}`;
    await publish({ summary: summaryWanted() }, inputErrorReport(message, startedAt, Date.now()));
    return;
  }

  const waited = await waitFor(settings, { client, signal, log, onJobMark: saveJobMark });
  const result = await checkDatabase(waited, settings, { log, signal });
  const recent = await recentForSummary(client, result, settings);
  const report = buildReport(result, {
    waited: settings.wait,
    branchId: settings.branchId,
    timeoutMs: settings.timeoutMs,
    consoleLinks: consoleLinksFor(settings.apiHost),
    requests: client.requests,
    ...recent
  });
  await publish(settings, report, signal);
  await client.close().catch(() => undefined);
}
