import { createNeonClient, type Operation as SdkOperation } from '@neon/sdk';
import type { Transport } from '../src/neon/http.js';
import { createTransport } from '../src/neon/transport.js';
import {
  type KeyScript,
  operation,
  type OperationScript,
  project,
  type Scenario
} from '../simulator/scenario.js';
import {
  NEON_RATE_LIMIT,
  type RateLimit,
  type Simulator,
  startSimulator
} from '../simulator/server.js';
import type { Operation } from '../src/neon/operation.js';
import type { WaitResult } from '../src/wait/wait.js';
import { engineWait, prng } from '../simulator/simulated-wait.js';
import { VirtualTime } from '../simulator/virtual-time.js';

/**
 * The action's engine and the ways people wait for Neon operations today, run side by side against
 * the simulator (Neon's rate limits on) on simulated time (see `VirtualTime`):
 *
 * - `@neon/sdk`'s `operations.waitFor`: its real code, installed from npm.
 * - A fixed 5 s loop: the seed's procedure (§4.5), as a script would write it.
 * - A 100 ms loop without a cap: the wait of kislerdm/terraform-provider-neon
 *   (`waitUnfinishedOperations`), written out here from its source, since it is Go.
 *
 * Each peer answers how its wait ended; the harness measures when, and what it cost.
 */

export type Ending = 'success' | 'failure' | 'timeout' | 'error' | 'still waiting';

export interface WaitContext {
  url: string;
  apiKey: string;
  projectId: string;
  /** The awaited operations as the request that started them returned them. */
  operations: Array<Record<string, unknown>>;
  time: VirtualTime;
  /** The action's HTTP client (undici), time standing still during each request. */
  transport: Transport;
  random: () => number;
}

export interface Peer {
  name: string;
  wait(context: WaitContext): Promise<{ ending: Ending; detail?: string }>;
}

const TEN_MINUTES = 600_000;

/**
 * The action's engine with its default timeout (10m) and `interval` (default 5s), given the reply
 * that started the work as its `operations` input (as a workflow passes it, and as the SDK gets it).
 */
export function actionPeer(intervalMs = 5000): Peer {
  return {
    name: `this action (${intervalMs / 1000}s, 10 min)`,
    async wait(ctx) {
      try {
        const result = await engineWait({
          baseUrl: ctx.url,
          apiKey: ctx.apiKey,
          projectId: ctx.projectId,
          ids: ctx.operations.map((op) => String(op.id)),
          given: ctx.operations as unknown as Operation[],
          timeoutMs: TEN_MINUTES,
          intervalMs,
          clock: ctx.time.clock,
          random: ctx.random,
          transport: ctx.transport
        });
        return { ending: endingOf(result), detail: result.failure ?? result.lastError };
      } catch (error) {
        return { ending: 'error', detail: (error as Error).message };
      }
    }
  };
}

/** How the action's wait ended, in the peers' words. */
function endingOf(result: WaitResult): Ending {
  if (result.timedOut) return 'timeout';
  if (result.apiUnusable) return 'error';
  return result.failure ? 'failure' : 'success';
}

/** `@neon/sdk`: `createNeonClient(...).operations.waitFor({ operations })` with its defaults. */
export const sdkPeer: Peer = {
  name: '@neon/sdk waitFor (1 s, 300 s)',
  async wait(ctx) {
    const neon = createNeonClient({ apiKey: ctx.apiKey, baseUrl: ctx.url, fetch: ctx.time.fetch });
    const { error } = await neon.operations.waitFor({
      operations: ctx.operations as unknown as SdkOperation[]
    });
    if (!error) return { ending: 'success' };
    const status = 'status' in error ? ` ${String(error.status)}` : '';
    const detail = `${error.name}${status}`;
    if (error.name === 'NeonOperationError') return { ending: 'failure', detail };
    if (error.name === 'NeonWaitTimeoutError') return { ending: 'timeout', detail };
    return { ending: 'error', detail };
  }
};

/** The status of one operation, or undefined after any error (HTTP or network). */
async function fetchStatus(ctx: WaitContext, id: string): Promise<string | undefined> {
  return (await fetchOrError(ctx, id)).status;
}

async function fetchOrError(
  ctx: WaitContext,
  id: string
): Promise<{ status?: string; error?: string }> {
  try {
    const res = await ctx.transport.send(
      'GET',
      `${ctx.url}/projects/${ctx.projectId}/operations/${id}`,
      { authorization: `Bearer ${ctx.apiKey}`, accept: 'application/json' },
      undefined,
      AbortSignal.timeout(10_000)
    );
    if (res.status !== 200) return { error: `HTTP ${res.status}` };
    const body = JSON.parse(res.text) as { operation?: { status?: unknown } };
    const status = body.operation?.status;
    return typeof status === 'string' ? { status } : { error: 'no status' };
  } catch (error) {
    return { error: (error as Error).name };
  }
}

/**
 * The seed's procedure (§4.5) as a shell loop would do it: Get each awaited operation every 5 s,
 * from at once, until each has a status the seed calls terminal (finished, skipped, cancelled; and
 * error, which the seed does not know); `failed` keeps it waiting (the seed: not terminal). Any
 * error is simply tried again at the next round; 10 min cap.
 */
export const fixedLoopPeer: Peer = {
  name: 'fixed 5 s loop (10 min)',
  async wait(ctx) {
    const deadline = ctx.time.now() + TEN_MINUTES;
    let pending = ctx.operations.map((op) => String(op.id));
    for (;;) {
      const still: string[] = [];
      for (const id of pending) {
        const status = await fetchStatus(ctx, id);
        if (status === 'cancelled' || status === 'error')
          return { ending: 'failure', detail: status };
        if (status !== 'finished' && status !== 'skipped') still.push(id);
      }
      pending = still;
      if (pending.length === 0) return { ending: 'success' };
      if (ctx.time.now() + 5000 >= deadline) return { ending: 'timeout' };
      await ctx.time.clock.sleep(5000);
    }
  }
};

const unfinished = (status: unknown): boolean => status === 'running' || status === 'scheduling';

/**
 * kislerdm/terraform-provider-neon's `waitUnfinishedOperations`: for each operation given as
 * `running` or `scheduling`, a loop that sleeps 100 ms and Gets it, until its status is neither
 * (`unfinishedOperation`), so `failed`, `error` and `cancelled` end it as done; an error is logged
 * and the loop goes on; no deadline.
 */
export const terraformLoopPeer: Peer = {
  name: '100 ms loop, no cap (Terraform)',
  async wait(ctx) {
    const ended = await Promise.all(
      ctx.operations
        .filter((op) => unfinished(op.status))
        .map(async (op) => {
          for (;;) {
            await ctx.time.clock.sleep(100);
            const status = await fetchStatus(ctx, String(op.id));
            if (status !== undefined && !unfinished(status)) return status;
          }
        })
    );
    return { ending: 'success', detail: ended.length ? `saw ${ended.join(', ')}` : undefined };
  }
};

/**
 * An AWS-style waiter as the Smithy specification defines one (smithy-lang/smithy,
 * `docs/source-2.0/additional-specs/waiters.rst`, "Waiter retries"), with its defaults and a 10 min
 * `maxWaitTime`: the first call at once; then `delay = random(minDelay, minDelay·2^(attempt−1))`
 * whole seconds, `maxDelay` past the attempt ceiling, and when less than `minDelay` would be left
 * after the delay, it waits out the remaining time for one last try. Acceptors as a Neon waiter
 * would declare them: `finished`/`skipped` succeed, `error`/`cancelled` fail, anything else
 * retries; an error no acceptor matches ends the wait (step 4 of the spec's workflow). One call
 * per pending operation.
 */
export const smithyPeer: Peer = {
  name: 'Smithy-style waiter (2–120 s, 10 min)',
  async wait(ctx) {
    const [minDelay, maxDelay, maxWait] = [2, 120, 600];
    const ceiling = Math.log(maxDelay / minDelay) / Math.log(2) + 1;
    const start = ctx.time.now();
    let pending = ctx.operations.map((op) => String(op.id));
    for (let attempt = 1; ; attempt++) {
      const still: string[] = [];
      for (const id of pending) {
        const { status, error } = await fetchOrError(ctx, id);
        if (error) return { ending: 'error', detail: error };
        if (status === 'error' || status === 'cancelled')
          return { ending: 'failure', detail: status };
        if (status !== 'finished' && status !== 'skipped') still.push(id);
      }
      pending = still;
      if (pending.length === 0) return { ending: 'success' };
      const remaining = maxWait - (ctx.time.now() - start) / 1000;
      if (remaining <= 0) return { ending: 'timeout' };
      const most = attempt > ceiling ? maxDelay : minDelay * 2 ** (attempt - 1);
      let delay = minDelay + Math.floor(ctx.random() * (most - minDelay + 1));
      if (remaining - delay <= minDelay) delay = remaining;
      await ctx.time.clock.sleep(delay * 1000);
    }
  }
};

export const PEERS: Peer[] = [actionPeer(), sdkPeer, fixedLoopPeer, terraformLoopPeer, smithyPeer];

export const EPOCH = Date.UTC(2026, 0, 1);
const ORG = 'org-crowd-1';

/** One job of a run: its key, project and the operations it awaits, from `startAt` on. */
export interface JobSpec {
  key: string;
  projectId: string;
  operations: OperationScript[];
  /** When the job starts waiting (ms of simulated time); the operations were created before. */
  startAt: number;
}

export interface JobResult {
  peer: string;
  ending: Ending;
  detail?: string;
  /** Simulated ms from the job's start to the end of its wait. */
  waitedMs: number;
  /**
   * From the end of the last awaited operation (its last step) to the end of the wait, for a
   * success; negative when the peer called it done before the operation was.
   */
  noticeMs?: number;
  /** The awaited operations' statuses when the wait ended, as the simulator had them. */
  statusesAtEnd: string[];
}

export interface RunResult {
  jobs: JobResult[];
  requests: number;
  /** Requests answered 429. */
  limited: number;
  /** Most requests the API answered (not 429) in any minute. */
  busiestMinute: number;
  /** Most requests sent (429s included) in any minute from the first 429 on; 0 without a 429. */
  busiestMinuteThrottled: number;
  /** Simulated ms until the last job ended (or the limit). */
  elapsedMs: number;
}

export interface RunOptions {
  peer: Peer;
  jobs: JobSpec[];
  /** More operations of the scenario's projects, not awaited. */
  others?: OperationScript[];
  /** Faults and deletions, before the jobs start. */
  prepare?: (sim: Simulator) => void;
  /** Simulated time after which jobs still waiting are abandoned. */
  limitMs: number;
  /** See `VirtualTime.run`; 0 (exact) by default. */
  resolutionMs?: number;
  seed?: number;
  /** The account's limits: Neon's (`NEON_RATE_LIMIT`) by default. */
  rateLimit?: RateLimit;
}

/**
 * Runs the jobs with one peer against a fresh simulator with Neon's rate limits (or the ones
 * given), on simulated time. Every key belongs to one organization, so every job spends one
 * account's budget.
 */
export async function runPeer(options: RunOptions): Promise<RunResult> {
  const { peer, jobs } = options;
  const random = prng(options.seed ?? 1);
  const keys: Record<string, KeyScript> = {};
  for (const job of jobs) keys[job.key] = { kind: 'project', project: job.projectId };
  const projectIds = [...new Set(jobs.map((job) => job.projectId))];
  const scenario: Scenario = {
    keys,
    projects: projectIds.map((id) => project(id, { owner_id: 'user-1', org_id: ORG })),
    operations: [...jobs.flatMap((job) => job.operations), ...(options.others ?? [])]
  };
  const time = new VirtualTime(EPOCH);
  const write = process.stdout.write;
  let sim: Simulator | undefined;
  try {
    sim = await startSimulator({
      scenario,
      clock: () => time.elapsed(),
      epoch: EPOCH,
      rateLimit: options.rateLimit ?? NEON_RATE_LIMIT
    });
    const s = sim;
    options.prepare?.(s);
    process.stdout.write = () => true; // the action's engine logs every status change
    const results = await time.run(
      jobs.map(async (job): Promise<JobResult> => {
        await time.clock.sleep(job.startAt);
        const transport = time.transport(createTransport());
        const ended = await peer
          .wait({
            url: s.url,
            apiKey: job.key,
            projectId: job.projectId,
            operations: job.operations.map((op) => s.render(op) ?? { id: op.id }),
            time,
            transport,
            random
          })
          .finally(() => transport.close());
        const at = time.elapsed();
        const end = Math.max(...job.operations.map((op) => op.steps.at(-1)?.at ?? 0));
        return {
          peer: peer.name,
          ...ended,
          waitedMs: at - job.startAt,
          noticeMs: ended.ending === 'success' ? at - end : undefined,
          statusesAtEnd: statuses(s, job)
        };
      }),
      options.limitMs,
      options.resolutionMs
    );
    const elapsedMs = time.elapsed();
    const firstThrottled = s.requests.find((r) => r.status === 429)?.at ?? Infinity;
    return {
      jobs: results.map(
        (result, i) =>
          result ?? {
            peer: peer.name,
            ending: 'still waiting',
            waitedMs: elapsedMs - (jobs[i] as JobSpec).startAt,
            statusesAtEnd: statuses(s, jobs[i] as JobSpec)
          }
      ),
      requests: s.requests.length,
      limited: s.requests.filter((r) => r.status === 429).length,
      busiestMinute: busiestMinute(s.requests.filter((r) => r.status !== 429).map((r) => r.at)),
      busiestMinuteThrottled: busiestMinute(
        s.requests.filter((r) => r.at >= firstThrottled).map((r) => r.at)
      ),
      elapsedMs
    };
  } finally {
    process.stdout.write = write;
    await sim?.close();
    time.dispose();
  }
}

function statuses(sim: Simulator, job: JobSpec): string[] {
  return job.operations.map((op) => String(sim.render(op)?.status ?? 'not created'));
}

/** Most timestamps in any 60 s window. */
export function busiestMinute(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while ((sorted[j] as number) <= (sorted[i] as number) - 60_000) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

export const CROWD = 100;

/**
 * 100 jobs of one organization (10 projects, a project-scoped key each: one account), each
 * awaiting the branch it created; jobs start within the first minute, operations take 30 s to 3 min.
 */
export function crowdOfOneAccount(count = CROWD, seed = 7): JobSpec[] {
  const random = prng(seed);
  return Array.from({ length: count }, (_, i) => {
    const projectId = `crowd-project-${i % 10}`;
    const startAt = Math.round(random() * 60_000);
    const end = startAt + 30_000 + Math.round(random() * 150_000);
    return {
      key: `crowd-key-${i % 10}`,
      projectId,
      startAt,
      operations: [
        operation(projectId, 'create_branch', [
          [startAt - 300, 'running'],
          [end, 'finished']
        ])
      ]
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Preview branches (issue 35): get-or-create a branch by name, delete it when the pull request
// closes. Each peer does what its sources do today (read 2026-11), as the requests it sends.
// ---------------------------------------------------------------------------------------------

export interface PreviewAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** What a preview job is given: the project, the branch's name, and how to send and sleep. */
export interface PreviewContext {
  projectId: string;
  name: string;
  /** One request; a network error (a reset, a refused connection) throws. */
  call(method: string, path: string, body?: unknown): Promise<PreviewAnswer>;
  sleep(ms: number): Promise<void>;
  /** For a tool that brings its own client (this action): the API, its key, the time. */
  url: string;
  apiKey: string;
  time: VirtualTime;
  random: () => number;
}

/** How a job ended, and the branch it ended with. */
export interface PreviewEnding {
  ending: Ending;
  branchId?: string;
  /** The tool's own `created` (create-branch-action's output, checkout's log): undefined if it has none. */
  created?: boolean;
  detail?: string;
}

export interface PreviewPeer {
  name: string;
  /** The job of `opened` / `synchronize`: a branch of that name, made or found. */
  create(ctx: PreviewContext): Promise<PreviewEnding>;
  /** The job of `closed`: the branch of that name deleted. */
  remove(ctx: PreviewContext): Promise<PreviewEnding>;
}

type BranchItem = { id: string; name: string; default?: boolean };
const branchesOf = (answer: PreviewAnswer): BranchItem[] =>
  (answer.body.branches ?? []) as BranchItem[];
const failed = (what: string, answer: PreviewAnswer): PreviewEnding => ({
  ending: 'error',
  detail: `${what}: HTTP ${answer.status}`
});
/** A network error ends a job: none of these tools retries one. */
const thrown = (error: unknown): PreviewEnding => ({
  ending: 'error',
  detail: (error as Error).message
});

/**
 * neonctl's `retryOnLock`, the same in neonctl 2.22.0 (neondatabase/neonctl 52c493d, `src/api.ts`)
 * and in `neon` 6 (neondatabase/neon-pkgs 5756137, `packages/cli/src/api.ts`): on 423, wait 3 s and
 * send again, 5 times in all; then the last 423 is the error. Anything else is answered at once.
 */
async function retryOnLock(
  ctx: PreviewContext,
  send: () => Promise<PreviewAnswer>
): Promise<PreviewAnswer> {
  let answer = await send();
  for (let attempt = 1; answer.status === 423 && attempt < 5; attempt++) {
    await ctx.sleep(3000);
    answer = await send();
  }
  if (answer.status === 423) await ctx.sleep(3000);
  return answer;
}

/**
 * The closing job of both peers: neonctl's `branches delete NAME` (delete-branch-action
 * aed9ab1 runs `neonctl@2.22.0`; `neon` 6 the same in neon-pkgs b30e06b
 * `packages/cli/src/commands/branches.ts` `deleteBranch`): the name resolved by listing the
 * project's branches (`branchIdResolve`, one unpaged `listProjectBranches`), "Branch NAME not
 * found" when none has it, then the DELETE with `retryOnLock`.
 */
export async function neonctlDelete(ctx: PreviewContext): Promise<PreviewEnding> {
  try {
    const list = await ctx.call('GET', `/projects/${ctx.projectId}/branches`);
    if (list.status !== 200) return failed('list branches', list);
    const branch = branchesOf(list).find((b) => b.name === ctx.name);
    if (!branch) return { ending: 'error', detail: `Branch ${ctx.name} not found` };
    const path = `/projects/${ctx.projectId}/branches/${branch.id}`;
    const answer = await retryOnLock(ctx, () => ctx.call('DELETE', path));
    if (answer.status !== 200 && answer.status !== 204) return failed('delete', answer);
    return { ending: 'success', branchId: branch.id, detail: 'not waited' };
  } catch (error) {
    return thrown(error);
  }
}

/**
 * create-branch-action v6 (neondatabase/create-branch-action fb620d4, `src/branch.ts`):
 * `getOrCreateBranch` lists `?search=NAME&limit=10000` and takes the branch whose name (or id)
 * is NAME (`created: false`), else one `createProjectBranch` with a read_write endpoint and the
 * default parent (`created: true`); then `getConnectionInfo` reads the branch's endpoints, the
 * database, the role and its password. No retry of anything (axios, 10 s timeout), no wait for the
 * operations. Closing: delete-branch-action (neondatabase/delete-branch-action aed9ab1,
 * `action.yaml`), `neonctl@2.22.0 branches delete NAME`.
 */
export const createBranchActionV6: PreviewPeer = {
  name: 'create-branch-action v6 + delete-branch-action',
  async create(ctx) {
    const base = `/projects/${ctx.projectId}/branches`;
    try {
      const found = await ctx.call(
        'GET',
        `${base}?search=${encodeURIComponent(ctx.name)}&limit=10000`
      );
      if (found.status !== 200) return failed('list branches', found);
      let branch = branchesOf(found).find((b) => b.name === ctx.name || b.id === ctx.name);
      const created = !branch;
      if (!branch) {
        const answer = await ctx.call('POST', base, {
          endpoints: [{ type: 'read_write', suspend_timeout_seconds: 0 }],
          branch: { name: ctx.name }
        });
        if (answer.status !== 201) return failed('create', answer);
        branch = answer.body.branch as BranchItem;
      }
      const at = `${base}/${branch.id}`;
      const endpoints = await ctx.call('GET', `${at}/endpoints`);
      const readWrite = ((endpoints.body.endpoints ?? []) as Array<{ type: string }>).some(
        (e) => e.type === 'read_write'
      );
      if (endpoints.status !== 200 || !readWrite) return failed('endpoints', endpoints);
      for (const path of [
        `${at}/databases/neondb`,
        `${at}/roles/neondb_owner`,
        `${at}/roles/neondb_owner/reveal_password`
      ]) {
        const answer = await ctx.call('GET', path);
        if (answer.status !== 200) return failed('connection info', answer);
      }
      return { ending: 'success', branchId: branch.id, created, detail: 'not waited' };
    } catch (error) {
      return thrown(error);
    }
  },
  remove: neonctlDelete
};

/**
 * `neon` 6, `neon checkout NAME --create --no-env-pull` (neondatabase/neon-pkgs: `--create` from
 * PR #588, "Existing name with `--create`: checks out the existing branch"; the flow in
 * `packages/cli/src/commands/checkout.ts` 6eadae4 `resolveBranchId`, and
 * `packages/cli/src/utils/branch_picker.ts` 72a1d9b `createBranch`): one unpaged list of the
 * project's branches, the one named NAME taken as it is; else a POST with the default branch as
 * parent and a read_write endpoint, with `retryOnLock` (5 × 3 s). A 409 (another job made it in
 * between) is an error: nothing looks again. It does not wait for the operations. The org lookup
 * (`GET /projects/{id}`, whose failure it ignores) is left out. Closing: `neon branches delete NAME`.
 */
export const neonCliPeer: PreviewPeer = {
  name: 'neon 6 (checkout --create, branches delete)',
  async create(ctx) {
    const base = `/projects/${ctx.projectId}/branches`;
    try {
      const list = await ctx.call('GET', base);
      if (list.status !== 200) return failed('list branches', list);
      const branches = branchesOf(list);
      const existing = branches.find((b) => b.name === ctx.name);
      if (existing) return { ending: 'success', branchId: existing.id, created: false };
      const parent = branches.find((b) => b.default);
      if (!parent) return { ending: 'error', detail: 'No default branch found' };
      const answer = await retryOnLock(ctx, () =>
        ctx.call('POST', base, {
          branch: { name: ctx.name, parent_id: parent.id },
          endpoints: [{ type: 'read_write' }]
        })
      );
      if (answer.status !== 201) return failed('create', answer);
      const branch = answer.body.branch as BranchItem;
      return { ending: 'success', branchId: branch.id, created: true, detail: 'not waited' };
    } catch (error) {
      return thrown(error);
    }
  },
  remove: neonctlDelete
};

/** What reset-branch-action's step ends with: the branch it reset, and whose URL `db_url` is. */
export interface ResetEnding extends PreviewEnding {
  /** The branch whose compute `db_url` points at (its endpoints' `branch_id`). */
  urlBranchId?: string;
}

/**
 * reset-branch-action (neondatabase/reset-branch-action 826fe7e, `action.yml`, no commit since
 * 2025-01): a composite step that installs `neonctl@v1` and runs `neonctl branches reset BRANCH
 * --parent`, which (neondatabase/neonctl 0477b73, `src/commands/branches.ts` `reset`) resolves
 * the name with one unpaged list of the project's branches, reads the branch for its `parent_id`,
 * and sends the restore with `source_branch_id` = the parent under `retryOnLock` (5 × 3 s); it
 * does not wait for the restore's operations. Then `neonctl cs ${{inputs.branch_id}}` twice (direct,
 * pooled): the action has no `branch_id` input, so the branch argument is empty and `cs` takes the
 * project's default branch ("Defaults to the default branch if omitted", neonctl a9adf91
 * `src/commands/connection_string.ts`): its list, endpoints, roles, databases, role password.
 */
export async function resetBranchAction(ctx: PreviewContext): Promise<ResetEnding> {
  const base = `/projects/${ctx.projectId}/branches`;
  try {
    const list = await ctx.call('GET', base);
    if (list.status !== 200) return failed('list branches', list);
    const branch = branchesOf(list).find((b) => b.name === ctx.name);
    if (!branch) return { ending: 'error', detail: `Branch ${ctx.name} not found` };
    const read = await ctx.call('GET', `${base}/${branch.id}`);
    const parentId = (read.body.branch as { parent_id?: string } | undefined)?.parent_id;
    if (read.status !== 200 || !parentId) return failed('get branch', read);
    const restored = await retryOnLock(ctx, () =>
      ctx.call('POST', `${base}/${branch.id}/restore`, { source_branch_id: parentId })
    );
    if (restored.status !== 200) return failed('restore', restored);
    let urlBranchId: string | undefined;
    for (let i = 0; i < 2; i++) {
      const all = await ctx.call('GET', base);
      const main = branchesOf(all).find((b) => b.default);
      if (!main) return { ending: 'error', detail: 'no default branch' };
      const at = `${base}/${main.id}`;
      for (const path of [`${at}/endpoints`, `${at}/roles`, `${at}/databases`]) {
        const answer = await ctx.call('GET', path);
        if (answer.status !== 200) return failed('connection string', answer);
      }
      const password = await ctx.call('GET', `${at}/roles/neondb_owner/reveal_password`);
      if (password.status !== 200) return failed('connection string', password);
      urlBranchId = main.id;
    }
    return {
      ending: 'success',
      branchId: branch.id,
      ...(urlBranchId && { urlBranchId }),
      detail: 'not waited'
    };
  } catch (error) {
    return thrown(error);
  }
}

/** The tools of the preview-branch cases, side by side. */
export const PREVIEW_PEERS: PreviewPeer[] = [createBranchActionV6, neonCliPeer];
