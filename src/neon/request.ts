import { type Clock, systemClock } from '../util/clock.js';
import { formatDuration } from '../util/duration.js';
import { ApiError, DeadlineError, TransientError, UnconfirmedError } from '../util/errors.js';
import { oneLine } from '../util/text.js';
import { learnHistory, type Survival } from '../wait/history.js';
import { isInProgress } from '../wait/status.js';
import type { NeonClient } from './client.js';
import type { RequestMethod } from './http.js';
import type { Operation } from './operation.js';
import { CHECK_BUDGET, PAGE_SIZE, operationPages } from './paging.js';
import { LAST_TRY_LEAD_MS, MIN_GAP_MS, RetryPolicy } from './retry.js';
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
  /** Whether the operations a mutation starts are then waited for (false: `wait: false`, no time is needed). */
  awaits?: boolean;
}

/** Pace while operations hold the lock: a look at the list every 1 s, slower as the lock ages (to 5 s). */
export const lockLookMs = (lockedMs: number, random: () => number): number =>
  Math.round(Math.min(5000, Math.max(1000, lockedMs / 5)) * (0.75 + random() / 2));

/**
 * A mutation is not sent with less time left than this: what it starts must still be waited for.
 * The shortest operations take 1 to 2 s (a created_at and an updated_at 2 s apart in recorded
 * answers; the simulator's take 2 s), a branch with a compute is two of them one after the other,
 * and the wait sees the end one check later. Sent with less, the branch is made and the step
 * still ends `timeout`, leaving it behind (issue 36 class 3).
 */
export const MUTATION_FLOOR_MS = 5000;

/** The action of the first operation a mutation starts, by its method and path: its history says how long it takes. */
const MUTATION_KINDS: Array<[RegExp, string]> = [
  [/^POST \/projects\/[^/]+\/branches$/, 'create_branch'],
  [/^POST \/projects\/[^/]+\/branches\/[^/]+\/restore$/, 'create_timeline'],
  [/^DELETE \/projects\/[^/]+\/branches\/[^/]+$/, 'delete_timeline'],
  [/^POST \/projects\/[^/]+\/endpoints\/[^/]+\/start$/, 'start_compute'],
  [/^POST \/projects\/[^/]+\/endpoints\/[^/]+\/suspend$/, 'suspend_compute']
];

/**
 * The lock's holders, looked for page after page (issue 36 class 5: a holder older than the 20
 * newest operations was missed). Each look reads the newest 20 (new holders are the newest), then
 * asks by id for the holders seen before that have slipped off it (at most `CHECK_BUDGET.byId`).
 * Once, when that shows none and the page was full, it pages on: pages of 100, at most
 * `DEEP_PAGES`, stopping at a page shorter than asked. An operation listed finished does not run
 * again, and one that starts later is listed first, so one deep scan finds what hides below; what
 * it found is then followed by id. The finished ones read are the project's history.
 */
class LockWatch {
  /** Holders seen, by id: followed until they end. */
  private readonly held = new Map<string, Operation>();
  private scanned = false;
  /** Every operation read, for what a mutation's kind takes here. */
  readonly seen = new Map<string, Operation>();

  constructor(
    private readonly client: NeonClient,
    private readonly projectId: string
  ) {}

  async holders(deadline: number): Promise<Operation[]> {
    const { client, projectId } = this;
    const page = await client.listOperations(
      projectId,
      { limit: FIRST_LOOK },
      deadline,
      deadline,
      true
    );
    this.read(page.operations);
    const listed = new Set(page.operations.map((op) => op.id));
    const slipped = [...this.held.keys()].filter((id) => !listed.has(id));
    for (const id of slipped.slice(0, CHECK_BUDGET.byId))
      this.read([await client.getOperation(projectId, id, deadline)]);
    const full = page.operations.length >= FIRST_LOOK && page.cursor !== undefined;
    if (this.held.size === 0 && full && !this.scanned) {
      this.scanned = true;
      const first = { ...page, limit: FIRST_LOOK };
      const pages = operationPages(client, projectId, {
        limit: PAGE_SIZE,
        deadline,
        maxPages: DEEP_PAGES,
        first
      });
      for await (const operations of pages) this.read(operations);
    }
    return [...this.held.values()];
  }

  private read(operations: Operation[]): void {
    for (const op of operations) {
      this.seen.set(op.id, op);
      if (isInProgress(op.status)) this.held.set(op.id, op);
      else this.held.delete(op.id);
    }
  }
}

/** The newest operations each look reads. */
const FIRST_LOOK = 20;
/**
 * Pages of 100 one deep scan reads at most (300 operations below the first 20): as deep as the
 * project mode's first check looks (`FIRST_SCAN_PAGES`). A holder deeper than that is ridden out by
 * the bounded backoff of a 423 with no holder in view.
 */
const DEEP_PAGES = 3;

/** The time a mutation needs to be waited for: its kind's median here (5 or more past ones), at least the floor. */
function needOf(request: ApiRequest, seen: Iterable<Operation>): { ms: number; said: string } {
  const named = `${request.method} ${request.path}`;
  const kind = MUTATION_KINDS.find(([pattern]) => pattern.test(named))?.[1];
  const model = kind === undefined ? undefined : learnHistory([...seen]).get(kind);
  const floor = `a ${kind ?? 'mutation'} needs at least ${formatDuration(MUTATION_FLOOR_MS)} to be waited for`;
  if (!model) return { ms: MUTATION_FLOOR_MS, said: floor };
  // The median: sent with less, what it starts more likely than not outlasts the step.
  const hi = medianMs(model);
  if (hi <= MUTATION_FLOOR_MS) return { ms: MUTATION_FLOOR_MS, said: floor };
  return { ms: hi, said: `a ${kind} takes ~${formatDuration(Math.round(hi / 1000) * 1000)} here` };
}

/** The duration an operation of a kind outlasts half the time (`Survival` is P(longer than ms)), to 0.1 s. */
function medianMs(model: Survival): number {
  let [lo, hi] = [0, 3_600_000];
  while (hi - lo > 100) {
    const mid = (lo + hi) / 2;
    if (model(mid) > 0.5) lo = mid;
    else hi = mid;
  }
  return hi;
}

/**
 * Ms until the holders are expected to have ended, by their kinds' medians here; undefined when one
 * has no history, or all have run past theirs (then the lock's pace decides).
 */
function expectedEndIn(holders: Operation[], seen: Iterable<Operation>, serviceNow: number) {
  const models = learnHistory([...seen]);
  let last = 0;
  for (const op of holders) {
    const model = models.get(op.action);
    // Whole-second timestamps: on average it began half a second after its created_at.
    const begun = Date.parse(op.created_at) + (/\.\d/.test(op.created_at) ? 0 : 500);
    if (!model || !Number.isFinite(begun)) return undefined;
    last = Math.max(last, begun + medianMs(model) - serviceNow);
  }
  return last > 0 ? last : undefined;
}

/** A deadline error when a mutation has less time left than it needs; undefined when it may go. */
function notSent(
  request: ApiRequest,
  leftMs: number,
  lock: LockWatch,
  deps: RequestDeps
): DeadlineError | undefined {
  if (request.method === 'GET' || deps.awaits === false) return undefined;
  const need = needOf(request, lock.seen.values());
  if (leftMs >= need.ms) return undefined;
  const left = formatDuration(Math.round(leftMs / 100) * 100);
  return new DeadlineError(
    `${request.method} ${request.path} not sent: ${left} left, ${need.said}; give it a longer timeout`
  );
}

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
  const lock = new LockWatch(client, projectId);
  for (let backoff = 0; ;) {
    const now = clock.now();
    if (lockedSince !== undefined) outcome.lockedMs = now - lockedSince;
    if (deadline - now < LAST_TRY_LEAD_MS) throw deadlineError(outcome, lastError);
    const short = notSent(request, deadline - now, lock, deps);
    if (short) throw short;
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
      const held = await lock.holders(deadline);
      const holders = held.map(holderName);
      for (const name of holders) if (!outcome.holders.includes(name)) outcome.holders.push(name);
      const since = formatDuration(clock.now() - lockedSince);
      if (holders.length > 0) {
        deps.log(
          `${named}: locked by ${holders.join(', ')} (attempt ${outcome.attempts}, locked ${since}).`
        );
        await untilReleased(deps, deadline, lockedSince, outcome, lock, held);
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
    // The lock's pace, sooner when the holders are expected to end sooner (with up to 0.5 s of
    // jitter: jobs waiting on one lock must not all look at once), slower when this job's share of
    // the account's minute asks it.
    const serviceNow = deps.client.serviceClock.toService(clock.now());
    const ends = expectedEndIn(holders, lock.seen.values(), serviceNow);
    const look = lockLookMs(clock.now() - lockedSince, random);
    const soon = ends === undefined ? look : Math.min(look, ends + random() * 500);
    const pace = Math.max(soon, deps.client.share.waitMs(clock.now()));
    await clock.sleep(Math.min(room, pace), deps.signal);
    holders = await lock.holders(deadline);
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
