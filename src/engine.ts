import type { DatabaseTarget } from './database/url.js';
import { checkDatabase } from './wait/database.js';
import { NeonClient } from './neon/client.js';
import { consoleLinksFor } from './report/links.js';
import { buildReport, inputErrorReport, type Report } from './report/model.js';
import { recentForSummary } from './report/recent.js';
import { formatDuration } from './util/duration.js';
import { oneLine, truncate } from './util/text.js';
import type { JobMark, WaitSettings } from './wait/mode.js';
import type { WaitLog } from './wait/tracker.js';
import { type WaitDeps, waitFor } from './wait/wait.js';

/**
 * The engine the action's steps and the command share: settings in, one report out. Whatever
 * happens (a proxy that cannot be used, the API failing, a cancellation), a report comes back;
 * only where it is shown differs (the runner's files and the PR, or a terminal and report files).
 */
export interface EngineSettings extends WaitSettings {
  apiKey: string;
  apiHost: string;
  summary: boolean;
  summaryLimit: number;
  /** The parsed `database_url`, probed with `SELECT 1` once the wait succeeded. */
  databaseUrl?: DatabaseTarget;
  /** The summary lists the operations created since then (epoch ms), not only the newest. */
  sinceMs?: number;
}

export interface EngineLog extends WaitLog {
  debug(message: string): void;
}

export interface EngineDeps extends Pick<WaitDeps, 'onCheck'> {
  log: EngineLog;
  signal: AbortSignal;
  /** With `watchJob`: where the job's operations begin, to keep for the post step. */
  onJobMark?: (mark: JobMark) => void;
}

/** Settings → wait → database → recent operations → the report. */
export async function runEngine(settings: EngineSettings, deps: EngineDeps): Promise<Report> {
  const startedAt = Date.now();
  let client: NeonClient;
  try {
    client = clientFor(settings, deps);
  } catch (error) {
    // undici reads HTTPS_PROXY / HTTP_PROXY when the transport is made: no request is sent.
    return inputErrorReport(
      `HTTPS_PROXY / HTTP_PROXY does not hold a usable proxy URL: ${(error as Error).message}`,
      startedAt,
      Date.now()
    );
  }
  try {
    const waited = await waitFor(settings, {
      client,
      signal: deps.signal,
      log: deps.log,
      onJobMark: deps.onJobMark,
      onCheck: deps.onCheck
    });
    const result = await checkDatabase(waited, settings, deps);
    const recent = await recentForSummary(client, result, settings);
    return buildReport(result, {
      waited: settings.wait,
      branchId: settings.branchId,
      timeoutMs: settings.timeoutMs,
      consoleLinks: consoleLinksFor(settings.apiHost),
      requests: client.requests,
      ...recent
    });
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** The API client: requests in the debug log, retries in the log. */
function clientFor(settings: EngineSettings, deps: EngineDeps): NeonClient {
  return new NeonClient({
    baseUrl: settings.apiHost,
    apiKey: settings.apiKey,
    signal: deps.signal,
    onRequest: (path) => deps.log.debug(`GET ${path}`),
    onRetry: (e) =>
      deps.log.info(
        `  retrying in ${formatDuration(e.delayMs)} after ${oneLine(e.error)} (attempt ${e.attempt})`
      )
  });
}

/** Longest text in a result: the API's texts are not ours to trust. */
const MAX_FIELD_CHARS = 4000;

/** A result value as JSON, every long text shortened whatever field holds it. */
export function resultJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'string' ? truncate(v, MAX_FIELD_CHARS) : v
  );
}

/** The run's result as typed values: the action's outputs (as text) and the command's `--json`. */
export function resultFields(report: Report) {
  return {
    status: report.status,
    timed_out: report.timedOut,
    operation: report.operations[0] ?? null,
    operations: report.operations,
    failures_count: report.operations.reduce(
      (sum, op) => sum + (Number(op.failures_count) || 0),
      0
    ),
    elapsed_seconds: Number(((report.finishedAt - report.startedAt) / 1000).toFixed(1)),
    project_id: report.projectId ?? '',
    ...(report.database && { database_ready: report.database.ready })
  };
}
