import * as log from './action/log.js';
import { publish } from './action/publish.js';
import { readSettings, type Settings, summaryWanted } from './action/settings.js';
import { NeonClient } from './neon/client.js';
import { buildReport, inputErrorReport } from './report/model.js';
import { type RecentOperations, fetchRecentOperations } from './report/recent.js';
import { formatDuration } from './util/duration.js';
import { InputError } from './util/errors.js';
import { checkDatabase } from './wait/database.js';
import { type WaitResult, waitFor } from './wait/wait.js';

/** The whole step: settings → wait → report → publish (summary, comment, outputs, result). */
export async function run(signal: AbortSignal = new AbortController().signal): Promise<void> {
  const startedAt = Date.now();
  let settings: Settings;
  let client: NeonClient;
  try {
    settings = readSettings();
    client = new NeonClient({
      baseUrl: settings.apiHost,
      apiKey: settings.apiKey,
      signal,
      onRequest: (path) => log.debug(`GET ${path}`),
      onRetry: (e) =>
        log.info(
          `  retrying in ${formatDuration(e.delayMs)} after ${log.oneLine(e.error)} (attempt ${e.attempt})`
        )
    });
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

  const waited = await waitFor(settings, { client, signal, log });
  const result = await checkDatabase(waited, settings, { log, signal });
  const recent = await recentOperations(settings, client, result);
  const report = buildReport(result, {
    waited: settings.wait,
    branchId: settings.branchId,
    timeoutMs: settings.timeoutMs,
    requests: client.requests,
    ...recent
  });
  await publish(settings, report, signal);
  await client.close().catch(() => undefined);
}

/** The project's recent operations for the summary; a failure here only leaves them out. */
async function recentOperations(
  settings: Settings,
  client: NeonClient,
  result: WaitResult
): Promise<{ recent?: RecentOperations; recentError?: string }> {
  if (!settings.summary || settings.summaryLimit === 0 || !result.projectId || result.apiUnusable)
    return {};
  // The wait's deadline bounds this too, but a summary after a timeout still gets a few seconds.
  const now = Date.now();
  const deadline = Math.min(
    now + 10_000,
    Math.max(result.startedAt + settings.timeoutMs, now + 3000)
  );
  try {
    return {
      recent: await fetchRecentOperations(client, result.projectId, {
        limit: settings.summaryLimit,
        branchId: settings.branchId,
        deadline,
        newestPage: result.newestPage
      })
    };
  } catch (error) {
    return { recentError: (error as Error).message };
  }
}
