import { request } from 'node:http';
import { NeonClient } from '../src/neon/client.js';
import { createTransport } from '../src/neon/transport.js';
import { performAndWait, type RequestKind } from '../src/requests/index.js';
import type { GitHubAccess, WaitResult } from '../src/wait/wait.js';
import { DEFAULT_POLICY } from '../src/wait/status.js';
import {
  DEFAULT_KEY,
  lock,
  pastOperations,
  project,
  type Scenario
} from '../simulator/scenario.js';
import {
  NEON_RATE_LIMIT,
  type RateLimit,
  type Simulator,
  startSimulator
} from '../simulator/server.js';
import { prng } from '../simulator/simulated-wait.js';
import { VirtualTime } from '../simulator/virtual-time.js';
import { busiestMinute, EPOCH, type Ending, type PreviewContext } from './peers.js';

/**
 * The locked cases of issue 29: a job sends a mutation (a branch creation) to a project that
 * another operation holds, so the API answers `423 Locked` until it is free. Each tool below sends
 * the request and handles 423 as its source does today, against the simulator (Neon's rate limits
 * on, `operationMs` operations) on simulated time.
 *
 * Sources read (2026-11):
 * - neonctl, `src/api.ts` `retryOnLock` (neondatabase/neonctl 0ba830b): on 423, log, wait 3 s and
 *   try again, 5 times in all, then throw the 423; any other error (a network error included) is
 *   thrown at once; axios timeout 60 s. Its commands do not wait for the operations.
 * - kislerdm/terraform-provider-neon, `provider/retry.go` (71d0000): `projectReadiness` retries
 *   429, 500 and 423 every 1 s, 120 times; any other error, a network error included, ends it.
 *   Then `provider/wait-unfinished-operations.go`: each operation given as running or scheduling
 *   is polled every 100 ms until it is neither, with no deadline.
 * - neondatabase/create-branch-action v6, `src/branch.ts` (dd5bb61): lists the project's branches
 *   to find one of that name, then one `createProjectBranch` (axios, 10 s timeout), no retry of
 *   anything, and the `operations` of the answer are not read (nothing waits).
 */

export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** What a tool is given: the API, its key, and how to send (a network error throws). */
export interface RequestContext {
  projectId: string;
  /** The request's body: a branch named after the job, so duplicates can be counted. */
  body: { branch: { name: string } };
  call(method: string, path: string, body?: unknown): Promise<Answer>;
  time: VirtualTime;
  url: string;
  apiKey: string;
  random: () => number;
}

export interface RequestPeer {
  name: string;
  send(ctx: RequestContext): Promise<{ ending: Ending; detail?: string }>;
}

const sleep = (ctx: RequestContext, ms: number): Promise<void> => ctx.time.clock.sleep(ms);
const branches = (ctx: RequestContext): string => `/projects/${ctx.projectId}/branches`;

export const neonctlPeer: RequestPeer = {
  name: 'neonctl (423: 5 tries, 3 s apart)',
  async send(ctx) {
    let last = 0;
    for (let attempt = 0; attempt < 5; attempt++) {
      let answer: Answer;
      try {
        answer = await ctx.call('POST', branches(ctx), ctx.body);
      } catch (error) {
        return { ending: 'error', detail: (error as Error).message };
      }
      if (answer.status === 201) return { ending: 'success', detail: 'not waited' };
      if (answer.status !== 423) return { ending: 'error', detail: `HTTP ${answer.status}` };
      last = answer.status;
      await sleep(ctx, 3000);
    }
    return { ending: 'error', detail: `HTTP ${last} after 5 tries` };
  }
};

const unfinished = (status: unknown): boolean => status === 'running' || status === 'scheduling';

export const terraformPeer: RequestPeer = {
  name: 'Terraform provider (kislerdm; 120 × 1 s, then 100 ms polls)',
  async send(ctx) {
    let answer: Answer | undefined;
    for (let attempt = 0; attempt < 120; attempt++) {
      try {
        answer = await ctx.call('POST', branches(ctx), ctx.body);
      } catch (error) {
        return { ending: 'error', detail: (error as Error).message };
      }
      if (![423, 429, 500].includes(answer.status)) break;
      await sleep(ctx, 1000);
    }
    if (answer?.status !== 201) return { ending: 'error', detail: `HTTP ${answer?.status}` };
    const operations = (answer.body.operations ?? []) as Array<{ id: string; status: string }>;
    await Promise.all(
      operations
        .filter((op) => unfinished(op.status))
        .map(async (op) => {
          for (;;) {
            await sleep(ctx, 100);
            const seen = await ctx
              .call('GET', `/projects/${ctx.projectId}/operations/${op.id}`)
              .catch(() => undefined);
            const status = (seen?.body.operation as { status?: string } | undefined)?.status;
            if (seen?.status === 200 && !unfinished(status)) return;
          }
        })
    );
    return { ending: 'success' };
  }
};

export const createBranchActionPeer: RequestPeer = {
  name: 'create-branch-action v6 (no retry)',
  async send(ctx) {
    try {
      const name = encodeURIComponent(ctx.body.branch.name);
      await ctx.call('GET', `${branches(ctx)}?search=${name}&limit=10000`);
      const answer = await ctx.call('POST', branches(ctx), ctx.body);
      if (answer.status === 201) return { ending: 'success', detail: 'not waited' };
      return { ending: 'error', detail: `HTTP ${answer.status}` };
    } catch (error) {
      return { ending: 'error', detail: (error as Error).message };
    }
  }
};

/**
 * This action with `request: POST /projects/{project_id}/branches` and the job's `body`: `performAndWait`
 * sends it (423 retried until the deadline, no resend after no answer), then waits for the
 * operations of the answer with the default `interval` (5s).
 */
export function actionRequestPeer(timeoutMs: number): RequestPeer {
  return {
    name: `this action (request, ${timeoutMs / 60_000} min)`,
    async send(ctx) {
      const body = JSON.stringify(ctx.body);
      const request = { kind: 'request', method: 'POST', path: branches(ctx), body } as const;
      const result = await runActionStep(ctx, request, timeoutMs);
      const ending: Ending = result.timedOut ? 'timeout' : result.failure ? 'error' : 'success';
      if (result.failure) return { ending, detail: `${result.status}: ${result.failure}` };
      const holders = result.request?.holders ?? [];
      const held = holders.length ? `; held by ${holders.join(', ')}` : '';
      return { ending, detail: `${result.request?.attempts ?? 0} attempt(s)${held}` };
    }
  };
}

/** What this action's step needs of a bench scenario: the API, its key, its clock and randomness. */
export type StepContext = Pick<RequestContext, 'projectId' | 'url' | 'apiKey' | 'time' | 'random'>;

/** This action's step with `request` (`interval` 5 s), as `performAndWait` runs it, on the scenario's clock. */
export async function runActionStep(
  ctx: StepContext,
  request: RequestKind,
  timeoutMs: number,
  github?: GitHubAccess
): Promise<WaitResult> {
  const client = new NeonClient({
    baseUrl: ctx.url,
    apiKey: ctx.apiKey,
    clock: ctx.time.clock,
    random: ctx.random,
    transport: ctx.time.transport(createTransport())
  });
  try {
    const settings = {
      projectId: ctx.projectId,
      operationIds: [],
      givenOperations: [],
      wait: true,
      timeoutMs,
      intervalMs: 5000,
      policy: DEFAULT_POLICY,
      request
    };
    const log = { info: () => undefined, warning: () => undefined };
    return await performAndWait(settings, {
      client,
      clock: ctx.time.clock,
      random: ctx.random,
      log,
      github
    });
  } finally {
    await client.close();
  }
}

/** Every tool, this action with the given timeout (the others have their own). */
export function requestPeers(actionTimeoutMs: number): RequestPeer[] {
  return [actionRequestPeer(actionTimeoutMs), neonctlPeer, terraformPeer, createBranchActionPeer];
}

export const LOCKED_PROJECT = 'locked-project-1';

export interface LockedJob {
  ending: Ending | 'still waiting';
  detail?: string;
  /** Simulated ms when the API applied the job's request (its branch was created), if it did. */
  acceptedAt?: number;
  /** Simulated ms when the job ended. */
  endedAt?: number;
}

export interface LockedRun {
  jobs: LockedJob[];
  requests: number;
  /** POSTs the API received (answered or not). */
  posts: number;
  /** POSTs answered 423. */
  locked: number;
  /** Branches the run created, and how many distinct names they have (fewer: a duplicate). */
  created: number;
  names: number;
  /** Most requests answered in any minute. */
  busiestMinute: number;
  /** Requests answered 429 (the account's budget spent). */
  limited: number;
  /**
   * When each operation of the project ran, from its creation (a chain's later operations are
   * scheduled from then: they hold the lock too) to its end (Infinity: never ended): the lock's,
   * and every operation the accepted requests started, as the simulator answers them.
   */
  holds: Array<[number, number]>;
  /**
   * Time the project was free (no operation in progress) while a job still waited to be accepted:
   * from the start to the last acceptance, less the time `holds` cover.
   */
  idleMs: number;
  /** Every request the API received: when (simulated ms), its route, its status. */
  trace: Array<[number, string, number]>;
}

export interface LockedOptions {
  peer: RequestPeer;
  /** How many jobs send their request at once (from `startAt`). */
  jobs: number;
  startAt?: number;
  /** The lock held by another operation: from, for how long (Infinity: never released). */
  lockMs?: [number, number];
  /**
   * How long past operations of the lock holder's kind (`apply_config`) took, newest first: the
   * project's history, which tells the jobs when the holder is expected to end.
   */
  historyMs?: readonly number[];
  prepare?: (sim: Simulator) => void;
  operationMs?: number;
  limitMs: number;
  seed?: number;
  /** The account's limits (Neon's by default). */
  rateLimit?: RateLimit;
}

export async function runLocked(options: LockedOptions): Promise<LockedRun> {
  const { peer } = options;
  const scenario: Scenario = {
    keys: { [DEFAULT_KEY]: { kind: 'personal', user: 'user-1' } },
    projects: [project(LOCKED_PROJECT, { owner_id: 'user-1' })],
    operations: [
      ...(options.lockMs ? [lock(LOCKED_PROJECT, ...options.lockMs)] : []),
      ...pastOperations(LOCKED_PROJECT, 'apply_config', options.historyMs ?? [])
    ]
  };
  const time = new VirtualTime(EPOCH);
  const random = prng(options.seed ?? 1);
  const operationMs = options.operationMs ?? 2000;
  let sim: Simulator | undefined;
  try {
    sim = await startSimulator({
      scenario,
      clock: () => time.elapsed(),
      epoch: EPOCH,
      rateLimit: options.rateLimit ?? NEON_RATE_LIMIT,
      operationMs
    });
    const s = sim;
    const before = s.branches(LOCKED_PROJECT).length;
    options.prepare?.(s);
    const results = await time.run(
      Array.from({ length: options.jobs }, async (_, i): Promise<LockedJob> => {
        await time.clock.sleep(options.startAt ?? 0);
        const call = (method: string, path: string, body?: unknown): Promise<Answer> =>
          time.busy(() => send(`${s.url}${path}`, method, body));
        const ended = await peer.send({
          projectId: LOCKED_PROJECT,
          body: { branch: { name: `job-${i}` } },
          call,
          time,
          url: s.url,
          apiKey: DEFAULT_KEY,
          random
        });
        return { ...ended, endedAt: time.elapsed() };
      }),
      options.limitMs
    );
    const made = s.branches(LOCKED_PROJECT).slice(before);
    const createdAt = (i: number): number | undefined =>
      made.find((branch) => branch.name === `job-${i}`)?.created;
    const answered = s.requests.filter((r) => r.status > 0 && r.status !== 429).map((r) => r.at);
    const holds = s.operations(LOCKED_PROJECT).map((op): [number, number] => {
      const last = op.steps.at(-1);
      return [op.created, last?.status === 'finished' ? last.at : Infinity];
    });
    return {
      jobs: results.map((job, i) => ({
        ...(job ?? { ending: 'still waiting' }),
        acceptedAt: createdAt(i)
      })),
      requests: s.requests.length,
      posts: s.requests.filter((r) => r.method === 'POST').length,
      locked: s.requests.filter((r) => r.method === 'POST' && r.status === 423).length,
      created: made.length,
      names: new Set(made.map((b) => b.name)).size,
      busiestMinute: busiestMinute(answered),
      limited: s.requests.filter((r) => r.status === 429).length,
      trace: s.requests.map((r): [number, string, number] => [r.at, r.route, r.status]),
      holds,
      idleMs: freeMs(holds, Math.max(0, ...made.map((b) => b.created)))
    };
  } finally {
    await sim?.close();
    time.dispose();
  }
}

/** Time in [0, until] that no interval of `busy` covers. */
function freeMs(busy: Array<[number, number]>, until: number): number {
  let free = 0;
  let covered = 0;
  for (const [from, to] of [...busy].sort((a, b) => a[0] - b[0])) {
    if (from >= until) break;
    if (from > covered) free += from - covered;
    covered = Math.max(covered, Math.min(to, until));
  }
  return free + Math.max(0, until - covered);
}

/**
 * The serial sum of a run: the time its operations held the project, one after the other (the lock,
 * then each accepted request's chain as the simulator answers it: in 2026 a creation is
 * `create_branch`, `timeline_update_protected_config` and a project-level `epc_sync`, 1.5 × the
 * operation time). Measured, not assumed: a goal of "1.5 × the serial sum" follows the chain.
 */
export function serialMs(holds: Array<[number, number]>): number {
  const until = Math.max(0, ...holds.map(([, to]) => to));
  return until - freeMs(holds, until);
}

/** Issue 36 class 6: 30 jobs, a project locked 30 s, an account limited to 300 requests a minute. */
export const CROWD_UNDER_LIMIT = {
  jobs: 30,
  lockMs: [0, 30_000] as [number, number],
  operationMs: 2000,
  rateLimit: { perMinute: 300, perRoutePerSecond: 40 },
  /** The goal for the last job's end: 1.5 × the serial sum (the lock, then each job's chain) + 5 s. */
  boundMs: (serial: number): number => 1.5 * serial + 5000
};

/**
 * The holder's kind has a history here: ten past `apply_config` of about 30 s (29 to 31 s), so
 * the jobs know from their first look when the lock should end (`expectedEndIn`).
 */
export const HOLDER_HISTORY_MS: readonly number[] = [
  30_000, 29_000, 31_000, 30_500, 29_500, 30_000, 31_000, 29_000, 30_000, 30_500
];

/**
 * The crowd case on `peer`: what the bench prints and the test bounds (`boundMs` of the run's
 * serial sum); `historyMs`, the holder's kind's past durations (none: a lock without history).
 */
export async function crowdUnderLimit(
  peer: RequestPeer,
  seed = 1,
  historyMs: readonly number[] = []
) {
  const { jobs, lockMs, operationMs, rateLimit } = CROWD_UNDER_LIMIT;
  const run = await runLocked({
    peer,
    jobs,
    lockMs,
    historyMs,
    operationMs,
    rateLimit,
    limitMs: 20 * 60_000,
    seed
  });
  const lastEnd = Math.max(...run.jobs.map((job) => job.endedAt ?? Infinity));
  const serial = serialMs(run.holds);
  return { run, lastEnd, serialMs: serial, boundMs: CROWD_UNDER_LIMIT.boundMs(serial) };
}

/**
 * One job against a project locked from 0 for `lockEndsMs`, starting somewhere in the lock's first
 * second (trial `i`: its start and seed); `historyMs`, the holder's kind's past durations. How late
 * after the lock's end its request was accepted, and how many POSTs were answered 423.
 */
export async function oneJobLocked(
  peer: RequestPeer,
  i: number,
  lockEndsMs: number,
  historyMs: readonly number[] = []
) {
  const startAt = Math.round(prng(500 + i)() * 1000);
  const run = await runLocked({
    peer,
    jobs: 1,
    startAt,
    lockMs: [0, lockEndsMs],
    historyMs,
    limitMs: 5 * 60_000,
    seed: i
  });
  const job = run.jobs[0] as LockedJob;
  const lateMs = job.acceptedAt === undefined ? undefined : job.acceptedAt - lockEndsMs;
  return { run, job, startAt, lateMs };
}

/**
 * One request with node:http (a new connection each, as the peers' clients would open), read
 * whole; a reset or a refused connection rejects.
 */
export function send(url: string, method: string, body: unknown): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        agent: false,
        headers: {
          authorization: `Bearer ${DEFAULT_KEY}`,
          'content-type': 'application/json',
          ...(payload === undefined ? {} : { 'content-length': Buffer.byteLength(payload) })
        }
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const parsed = text ? (JSON.parse(text) as Answer['body']) : {};
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      }
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** A preview job's context against the simulator `sim` on `time`: its requests sent by `send`. */
export function previewContext(
  sim: Simulator,
  time: VirtualTime,
  projectId: string,
  name: string
): PreviewContext {
  return {
    projectId,
    name,
    call: (method, path, body) => time.busy(() => send(`${sim.url}${path}`, method, body)),
    sleep: (ms) => time.clock.sleep(ms),
    url: sim.url,
    apiKey: DEFAULT_KEY,
    time,
    random: prng(1)
  };
}
