import { ApiError, DeadlineError, NeonClient } from './neon/client.js';
import { CancelledError } from './util/clock.js';
import { formatDuration } from './util/duration.js';
import { defaultTransport, type Transport } from './neon/http.js';
import * as log from './action/log.js';
import type { Operation } from './neon/operation.js';
import { setOutputs } from './action/outputs.js';
import { resolveProjectId } from './neon/project.js';
import { redact, registerSecret } from './util/redact.js';
import { OperationRefresher, ProjectRefresher } from './wait/refresh.js';
import { type Report, stableView, WAIT_STATUS } from './report/model.js';
import { pollDelay } from './wait/schedule.js';
import { InputError, readSettings, type Settings } from './action/settings.js';
import { aggregateStatus, classifyStatus, isInProgress } from './wait/status.js';
import { escapeText } from './report/markdown.js';
import { COMMENT_LIMIT, renderSummary } from './report/summary.js';
import { upsertComment } from './action/comment.js';
import { fetchRecentOperations } from './report/recent.js';
import * as runner from './action/runner.js';
import { OperationTracker } from './wait/tracker.js';
import { type CheckState, waitUntil } from './wait/loop.js';

/** The whole step: settings → project → wait → report (summary, outputs, step result). */
export async function run(signal: AbortSignal = new AbortController().signal): Promise<void> {
  const startedAt = Date.now();
  // Mask the key before anything else can print it, even a message about another input.
  const rawKey = runner.getInput('api_key');
  if (rawKey.trim()) {
    runner.setSecret(rawKey.trim());
    registerSecret(rawKey);
  }

  let settings: Settings;
  try {
    settings = readSettings();
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    reportInputError(error, startedAt);
    return;
  }

  let transport: Transport;
  try {
    transport = await defaultTransport();
  } catch (error) {
    // EnvHttpProxyAgent refuses a proxy variable it cannot read.
    reportInputError(
      new InputError(
        `HTTPS_PROXY / HTTP_PROXY does not hold a usable proxy URL: ${(error as Error).message}`
      ),
      startedAt
    );
    return;
  }
  const client = new NeonClient({
    baseUrl: settings.apiHost,
    apiKey: settings.apiKey,
    transport,
    signal,
    onRequest: (path) => log.debug(`GET ${path}`),
    onRetry: (event) =>
      log.info(
        `  retrying in ${formatDuration(event.delayMs)} after ${log.oneLine(event.error)} (attempt ${event.attempt})`
      )
  });
  const report: Report = {
    mode: settings.operationIds.length > 0 ? 'operations' : 'project',
    waited: settings.wait,
    projectId: settings.projectId,
    branchId: settings.branchId,
    status: '',
    timedOut: false,
    operations: settings.givenOperations,
    startedAt,
    finishedAt: startedAt,
    timeoutMs: settings.timeoutMs,
    requests: 0
  };

  try {
    await watch(settings, client, report, signal);
  } catch (error) {
    describeFailure(error, signal, settings, report);
  } finally {
    report.finishedAt = Date.now();
    report.requests = client.requests;
  }
  await publish(settings, client, report, signal);
  await client.close().catch(() => undefined);
}

/** A wait that ended by an exception: which status that is, and what to tell the user. */
function describeFailure(
  error: unknown,
  signal: AbortSignal,
  settings: Settings,
  report: Report
): void {
  if (error instanceof CancelledError || signal.aborted) {
    report.status = WAIT_STATUS.aborted;
    report.failure = 'The job was cancelled while waiting; outputs and summary show what was seen.';
  } else if (error instanceof DeadlineError) {
    report.status = WAIT_STATUS.timeout;
    report.timedOut = true;
    report.failure = `Timed out after ${formatDuration(settings.timeoutMs)}: ${error.message}`;
  } else if (error instanceof InputError) {
    report.status = WAIT_STATUS.inputError;
    report.failure = error.message;
  } else if (error instanceof ApiError) {
    report.status = WAIT_STATUS.apiError;
    report.failure = error.message;
  } else {
    report.status = WAIT_STATUS.apiError;
    report.failure = `Unexpected error: ${(error as Error)?.message ?? String(error)}`;
  }
}

/** After these, asking the API for the summary's recent operations is of no use. */
const NO_MORE_REQUESTS: ReadonlySet<string> = new Set([
  WAIT_STATUS.aborted,
  WAIT_STATUS.apiError,
  WAIT_STATUS.inputError
]);

/** Summary, PR comment, outputs and the step's result, from whatever the run saw. */
async function publish(
  settings: Settings,
  client: NeonClient,
  report: Report,
  signal: AbortSignal
): Promise<void> {
  if (
    settings.summary &&
    settings.summaryLimit > 0 &&
    report.projectId &&
    !NO_MORE_REQUESTS.has(report.status)
  ) {
    await addRecentOperations(settings, client, report);
  }
  const summary = settings.summary ? safeSummary(report) : '';
  writeSummary(summary);
  let commentUrl = '';
  if (settings.commentOnPr && report.status !== WAIT_STATUS.aborted) {
    try {
      const comment = await upsertComment({
        token: settings.githubToken,
        tag: settings.commentTag,
        body: redact(renderSummary(report, COMMENT_LIMIT)),
        digestSource: stableView(report),
        signal,
        eventName: process.env.GITHUB_EVENT_NAME ?? '',
        eventPath: process.env.GITHUB_EVENT_PATH,
        repository: process.env.GITHUB_REPOSITORY
      });
      commentUrl = comment?.url ?? '';
    } catch (error) {
      log.warning(`Could not write the PR comment: ${(error as Error).message}`);
    }
  }
  setOutputs(report, summary, commentUrl);
  if (report.failure) log.fail(report.failure);
  else
    log.info(
      `Result: ${report.status} after ${formatDuration(report.finishedAt - report.startedAt)}.`
    );
}

/** The summary, or if rendering it fails on data nobody foresaw, a short one that says so. */
function safeSummary(report: Report): string {
  try {
    return renderSummary(report);
  } catch (error) {
    log.warning(`Could not render the full summary: ${(error as Error).message}`);
    return `### Neon operations: ${escapeText(report.status)}\n\n${report.failure ? `> ${escapeText(report.failure, 2000)}\n\n` : ''}`;
  }
}

function writeSummary(summary: string): void {
  if (!summary) return;
  try {
    if (!runner.appendSummary(redact(summary)))
      log.debug('No GITHUB_STEP_SUMMARY file: summary not written.');
  } catch (error) {
    log.warning(`Could not write the job summary: ${(error as Error).message}`);
  }
}

/** Bad input: no request is sent, but the outputs are set and the summary says what was wrong. */
function reportInputError(error: InputError, startedAt: number): void {
  const report: Report = {
    mode: 'operations',
    waited: false,
    status: WAIT_STATUS.inputError,
    timedOut: false,
    operations: [],
    startedAt,
    finishedAt: Date.now(),
    timeoutMs: 0,
    failure: error.message,
    requests: 0
  };
  // The summary is written unless it was asked off (its own value may be the bad input).
  const summary = /^(false|no|off)$/i.test(runner.getInput('summary').trim())
    ? ''
    : renderSummary(report);
  writeSummary(summary);
  setOutputs(report, summary, '');
  log.fail(error.message);
}

/** The project's recent operations for the summary; a failure here only leaves them out. */
async function addRecentOperations(
  settings: Settings,
  client: NeonClient,
  report: Report
): Promise<void> {
  // The wait's deadline bounds this too, but a summary after a timeout still gets a few seconds.
  const now = Date.now();
  const deadline = Math.min(
    now + 10_000,
    Math.max(report.startedAt + settings.timeoutMs, now + 3000)
  );
  const before = client.requests;
  try {
    report.recent = await fetchRecentOperations(client, report.projectId as string, {
      limit: settings.summaryLimit,
      branchId: settings.branchId,
      deadline,
      newestPage: report.newestPage
    });
  } catch (error) {
    report.recentError = (error as Error).message;
  } finally {
    report.requests += client.requests - before;
  }
}

async function watch(
  settings: Settings,
  client: NeonClient,
  report: Report,
  signal: AbortSignal
): Promise<void> {
  const deadline = report.startedAt + settings.timeoutMs;
  const projectId = await resolveProjectId(client, settings, deadline);
  report.projectId = projectId;

  const tracker = new OperationTracker(settings.operationIds, settings.givenOperations);
  const projectMode = report.mode === 'project';
  const refresher = projectMode
    ? new ProjectRefresher(client, projectId, settings.branchId, tracker)
    : new OperationRefresher(client, projectId, tracker, settings.failFast);
  const scope = settings.branchId
    ? `branch ${settings.branchId} of project ${projectId}`
    : `project ${projectId}`;
  log.info(
    projectMode
      ? `Waiting until no operation of ${scope} is in progress (timeout ${formatDuration(settings.timeoutMs)}).`
      : `Waiting for ${tracker.size} operation(s) of project ${projectId} (timeout ${formatDuration(settings.timeoutMs)}).`
  );

  const verdict = (): CheckState => {
    if (!projectMode) return tracker.verdict(settings.failFast);
    // An operation seen in progress that then fails ends the wait at once with fail_fast;
    // otherwise the wait goes on until the project is idle, and fails then.
    const seen = tracker.seen();
    if (settings.failFast && seen.some((op) => classifyStatus(op.status, true) === 'failure')) {
      return 'failure';
    }
    return seen.some((op) => isInProgress(op.status)) ? 'pending' : 'success';
  };
  const check = async (): Promise<CheckState> => {
    await refresher.refresh(deadline);
    report.operations = tracker.list();
    report.newestPage = refresher.newestPage;
    return settings.wait ? verdict() : 'success';
  };

  const result = await waitUntil(check, {
    deadline,
    delay: (checks) => pollDelay(checks, settings.intervalMs),
    signal
  });
  report.operations = tracker.list();

  switch (result.outcome) {
    case 'cancelled':
      throw new CancelledError();
    case 'timeout': {
      report.status = WAIT_STATUS.timeout;
      report.timedOut = true;
      report.lastError = result.lastError;
      const stillOpen = tracker
        .list()
        .filter(
          (op) =>
            op.status === undefined || classifyStatus(op.status, settings.failFast) === 'pending'
        )
        .map(describe);
      report.failure =
        `Timed out after ${formatDuration(settings.timeoutMs)} waiting for ` +
        (stillOpen.length ? stillOpen.join('; ') : scope) +
        (result.lastError ? `. Last error: ${result.lastError}` : '.');
      return;
    }
    default:
      break;
  }

  if (projectMode) {
    const seen = tracker.seen();
    const busy = seen.some((op) => isInProgress(op.status));
    const failed = seen.filter((op) => classifyStatus(op.status, settings.failFast) === 'failure');
    report.status = !settings.wait && busy ? WAIT_STATUS.busy : WAIT_STATUS.idle;
    if (settings.wait && failed.length > 0) {
      // Idle, but work this wait followed did not succeed: a gate must not pass on that.
      report.status = aggregateStatus(failed.map((op) => op.status));
      report.failure = `Operation(s) of ${scope} did not succeed: ${failing(failed, settings.failFast)}`;
    }
    return;
  }

  report.status = aggregateStatus(tracker.seen().map((op) => op.status));
  if (settings.wait && result.outcome === 'failure') {
    report.failure = `Operation(s) did not succeed: ${failing(tracker.seen(), settings.failFast)}`;
  }
}

function describe(op: Operation): string {
  return op.action
    ? `${op.action} ${op.id} (last status ${op.status})`
    : `operation ${op.id} (not seen yet)`;
}

function failing(ops: Operation[], failFast: boolean): string {
  return ops
    .filter((op) => classifyStatus(op.status, failFast) === 'failure')
    .map(
      (op) =>
        `${op.action} ${op.id} is ${op.status} (failures_count ${op.failures_count ?? 0})` +
        (op.error ? `: ${log.oneLine(op.error, 300)}` : '')
    )
    .join('; ');
}
