import { CHECKS, type CheckSettings } from './checks/index.js';
import { NeonClient } from './neon/client.js';
import type { CheckOutcome } from './report/check-outcome.js';
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
export interface EngineSettings extends StepSettings, CheckSettings {
  apiKey: string;
  apiHost: string;
  summary: boolean;
  summaryLimit: number;
  /** The summary lists the operations created since then (epoch ms), not only the newest. */
  sinceMs?: number;
}

export type EngineDeps = Pick<WaitDeps, 'onCheck' | 'onJobMark' | 'onRequest' | 'github'> & {
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
    return { report: inputErrorReport(error.message, startedAt, Date.now(), WAIT_STATUS.aborted) };
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
    const { result, checks } = await runChecks(waited, settings, { ...deps, client });
    const connected = checks.some((check) => check.connected);
    const recent = await recentForSummary(client, result, settings, connected);
    return buildReport(result, {
      waited: settings.wait,
      branchId: settings.branchId,
      endpointId: settings.endpointId,
      timeoutMs: settings.timeoutMs,
      consoleLinks: consoleLinksFor(settings.apiHost),
      requests: client.requests,
      checks,
      ...recent
    });
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** The last check's page is reused for the summary only this soon after it came (ms). */
const FRESH_PAGE_MS = 2000;

/**
 * The checks after the wait, in their order: each sees the result as the checks before it left it,
 * and the first that fails the step ends it (a URL of another branch is never connected to).
 */
async function runChecks(
  waited: WaitResult,
  settings: EngineSettings,
  deps: EngineDeps & { client: NeonClient }
): Promise<{ result: WaitResult; checks: CheckOutcome[] }> {
  let result = waited;
  const checks: CheckOutcome[] = [];
  for (const check of CHECKS) {
    const outcome = await check(result, settings, deps);
    if (!outcome) continue;
    checks.push(outcome);
    if (outcome.connected || outcome.ending) result = { ...result, finishedAt: Date.now() };
    if (outcome.ending) return { result: { ...result, ...outcome.ending }, checks };
  }
  return { result, checks };
}

/**
 * The project's recent operations for the summary, when it shows them and the API can still be
 * asked; a failure here only leaves them out (the reason is shown instead).
 */
async function recentForSummary(
  client: NeonClient,
  result: WaitResult,
  settings: EngineSettings,
  connected: boolean
) {
  const { summary, summaryLimit, branchId, endpointId, sinceMs: since, timeoutMs } = settings;
  const deferred = result.status === WAIT_STATUS.watching; // the post step reports
  if (!summary || !summaryLimit || !result.projectId || result.apiUnusable || deferred) return {};
  // The wait's deadline bounds this too, but a summary after a timeout still gets a few seconds.
  const now = Date.now();
  const deadline = Math.min(now + 10_000, Math.max(result.startedAt + timeoutMs, now + 3000));
  // The report lists the operations as they are when it is written: after a database check (which
  // may have taken seconds, and woken a compute with an operation of its own) the List is asked again.
  const page = result.newestPage;
  const fresh = page && !connected && now - page.fetchedAt <= FRESH_PAGE_MS;
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
