import { probeDatabase } from '../database/probe.js';
import { type DatabaseTarget, describeTarget } from '../database/url.js';
import { formatDuration } from '../util/duration.js';
import { WAIT_STATUS } from './status.js';
import type { WaitLog } from './tracker.js';
import type { WaitResult } from './wait.js';

/**
 * Ready means a query answers: once the wait succeeded, `SELECT 1` until it answers or the deadline
 * passes. A refusal that waiting cannot fix ends as `database_error`; no answer, as `timeout`.
 */
export async function checkDatabase(
  result: WaitResult,
  { databaseUrl, ...settings }: { databaseUrl?: DatabaseTarget; wait: boolean; timeoutMs: number },
  deps: { log: WaitLog; signal?: AbortSignal }
): Promise<WaitResult> {
  // Watching the job: the post step checks the database once the job's operations are done.
  if (!databaseUrl || result.status === WAIT_STATUS.watching) return result;
  const target = describeTarget(databaseUrl);
  const failed = result.failure || result.timedOut ? 'the wait did not succeed' : undefined;
  const notTried = settings.wait ? failed : 'wait is false';
  if (notTried) return { ...result, database: { ready: false, target, attempts: 0, notTried } };

  deps.log.info(`Connecting to the database ${target} until SELECT 1 answers.`);
  const probe = await probeDatabase({
    target: databaseUrl,
    deadline: result.startedAt + settings.timeoutMs,
    signal: deps.signal,
    onAttempt: ({ attempt, error, delayMs }) => {
      const again = delayMs === undefined ? '' : `; again in ${formatDuration(delayMs)}`;
      if (error) deps.log.info(`  database attempt ${attempt}: ${error}${again}`);
    }
  });
  const finishedAt = Date.now();
  const check = { ready: probe.ready, target, attempts: probe.attempts };
  if (probe.ready) {
    const after = `${formatDuration(probe.elapsedMs)} (${probe.attempts} attempt(s))`;
    deps.log.info(`The database ${target} answered after ${after}.`);
    return { ...result, finishedAt, database: { ...check, answeredAfterMs: probe.elapsedMs } };
  }
  const ending = {
    cancelled: {
      status: WAIT_STATUS.aborted,
      failure: 'Interrupted (SIGINT or SIGTERM) while waiting for the database.',
      apiUnusable: true
    },
    timeout: {
      status: WAIT_STATUS.timeout,
      timedOut: true,
      failure: `Still waiting for the database at the ${formatDuration(settings.timeoutMs)} timeout: ${probe.message}`
    },
    rejected: { status: WAIT_STATUS.databaseError, failure: probe.message }
  }[probe.reason];
  return { ...result, finishedAt, database: { ...check, problem: probe.message }, ...ending };
}
