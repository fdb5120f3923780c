import { type DatabaseCheck, probeDatabase } from '../database/probe.js';
import { type DatabaseTarget, describeTarget, parseDatabaseUrl } from '../database/url.js';
import type { CaseVerdict, CheckEnding, CheckOutcome } from '../report/check-outcome.js';
import { count } from '../report/display.js';
import { code, escapeText } from '../report/markdown.js';
import { formatDuration } from '../util/duration.js';
import { actionNaming } from '../util/errors.js';
import { WAIT_STATUS } from '../wait/status.js';
import type { WaitResult } from '../wait/wait.js';
import type { Check, StepSettings } from './check.js';

/** What the database check is asked. */
export interface DatabaseSettings {
  /** The parsed `database_url`, probed with `SELECT 1` once the wait succeeded. */
  databaseUrl?: DatabaseTarget;
  /** `database_url: response`: check the request's answer's first connection URI instead. */
  databaseFromResponse?: boolean;
}

/**
 * Ready means a query answers: once the wait succeeded, `SELECT 1` until it answers or the deadline
 * passes. A refusal that waiting cannot fix ends as `database_error`; no answer, as `timeout`.
 * `database_url: response` checks the answer's own URI, which is the branch's the request made or
 * named (not checked against `branch_id`, which may be its parent).
 */
export const selectOne: Check<DatabaseSettings> = async (result, settings, deps) => {
  // Watching the job: the post step checks the database once the job's operations are done.
  if (result.status === WAIT_STATUS.watching) return undefined;
  const databaseUrl = urlToProbe(result, settings);
  if (databaseUrl === 'none') {
    const { request } = result;
    const sent = request ? `${request.method} ${request.path}` : 'request';
    const named = deps.named ?? actionNaming;
    const failure =
      `${named('database_url')} is response, but the answer to ${sent} holds no connection URI: ` +
      'ask for a compute with it (for a branch, "endpoints": [{"type": "read_write"}]).';
    return { name: 'database', ending: { status: WAIT_STATUS.databaseError, failure } };
  }
  if (!databaseUrl) return undefined;
  const target = describeTarget(databaseUrl);
  const failed = result.failure || result.timedOut ? 'the wait did not succeed' : undefined;
  const notTried = settings.wait ? failed : 'wait is false';
  if (notTried) return databaseOutcome({ ready: false, target, attempts: 0, notTried });

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
  const check = { ready: probe.ready, target, attempts: probe.attempts };
  if (probe.ready) {
    const after = `${formatDuration(probe.elapsedMs)} (${probe.attempts} attempt(s))`;
    deps.log.info(`The database ${target} answered after ${after}.`);
    return databaseOutcome({ ...check, answeredAfterMs: probe.elapsedMs });
  }
  const ending: CheckEnding = {
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
  return databaseOutcome({ ...check, problem: probe.message }, ending);
};

/**
 * The URL to probe: `database_url`'s, or with `response` the answer's first connection URI
 * (`none` when a succeeded wait's answer holds none; nothing to probe when the wait did not succeed).
 */
function urlToProbe(
  result: WaitResult,
  settings: StepSettings & DatabaseSettings
): DatabaseTarget | 'none' | undefined {
  if (!settings.databaseFromResponse) return settings.databaseUrl;
  const answered = result.request?.databaseUrl;
  if (answered) return parseDatabaseUrl(answered);
  return result.failure || result.timedOut || !settings.wait ? undefined : 'none';
}

/** What the database check found, for every renderer (also a refusal before connecting). */
export function databaseOutcome(db: DatabaseCheck, ending?: CheckEnding): CheckOutcome {
  const why = ending?.timedOut ? WAIT_STATUS.timeout : WAIT_STATUS.databaseError;
  const verdict: CaseVerdict = db.ready
    ? []
    : db.notTried
      ? ['skipped', `not tried: ${db.notTried}`]
      : ['failure', 'database not ready', why, db.problem];
  const properties = { target: db.target };
  return {
    name: 'database',
    line: databaseLine(db),
    junit: { name: 'database', ms: db.answeredAfterMs ?? 0, verdict, properties },
    digest: [db.target, db.ready],
    facts: { ...db },
    connected: db.attempts > 0,
    ...(ending && { ending })
  };
}

/** One line on the database check: how long it took to answer after the operations were done. */
function databaseLine(db: DatabaseCheck): string {
  const where = `🐘 Database ${code(db.target)}`;
  const attempts = count(db.attempts, 'attempt');
  if (db.ready)
    return `${where} answered \`SELECT 1\` ${formatDuration(db.answeredAfterMs ?? 0)} after the operations were done (${attempts}).`;
  if (db.notTried) return `${where} was not checked: ${escapeText(db.notTried)}.`;
  return `${where} did not answer \`SELECT 1\` (${attempts}).`;
}
