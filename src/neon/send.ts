import { type Clock, systemClock } from '../util/clock.js';
import { formatDuration } from '../util/duration.js';
import {
  ApiError,
  CancelledError,
  DeadlineError,
  NotSentError,
  UnconfirmedError
} from '../util/errors.js';
import type { ApiRequest, NeonClient, Tries } from './client.js';
import type { RequestMethod } from './http.js';
import type { BranchOutcome } from './branch-outcome.js';
import type { SweepOutcome } from './branch-sweep.js';
import type { Operation } from './operation.js';
import { type Durations, expectedEndIn, holderName, LockWatch } from './lock-watch.js';
import { type Rule } from './answer-rules.js';
import { LAST_TRY_LEAD_MS, MIN_GAP_MS, RetryPolicy } from './retry.js';
import { withoutSecrets } from './secrets.js';

/** What happened to the request: the answer accepted, and what it cost to get it. */
export interface RequestOutcome {
  method: RequestMethod;
  path: string;
  /** The rule the last answer met: `accept`, or `adopt` (409 for a name) or `gone` (404 for a deletion). */
  ended?: Extract<Rule, 'accept' | 'adopt' | 'gone'>;
  /** The runner's time (epoch ms) of the first send that got no answer: it may have been applied. */
  unansweredAt?: number;
  /** What a branch kind did to the branch. */
  branch?: BranchOutcome;
  /** What a sweep did to each branch its pattern matched. */
  sweep?: SweepOutcome;
  /** The error of the answer taken when it is not a 2xx (a 409 adopted): `HTTP 409: message`. */
  answerError?: string;
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

/** A request's outcome before its first send: nothing tried, nothing met. */
export const unsent = (method: RequestMethod, path: string): RequestOutcome => ({
  method,
  path,
  attempts: 0,
  lockedMs: 0,
  holders: []
});

export interface RequestDeps {
  client: NeonClient;
  projectId: string;
  clock?: Clock;
  random?: () => number;
  signal?: AbortSignal;
  log: (line: string) => void;
  /** Told of each attempt, so that what happened is known however the request ends (a deadline, no answer). */
  onProgress?: (outcome: RequestOutcome) => void;
  /** Whether the operations a mutation starts are then waited for (false: `wait: false`, no time is needed). */
  awaits?: boolean;
  /** Each kind's typical duration in the operations read (the project's history): none, the floor only. */
  durations?: Durations;
}

/** Pace while operations hold the lock: a look at the list every 1 s, slower as the lock ages (to 5 s). */
export const lockLookMs = (lockedMs: number, random: () => number): number =>
  Math.round(Math.min(5000, Math.max(1000, lockedMs / 5)) * (0.75 + random() / 2));

/** Up to this much after the holders' expected end: jobs waiting on one lock must not all look at once. */
const END_JITTER_MS = 500;
/**
 * A look toward a far expected end waits this part of the time left (±25 %), so the looks halve
 * it (a 30 s holder: at 15 s, 22.5 s, …, until the lock's pace is the shorter). Measured on the
 * crowd with a history (`bench/locked.ts`, 20 seeds): waiting the whole time left instead spent
 * two fewer looks a job and left the project free 37 s instead of 43 s, but a single job whose
 * lock ended 8 s before its kind's typical end noticed it 8.6 s late instead of 2.1 s (median);
 * half the holders end before their median, so halving is kept.
 */
const TOWARD_END = 0.5;

/**
 * Ms until the next look at the list while holders keep a project locked (`lockedMs`, this job's
 * time answered 423 so far); `endsIn`, when the holders are expected to end (their kinds' history
 * here; undefined: none, or run past it). Without an expected end, the lock's pace. With one
 * sooner than that pace, at the end (with jitter). With one far off, toward it (`TOWARD_END`),
 * never sooner than the lock's pace and never later than the end: 30 jobs each looking once a
 * second at a lock their history says lasts 30 s spent the account's minute (300 requests in the
 * bench) in 15 s, and the project then stood free ~30 s after the lock while every job waited out
 * its 429 (issue 36 class 6).
 *
 * Never longer than the job has waited either: when the history is wrong and the lock ends
 * early, it is seen at most as late as the lock had lasted, half the wait at most (a 6 s lock of
 * a kind that takes ~30 s: 2.7 s late, median; 4.7 s at most). The gaps double early in a long
 * lock (1, 2, 4, 8 s), the larger part of what the looks still cost.
 */
export function nextLookMs(
  lockedMs: number,
  endsIn: number | undefined,
  random: () => number
): number {
  const look = lockLookMs(lockedMs, random);
  if (endsIn === undefined) return look;
  const atEnd = endsIn + random() * END_JITTER_MS;
  if (atEnd <= look) return atEnd;
  const toward = Math.min(endsIn * TOWARD_END * (0.75 + random() / 2), lockedMs);
  return Math.min(atEnd, Math.max(look, toward));
}

/**
 * A mutation is not sent with less time left than this: what it starts must still be waited for.
 * The shortest operations take 1 to 2 s (a created_at and an updated_at 2 s apart in recorded
 * answers; the simulator's take 2 s), a branch with a compute is two of them one after the other,
 * and the wait sees the end one check later. Sent with less, the branch is made and the step
 * still ends `timeout`, leaving it behind (issue 36 class 3).
 */
export const MUTATION_FLOOR_MS = 5000;

/**
 * The action of the first operation a free-form `request:` starts, which says only its method and
 * path: the mutations users send most. A typed kind names its own (`ApiRequest.action`).
 */
const MUTATION_KINDS: Array<[RegExp, string]> = [
  [/^POST \/projects\/[^/]+\/branches$/, 'create_branch'],
  [/^POST \/projects\/[^/]+\/branches\/[^/]+\/restore$/, 'create_timeline'],
  [/^DELETE \/projects\/[^/]+\/branches\/[^/]+$/, 'delete_timeline'],
  [/^POST \/projects\/[^/]+\/endpoints\/[^/]+\/start$/, 'start_compute'],
  [/^POST \/projects\/[^/]+\/endpoints\/[^/]+\/suspend$/, 'suspend_compute']
];

/** The action of the first operation a mutation starts; undefined when neither its kind nor its path says. */
function actionOf(request: ApiRequest): string | undefined {
  if (request.action !== undefined) return request.action;
  const named = `${request.method} ${request.path}`;
  return MUTATION_KINDS.find(([pattern]) => pattern.test(named))?.[1];
}

/** The time a mutation needs to be waited for: its kind's median here (5 or more past ones), at least the floor. */
function needOf(request: ApiRequest, typical: ReadonlyMap<string, number>) {
  const kind = actionOf(request);
  const floor = `a ${kind ?? 'mutation'} needs at least ${formatDuration(MUTATION_FLOOR_MS)} to be waited for`;
  // Typical is the median: sent with less, what it starts more likely than not outlasts the step.
  const ms = kind === undefined ? undefined : typical.get(kind);
  if (ms === undefined || ms <= MUTATION_FLOOR_MS) return { ms: MUTATION_FLOOR_MS, said: floor };
  return { ms, said: `a ${kind} takes ~${formatDuration(Math.round(ms / 1000) * 1000)} here` };
}

/** Each kind's typical duration among the operations the lock's looks have read. */
const typicalOf = (lock: LockWatch, deps: RequestDeps): ReadonlyMap<string, number> =>
  deps.durations?.([...lock.seen.values()]) ?? new Map();

/** A deadline error when a mutation has less time left than it needs; undefined when it may go. */
function notSent(
  request: ApiRequest,
  leftMs: number,
  lock: LockWatch,
  deps: RequestDeps
): NotSentError | undefined {
  if (request.method === 'GET' || deps.awaits === false) return undefined;
  const need = needOf(request, typicalOf(lock, deps));
  if (leftMs >= need.ms) return undefined;
  const left = formatDuration(Math.round(leftMs / 100) * 100);
  return new NotSentError(`${request.method} ${request.path} not sent: ${left} left, ${need.said}`);
}

/**
 * Sends the request through the client's one send loop, each answer handled as its row of
 * `REQUEST_RULES` says. The OpenAPI document's GeneralError: 423 Locked and 503 are "safe to retry",
 * 429 is paced as every request is; a mutation that got no answer "may have been applied" and is
 * sent again only when its kind makes it idempotent (a create by name, a deletion), else never
 * (`UnconfirmedError`). While 423 answers, the project's list says which operations hold the lock:
 * the request goes again once none runs (with jitter, so that jobs waiting on one lock do not all
 * come back at once), and at a bounded backoff when the list shows none (the lock may be elsewhere).
 */
export async function sendRequest(
  request: ApiRequest,
  deadline: number,
  deps: RequestDeps
): Promise<RequestOutcome> {
  const { client, projectId, clock = systemClock, random = Math.random } = deps;
  const { method, path } = request;
  const outcome = unsent(method, path);
  const named = `${method} ${path}`;
  let lockedSince: number | undefined;
  const lock = new LockWatch(client, projectId);
  const timedOut = (tries: Tries) => deadlineError(outcome, tries.lastError);
  // A send whose answer has not come yet: a signal then leaves a mutation that may have been applied.
  let awaitingAnswer = false;
  const sending = client.send(request, deadline, {
    parse: (answer) => answer,
    retry: new RetryPolicy({ random }),
    beforeSend: (leftMs, tries) => {
      if (lockedSince !== undefined) outcome.lockedMs = clock.now() - lockedSince;
      if (leftMs < LAST_TRY_LEAD_MS) return timedOut(tries);
      return notSent(request, leftMs, lock, deps);
    },
    onSend: (tries) => {
      awaitingAnswer = true;
      outcome.attempts = tries.attempts;
      deps.onProgress?.(outcome);
    },
    onRetry: (tries, _delayMs, answer) => {
      awaitingAnswer = false;
      if (!answer) outcome.unansweredAt ??= tries.lastAt;
      const again = answer ? 'trying again' : 'safe to send again';
      if (answer?.status !== 423)
        deps.log(`${named}: ${tries.lastError}; ${again} (attempt ${tries.attempts}).`);
    },
    awaitLock: async (_answer, tries) => {
      awaitingAnswer = false;
      lockedSince ??= tries.lastAt ?? clock.now(); // locked since the send the 423 answered
      const held = await lock.holders(deadline);
      const holders = held.map(holderName);
      for (const name of holders) if (!outcome.holders.includes(name)) outcome.holders.push(name);
      deps.onProgress?.(outcome); // the progress line names the holders while the lock lasts
      const since = formatDuration(clock.now() - lockedSince);
      const at = `attempt ${tries.attempts}, locked ${since}`;
      if (holders.length === 0) {
        deps.log(`${named}: HTTP 423 Locked, no operation in progress in the list (${at}).`);
        return false;
      }
      deps.log(`${named}: locked by ${holders.join(', ')} (${at}).`);
      await untilReleased(deps, deadline, lockedSince, outcome, lock, held);
      return true;
    },
    // The body is never echoed: it may hold what the user did not mean to show.
    refused: (answer) =>
      new ApiError(
        `The request ${named} was refused: ${answer.errorText}.`,
        answer.status,
        undefined,
        undefined,
        answer.body
      ),
    unconfirmed: (why) =>
      new UnconfirmedError(
        `The request ${named} got no answer (${why}); it may have been applied, so it is not sent again. ${CHECK_FIRST}`
      ),
    timedOut
  });
  const sent = await sending.catch((error: unknown) => {
    const applied = awaitingAnswer || outcome.unansweredAt !== undefined;
    if (!(error instanceof CancelledError) || method === 'GET' || !applied) throw error;
    throw new CancelledError(
      `The request ${named} was sent and its answer had not come: it may have been applied. ${CHECK_FIRST}`
    );
  });
  const { answer, rule } = sent;
  if (lockedSince !== undefined) outcome.lockedMs = clock.now() - lockedSince;
  const done = { ...outcome, status: answer.status, ended: rule };
  if (rule !== 'accept') return { ...done, answerError: answer.errorText };
  return { ...done, response: withoutSecrets(answer.body), databaseUrl: answer.connectionUri };
}

/** What to do after a mutation that may have been applied: see what it did before sending it again. */
const CHECK_FIRST =
  "Check the project's operations and branches (the console, or GET /projects/{project_id}/operations) before running this step again.";

/**
 * Looks at the list until no operation runs, then returns (the request goes again at once). The
 * last look is cut to land `LAST_TRY_LEAD_MS` before the deadline: a jittered pace that would pass
 * it must not end the step seconds early (issue 36 class 4).
 */
async function untilReleased(
  deps: RequestDeps,
  deadline: number,
  lockedSince: number,
  outcome: RequestOutcome,
  lock: LockWatch,
  seen: Operation[]
): Promise<void> {
  const { clock = systemClock, random = Math.random } = deps;
  for (let holders = seen; ;) {
    const room = deadline - LAST_TRY_LEAD_MS - clock.now();
    if (room < MIN_GAP_MS) {
      outcome.lockedMs = clock.now() - lockedSince;
      throw deadlineError(outcome, 'HTTP 423 Locked');
    }
    // The lock's pace, or toward the holders' expected end (`nextLookMs`), slower when this job's
    // share of the account's minute asks it.
    const serviceNow = deps.client.serviceClock.toService(clock.now());
    const ends = expectedEndIn(holders, typicalOf(lock, deps), serviceNow);
    const next = nextLookMs(clock.now() - lockedSince, ends, random);
    const pace = Math.max(next, deps.client.share.waitMs(clock.now()));
    await clock.sleep(Math.min(room, pace), deps.signal);
    holders = await lock.holders(deadline);
    if (holders.length === 0) return;
  }
}

function deadlineError(outcome: RequestOutcome, lastError?: string): DeadlineError {
  const held = outcome.holders.length
    ? `; the project was locked by ${outcome.holders.join(', ')}`
    : '';
  const what = `${outcome.method} ${outcome.path} not accepted after ${outcome.attempts} attempt(s)${held}`;
  return new DeadlineError(`${what} (last answer: ${lastError ?? 'none'})`);
}
