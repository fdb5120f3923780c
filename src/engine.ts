import { type DatabaseTarget, parseDatabaseUrl } from './database/url.js';
import { checkDatabase } from './wait/database.js';
import { checkUrlBranch } from './wait/url-branch.js';
import { NeonClient } from './neon/client.js';
import { consoleLinksFor } from './report/links.js';
import { buildReport, inputErrorReport, type Report } from './report/model.js';
import { fetchRecentOperations } from './neon/recent.js';
import { formatDuration } from './util/duration.js';
import { CancelledError, InputError, type Naming } from './util/errors.js';
import { oneLine } from './util/text.js';
import { performAndWait, type StepSettings } from './requests/index.js';
import type { WaitLog } from './wait/tracker.js';
import { WAIT_STATUS } from './wait/status.js';
import type { WaitDeps, WaitResult } from './wait/wait.js';

/**
 * The engine the action's steps and the command share: settings in, one report out, whatever
 * happens (a proxy that cannot be used, the API failing, a cancellation).
 */
export interface EngineSettings extends StepSettings {
  apiKey: string;
  apiHost: string;
  summary: boolean;
  summaryLimit: number;
  /** The parsed `database_url`, probed with `SELECT 1` once the wait succeeded. */
  databaseUrl?: DatabaseTarget;
  /** `database_url: response`: check the request's answer's first connection URI instead. */
  databaseFromResponse?: boolean;
  /** The summary lists the operations created since then (epoch ms), not only the newest. */
  sinceMs?: number;
}

export type EngineDeps = Pick<WaitDeps, 'onCheck' | 'onJobMark' | 'onRequest'> & {
  log: WaitLog & { debug(message: string): void };
  signal: AbortSignal;
  /** How the front end names inputs in messages. */
  named: Naming;
  /** Asks the log's viewer to hide a secret the request's answer holds (`core.setSecret`). */
  mask?: (secret: string) => void;
};

/**
 * What every front end does: read the settings, then run `engine`; a wrong input ends there with
 * a report that says so in the front end's words, with no request sent.
 */
export async function runStep<S extends EngineSettings>(
  read: () => S | Promise<S>,
  named: Naming,
  engine: (settings: S) => Promise<Report>
): Promise<{ report: Report; settings?: S }> {
  const startedAt = Date.now();
  let settings: S;
  try {
    settings = await read();
  } catch (error) {
    const report = (message: string) => inputErrorReport(message, startedAt, Date.now());
    if (error instanceof InputError) return { report: report(error.words(named)) };
    // A signal while reading (a stdin that never ends) ends there too, as an interruption.
    if (!(error instanceof CancelledError)) throw error;
    return { report: { ...report(error.message), status: WAIT_STATUS.aborted } };
  }
  return { report: await engine(settings), settings };
}

export async function runEngine(settings: EngineSettings, deps: EngineDeps): Promise<Report> {
  const startedAt = Date.now();
  let client: NeonClient;
  try {
    client = new NeonClient({
      baseUrl: settings.apiHost,
      apiKey: settings.apiKey,
      signal: deps.signal,
      mask: deps.mask,
      onRequest: (method, path) => deps.log.debug(`${method} ${path}`),
      onRetry: (e) =>
        deps.log.info(
          `  retrying in ${formatDuration(e.delayMs)} after ${oneLine(e.error)} (attempt ${e.attempt})`
        )
    });
  } catch (error) {
    // undici reads HTTPS_PROXY / HTTP_PROXY when the transport is made: no request is sent.
    const message = `HTTPS_PROXY / HTTP_PROXY does not hold a usable proxy URL: ${(error as Error).message}`;
    return inputErrorReport(message, startedAt, Date.now());
  }
  try {
    const waited = await performAndWait(settings, { ...deps, client });
    const result = await databaseStep(waited, settings, { ...deps, client });
    const recent = await recentForSummary(client, result, settings);
    return buildReport(result, {
      waited: settings.wait,
      branchId: settings.branchId,
      endpointId: settings.endpointId,
      timeoutMs: settings.timeoutMs,
      consoleLinks: consoleLinksFor(settings.apiHost),
      requests: client.requests,
      ...recent
    });
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** The last check's page is reused for the summary only this soon after it came (ms). */
const FRESH_PAGE_MS = 2000;

/**
 * The database check after the wait. `database_url: response` checks the answer's own URI, which is
 * the branch's the request made or named (not checked against `branch_id`, which may be its
 * parent); a URL given as such is first checked to be `branch_id`'s, and refused before any
 * connection when it is another branch's.
 */
async function databaseStep(
  waited: WaitResult,
  settings: EngineSettings,
  deps: EngineDeps & { client: NeonClient }
): Promise<WaitResult> {
  if (settings.databaseFromResponse) {
    const answered = waited.request?.databaseUrl;
    if (answered) {
      return checkDatabase(waited, { ...settings, databaseUrl: parseDatabaseUrl(answered) }, deps);
    }
    if (waited.failure || waited.timedOut || !settings.wait) return waited;
    const request = waited.request ? `${waited.request.method} ${waited.request.path}` : 'request';
    return {
      ...waited,
      status: WAIT_STATUS.databaseError,
      failure:
        `${deps.named('database_url')} is response, but the answer to ${request} holds no connection URI: ` +
        'ask for a compute with it (for a branch, "endpoints": [{"type": "read_write"}]).'
    };
  }
  const owned = await checkUrlBranch(waited, settings, deps);
  if (owned.database) return owned;
  return checkDatabase(owned, settings, deps);
}

/**
 * The project's recent operations for the summary, when it shows them and the API can still be
 * asked; a failure here only leaves them out (the reason is shown instead).
 */
async function recentForSummary(client: NeonClient, result: WaitResult, settings: EngineSettings) {
  const { summary, summaryLimit, branchId, endpointId, sinceMs: since, timeoutMs } = settings;
  const deferred = result.status === WAIT_STATUS.watching; // the post step reports
  if (!summary || !summaryLimit || !result.projectId || result.apiUnusable || deferred) return {};
  // The wait's deadline bounds this too, but a summary after a timeout still gets a few seconds.
  const now = Date.now();
  const deadline = Math.min(now + 10_000, Math.max(result.startedAt + timeoutMs, now + 3000));
  // The report lists the operations as they are when it is written: after a database check (which
  // may have taken seconds, and woken a compute with an operation of its own) the List is asked again.
  const page = result.newestPage;
  const fresh = page && !result.database?.attempts && now - page.fetchedAt <= FRESH_PAGE_MS;
  const options = {
    limit: summaryLimit,
    place: { branchId, endpointId },
    deadline,
    since,
    newestPage: fresh ? page : undefined
  };
  try {
    return { recent: await fetchRecentOperations(client, result.projectId, options) };
  } catch (error) {
    return { recentError: (error as Error).message };
  }
}
