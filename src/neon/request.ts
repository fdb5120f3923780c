import { type Clock, systemClock } from '../util/clock.js';
import { formatDuration } from '../util/duration.js';
import { ApiError, DeadlineError, TransientError, UnconfirmedError } from '../util/errors.js';
import { oneLine } from '../util/text.js';
import { isInProgress } from '../wait/status.js';
import type { NeonClient } from './client.js';
import type { RequestMethod } from './http.js';
import type { Operation } from './operation.js';
import { LAST_TRY_LEAD_MS, RetryPolicy } from './retry.js';
import { withoutSecrets } from './secrets.js';

/** The request of the `request` input: its path is filled in and relative to the API base. */
export interface ApiRequest {
  method: RequestMethod;
  path: string;
  /** JSON text, sent as given. */
  body?: string;
}

/** What happened to the request: the answer accepted, and what it cost to get it. */
export interface RequestOutcome {
  method: RequestMethod;
  path: string;
  /** The accepted answer's HTTP status (undefined when none was accepted). */
  status?: number;
  attempts: number;
  /** Time spent answered 423 Locked. */
  lockedMs: number;
  /** The operations that held the lock, as the log names them. */
  holders: string[];
  /** The accepted answer's JSON, every secret field `***` (the `response` output). */
  response?: unknown;
  /** The answer's first connection URI: for the masked `database_url` output and `database_url: response`. */
  databaseUrl?: string;
}

export interface RequestDeps {
  client: NeonClient;
  projectId: string;
  clock?: Clock;
  random?: () => number;
  signal?: AbortSignal;
  log: (line: string) => void;
  /** Told of each attempt, so that what happened is known however the request ends (a deadline, no answer). */
  onProgress?: (outcome: RequestOutcome) => void;
}

/** Pace while operations hold the lock: a look at the list every 1 s, slower as the lock ages (to 5 s). */
const lockLookMs = (lockedMs: number, random: () => number): number =>
  Math.round(Math.min(5000, Math.max(1000, lockedMs / 5)) * (0.75 + random() / 2));

/** `apply_config 1f2e… on br-x since 12:00:01`: who holds the project. */
const holderName = (op: Operation): string =>
  `${oneLine(op.action, 40)} ${op.id.slice(0, 4)}…` +
  `${op.branch_id ? ` on ${op.branch_id}` : ''} since ${op.created_at.slice(11, 19)}`;

/**
 * Sends the request, retried as the OpenAPI document's GeneralError says: 423 Locked and 503 are
 * "safe to retry", 429 is paced as every request is; a POST, PATCH, PUT or DELETE that got no answer
 * "may have been applied" and is never sent again (`UnconfirmedError`). While 423 answers, the
 * project's list says which operations hold the lock: the request goes again once none runs (with
 * jitter, so that jobs waiting on one lock do not all come back at once), and at a bounded backoff
 * when the list shows none (the lock may be elsewhere).
 */
export async function sendRequest(
  request: ApiRequest,
  deadline: number,
  deps: RequestDeps
): Promise<RequestOutcome> {
  const { client, projectId, clock = systemClock, random = Math.random } = deps;
  const retry = new RetryPolicy({ random });
  const outcome: RequestOutcome = { ...request, attempts: 0, lockedMs: 0, holders: [] };
  const named = `${request.method} ${request.path}`;
  let lockedSince: number | undefined;
  let lastError: string | undefined;
  for (let backoff = 0; ;) {
    const now = clock.now();
    if (lockedSince !== undefined) outcome.lockedMs = now - lockedSince;
    if (deadline - now < LAST_TRY_LEAD_MS) throw deadlineError(outcome, lastError);
    outcome.attempts++;
    deps.onProgress?.(outcome);
    let answer;
    try {
      answer = await client.sendOnce(request.method, request.path, request.body, deadline - now);
    } catch (error) {
      if (!(error instanceof TransientError)) throw error;
      if (request.method !== 'GET') throw unconfirmed(named, error.message);
      lastError = error.message;
      await pause(retry.delay(backoff++, deadline - clock.now()), outcome, lastError, deps);
      continue;
    }
    const { status, said } = answer;
    if (status >= 200 && status < 300) {
      if (lockedSince !== undefined) outcome.lockedMs = clock.now() - lockedSince;
      const response = withoutSecrets(answer.body);
      return { ...outcome, status, response, databaseUrl: answer.connectionUri };
    }
    lastError = said;
    if (status === 423) {
      lockedSince ??= now;
      const holders = await lockHolders(client, projectId, deadline);
      for (const name of holders) if (!outcome.holders.includes(name)) outcome.holders.push(name);
      deps.onProgress?.(outcome); // the progress line names the holders while the lock lasts
      const since = formatDuration(clock.now() - lockedSince);
      if (holders.length > 0) {
        deps.log(
          `${named}: locked by ${holders.join(', ')} (attempt ${outcome.attempts}, locked ${since}).`
        );
        await untilReleased(deps, deadline, lockedSince, outcome);
        continue;
      }
      deps.log(
        `${named}: HTTP 423 Locked, no operation in progress in the list (attempt ${outcome.attempts}, locked ${since}).`
      );
      await pause(retry.delay(backoff++, deadline - clock.now()), outcome, said, deps);
      continue;
    }
    if (status === 503 || status === 429) {
      const delay = retry.delay(
        backoff++,
        deadline - clock.now(),
        answer.retryAfterMs,
        status === 429
      );
      deps.log(`${named}: ${said}; trying again (attempt ${outcome.attempts}).`);
      await pause(delay, outcome, said, deps);
      continue;
    }
    // The body is never echoed: it may hold what the user did not mean to show.
    throw new ApiError(`The request ${named} was refused: ${said}.`, status);
  }
}

/** The project's operations in progress now (the newest page is enough: they are the newest). */
async function lockHolders(client: NeonClient, projectId: string, deadline: number) {
  const page = await client.listOperations(projectId, { limit: 20 }, deadline);
  return page.operations.filter((op) => isInProgress(op.status)).map(holderName);
}

/** Looks at the list until no operation runs, then returns (the request goes again at once). */
async function untilReleased(
  deps: RequestDeps,
  deadline: number,
  lockedSince: number,
  outcome: RequestOutcome
): Promise<void> {
  const { client, projectId, clock = systemClock, random = Math.random } = deps;
  for (;;) {
    const wait = lockLookMs(clock.now() - lockedSince, random);
    if (clock.now() + wait > deadline - LAST_TRY_LEAD_MS) {
      outcome.lockedMs = clock.now() - lockedSince;
      throw deadlineError(outcome, 'HTTP 423 Locked');
    }
    await clock.sleep(wait, deps.signal);
    const holders = await lockHolders(client, projectId, deadline);
    if (holders.length === 0) return;
  }
}

async function pause(
  delay: number | undefined,
  outcome: RequestOutcome,
  lastError: string,
  deps: RequestDeps
): Promise<void> {
  if (delay === undefined) throw deadlineError(outcome, lastError);
  await (deps.clock ?? systemClock).sleep(delay, deps.signal);
}

function deadlineError(outcome: RequestOutcome, lastError?: string): DeadlineError {
  const held = outcome.holders.length
    ? `; the project was locked by ${outcome.holders.join(', ')}`
    : '';
  const what = `${outcome.method} ${outcome.path} not accepted after ${outcome.attempts} attempt(s)${held}`;
  return new DeadlineError(`${what} (last answer: ${lastError ?? 'none'})`);
}

function unconfirmed(named: string, why: string): UnconfirmedError {
  return new UnconfirmedError(
    `The request ${named} got no answer (${why}); it may have been applied, so it is not sent again. ` +
      "Check the project's operations and branches (the console, or GET /projects/{project_id}/operations) before running this step again."
  );
}
