import { startFakeGitHub } from '../simulator/github.js';
import { DEFAULT_KEY, lock, project, seededBranches, sweepProject } from '../simulator/scenario.js';
import { NEON_RATE_LIMIT, type Simulator, startSimulator } from '../simulator/server.js';
import { VirtualTime } from '../simulator/virtual-time.js';
import type { RequestKind } from '../src/requests/index.js';
import { BRANCH_WORDS } from '../src/report/branch-words.js';
import { annotationValues } from '../src/neon/branch-annotations.js';
import { compileBranchPattern } from '../src/neon/branch-pattern.js';
import { planSweep, type PullState, sweepBranchOf } from '../src/neon/branch-sweep.js';
import { previewContext, runActionStep } from './locked.js';
import {
  EPOCH,
  type Ending,
  neonctlDelete,
  type PreviewContext,
  type PreviewEnding,
  type PreviewPeer,
  PREVIEW_PEERS
} from './peers.js';

/**
 * The preview-branch cases of issue 35, each tool on the same scenario (the simulator, Neon's rate
 * limits on, 2 s operations, on simulated time): a pull request's workflow run three times then
 * closed twice, the create's answer lost after it was applied, ten jobs creating one name at once,
 * and a project locked 6 s.
 */

export const PREVIEW_PROJECT = 'preview-project-1';
export const PREVIEW_NAME = 'preview/pr-42';
export const LOCK_ENDS = 6000;
/** Between the runs of the pull request's workflow: a push, then a rerun, minutes apart. */
const BETWEEN_RUNS = 5 * 60_000;

export type PreviewCase = 'workflow' | 'lost answer' | 'ten at once' | 'locked';
export const PREVIEW_CASES: PreviewCase[] = ['workflow', 'lost answer', 'ten at once', 'locked'];

export interface PreviewRun {
  /** The create jobs, in order (the workflow's three runs, or the jobs at once). */
  creates: Array<PreviewEnding | undefined>;
  /** The closing jobs (the workflow only). */
  closes: Array<PreviewEnding | undefined>;
  /** Branches of the name once the creates are done, and after the closing jobs. */
  branches: number;
  left: number;
  /** Simulated ms when the branch was made, if it was. */
  createdAt?: number;
  requests: number;
}

/**
 * This action's side: the engine's `create_branch` / `delete_branch` (issue 35) through `performAndWait`,
 * as the step runs them (default timeout 10 min and `interval` 5 s), one function for both.
 */
async function ourStep(ctx: PreviewContext, request: RequestKind): Promise<PreviewEnding> {
  const result = await runActionStep(ctx, request, 600_000);
  const ending: Ending = result.timedOut ? 'timeout' : result.failure ? 'error' : 'success';
  const branch = result.request?.branch;
  return {
    ending,
    ...(branch ? { branchId: branch.id, created: BRANCH_WORDS[branch.outcome].created } : {}),
    detail: result.failure ?? `${result.request?.attempts ?? 0} attempt(s), waited`
  };
}

export const OUR_SIDE: PreviewPeer = {
  name: 'this action (create_branch, delete_branch)',
  create: (ctx) => ourStep(ctx, { kind: 'create_branch', name: ctx.name }),
  remove: (ctx) => ourStep(ctx, { kind: 'delete_branch', branch: ctx.name })
};

export async function runPreview(peer: PreviewPeer, kase: PreviewCase): Promise<PreviewRun> {
  const time = new VirtualTime(EPOCH);
  let sim: Simulator | undefined;
  try {
    sim = await startSimulator({
      scenario: {
        keys: { [DEFAULT_KEY]: { kind: 'personal', user: 'user-1' } },
        projects: [project(PREVIEW_PROJECT, { owner_id: 'user-1' })],
        operations: kase === 'locked' ? [lock(PREVIEW_PROJECT, 0, LOCK_ENDS)] : [],
        ...seededBranches(PREVIEW_PROJECT, [{ name: 'main' }])
      },
      clock: () => time.elapsed(),
      epoch: EPOCH,
      rateLimit: NEON_RATE_LIMIT,
      operationMs: 2000
    });
    const s = sim;
    const ctx = previewContext(s, time, PREVIEW_PROJECT, PREVIEW_NAME);
    const named = (): number =>
      s.branches(PREVIEW_PROJECT).filter((b) => b.name === PREVIEW_NAME).length;
    if (kase === 'lost answer')
      s.inject({ kind: 'reset-after-apply' }, { times: 1, method: 'POST', match: '/branches' });
    const jobs = kase === 'ten at once' ? 10 : 1;
    const limitMs = 30 * 60_000;
    let creates: Array<PreviewEnding | undefined>;
    let closes: Array<PreviewEnding | undefined> = [];
    let branches = 0;
    let createdAt: number | undefined;
    if (kase === 'workflow') {
      const [done] = await time.run(
        [
          (async () => {
            const runs: PreviewEnding[] = [];
            for (let i = 0; i < 3; i++) {
              runs.push(await peer.create(ctx));
              await ctx.sleep(BETWEEN_RUNS);
            }
            branches = named();
            createdAt = s.branches(PREVIEW_PROJECT).find((b) => b.name === PREVIEW_NAME)?.created;
            const closing: PreviewEnding[] = [];
            for (let i = 0; i < 2; i++) {
              closing.push(await peer.remove(ctx));
              await ctx.sleep(BETWEEN_RUNS);
            }
            return { runs, closing };
          })()
        ],
        limitMs
      );
      creates = done?.runs ?? [undefined, undefined, undefined];
      closes = done?.closing ?? [undefined, undefined];
    } else {
      creates = await time.run(
        Array.from({ length: jobs }, () => peer.create(ctx)),
        limitMs
      );
      branches = named();
      createdAt = s.branches(PREVIEW_PROJECT).find((b) => b.name === PREVIEW_NAME)?.created;
    }
    return { creates, closes, branches, left: named(), createdAt, requests: s.requests.length };
  } finally {
    await sim?.close();
    time.dispose();
  }
}

const green = (jobs: Array<PreviewEnding | undefined>): number =>
  jobs.filter((job) => job?.ending === 'success').length;
const firstFailure = (jobs: Array<PreviewEnding | undefined>): string => {
  const job = jobs.find((j) => j?.ending !== 'success');
  return job ? `; first failure: ${job.detail ?? job.ending}` : '';
};

/** One row of the table: case, tool, what happened, the goal. */
export function previewRow(kase: PreviewCase, peer: string, run: PreviewRun): string[] {
  switch (kase) {
    case 'workflow':
      return [
        'a PR run 3× (create, push, rerun), then closed twice',
        peer,
        `${green(run.creates)}/3 runs green, ${run.branches} branch; ${green(run.closes)}/2 closing runs green, ${run.left} branch left${firstFailure([...run.creates, ...run.closes])}`,
        '3 green, 1 branch, deleted; closing twice green'
      ];
    case 'lost answer': {
      const job = run.creates[0];
      return [
        "the create's answer lost after it was applied",
        peer,
        `${job?.ending ?? 'still waiting'}${job?.detail ? ` (${job.detail})` : ''}; ${run.branches} branch; created: ${String(job?.created)}`,
        '1 branch, green, created: true'
      ];
    }
    case 'ten at once': {
      const ids = new Set(
        run.creates.flatMap((j) => (j?.ending === 'success' && j.branchId ? [j.branchId] : []))
      );
      return [
        '10 jobs create one name at once',
        peer,
        `${green(run.creates)}/10 green with ${ids.size} distinct id(s); ${run.branches} branch; ${run.creates.filter((j) => j?.created === true).length} say created${firstFailure(run.creates)}`,
        '1 branch; 10 green with its id'
      ];
    }
    case 'locked': {
      const job = run.creates[0];
      const after =
        run.createdAt === undefined
          ? 'never accepted'
          : `accepted ${((run.createdAt - LOCK_ENDS) / 1000).toFixed(1)} s after the lock`;
      return [
        'a project locked 6 s, then free',
        peer,
        `${job?.ending ?? 'still waiting'}${job?.detail ? ` (${job.detail})` : ''}; ${after}`,
        'accepted ≤ 1 s after the lock'
      ];
    }
  }
}

/** Every case for every tool, this action first. */
export async function previewRows(): Promise<string[][]> {
  const rows: string[][] = [];
  for (const kase of PREVIEW_CASES) {
    for (const peer of [OUR_SIDE, ...PREVIEW_PEERS])
      rows.push(previewRow(kase, peer.name, await runPreview(peer, kase)));
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// A nightly sweep (issue 43): 40 stale and 60 live branches (`sweepProject`), the sweep run twice.
// ---------------------------------------------------------------------------------------------

const SWEEP_PROJECT = 'sweep-project-1';
const SWEEP_TOKEN = 'ghs_sweep_token';
const SWEEP_REPOSITORY = 'octo-org/octo-repo';
const OLDER_THAN_MS = 14 * 86_400_000;

/** What one sweep run did. */
export interface SweepRun {
  /** Stale branches deleted, and others deleted (never wanted). */
  deleted: number;
  wrong: number;
  /** Runs (steps) green, and in all. */
  green: number;
  runs: number;
  /** Neon API requests: in all, and the branch list's pages among them. */
  requests: number;
  listPages: number;
  /** GitHub reads of pull requests. */
  pullReads: number;
  /** Simulated ms from the first request to the end. */
  ms: number;
  detail?: string;
}

/** A sweep tool: one run of the nightly job, given the API and where GitHub is. */
interface SweepTool {
  name: string;
  run(
    ctx: PreviewContext,
    githubUrl: string,
    pulls: ReadonlyMap<number, PullState>
  ): Promise<{ green: number; runs: number; detail?: string }>;
}

/** This action: one step, `sweep_branches: preview/pr-{pr}`, `older_than: 14d`, `sweep_max: 50`. */
const OUR_SWEEP: SweepTool = {
  name: 'this action (sweep_branches)',
  async run(ctx, githubUrl) {
    const request: RequestKind = {
      kind: 'sweep_branches',
      pattern: compileBranchPattern('preview/pr-{pr}'),
      olderThanMs: OLDER_THAN_MS,
      sweepMax: 50,
      dryRun: false,
      pulls: { token: SWEEP_TOKEN, repository: SWEEP_REPOSITORY }
    };
    const github = { baseUrl: githubUrl, fetch: ctx.time.fetch };
    const result = await runActionStep(ctx, request, 600_000, github);
    const ok = !result.failure && !result.timedOut;
    const swept = result.request?.sweep?.plan.deletions.length ?? 0;
    return { green: ok ? 1 : 0, runs: 1, detail: result.failure ?? `${swept} deleted, waited` };
  }
};

/**
 * delete-branch-action deletes one branch by name (neondatabase/delete-branch-action aed9ab1,
 * `action.yaml`: `neonctl@2.22.0 branches delete NAME`, as `neonctlDelete` models it), so a sweep
 * with it is a script that finds the names, then runs it once per name. Modelled at its best: the
 * script lists the branches once (unpaged, as `neonctl branches list`), decides exactly as this
 * action does from the same pull requests (their reads are GitHub's, not counted here), and the
 * runs go one after another (a job's steps, or a matrix with `max-parallel: 1`).
 */
const DELETE_ACTION_LOOP: SweepTool = {
  name: 'delete-branch-action, once per name a script found',
  async run(ctx, _githubUrl, pulls) {
    const list = await ctx.call('GET', `/projects/${ctx.projectId}/branches`);
    const items = Array.isArray(list.body.branches) ? list.body.branches : [];
    const annotations = annotationValues(list.body.annotations);
    const branches = items.flatMap((item: unknown) => sweepBranchOf(item, annotations) ?? []);
    const pattern = compileBranchPattern('preview/pr-{pr}');
    const now = ctx.time.now();
    const plan = planSweep(branches, {
      pattern,
      olderThanMs: OLDER_THAN_MS,
      pulls,
      repository: SWEEP_REPOSITORY,
      sweepMax: 1000,
      dryRun: false,
      now
    });
    const endings: PreviewEnding[] = [];
    for (const branch of plan.deletions)
      endings.push(await neonctlDelete({ ...ctx, name: branch.name }));
    const failed = endings.find((e) => e.ending !== 'success');
    return {
      green: endings.filter((e) => e.ending === 'success').length,
      runs: endings.length,
      ...(failed && { detail: `first failure: ${failed.detail ?? failed.ending}` })
    };
  }
};

export const SWEEP_TOOLS: SweepTool[] = [OUR_SWEEP, DELETE_ACTION_LOOP];

/** The nightly sweep, then the same sweep again at once, for one tool. */
export async function runSweep(tool: SweepTool): Promise<[SweepRun, SweepRun]> {
  const time = new VirtualTime(EPOCH);
  const { seeds, pulls, stale } = sweepProject();
  let sim: Simulator | undefined;
  const gh = await startFakeGitHub({ [SWEEP_TOKEN]: { author: 'github-actions[bot]' } }, pulls);
  try {
    sim = await startSimulator({
      scenario: {
        keys: { [DEFAULT_KEY]: { kind: 'personal', user: 'user-1' } },
        projects: [project(SWEEP_PROJECT, { owner_id: 'user-1' })],
        operations: [],
        ...seededBranches(SWEEP_PROJECT, seeds)
      },
      clock: () => time.elapsed(),
      epoch: EPOCH,
      rateLimit: NEON_RATE_LIMIT,
      operationMs: 2000
    });
    const s = sim;
    const ctx = previewContext(s, time, SWEEP_PROJECT, '');
    const states = new Map<number, PullState>(
      Object.entries(pulls).map(([n, pull]) => [Number(n), pull.state])
    );
    const once = async (): Promise<SweepRun> => {
      const [fromNeon, fromGitHub, startedAt] = [s.requests.length, gh.requests.length, time.now()];
      const before = new Set(s.branches(SWEEP_PROJECT).map((b) => b.name));
      const [done] = await time.run([tool.run(ctx, gh.url, states)], 30 * 60_000);
      const after = new Set(s.branches(SWEEP_PROJECT).map((b) => b.name));
      const gone = [...before].filter((name) => !after.has(name));
      const sent = s.requests.slice(fromNeon);
      return {
        deleted: gone.filter((name) => stale.includes(name)).length,
        wrong: gone.filter((name) => !stale.includes(name)).length,
        green: done?.green ?? 0,
        runs: done?.runs ?? 1,
        requests: sent.length,
        listPages: sent.filter((r) => r.route === 'GET /projects/{project_id}/branches').length,
        pullReads: gh.requests.length - fromGitHub,
        ms: time.now() - startedAt,
        ...(done?.detail && { detail: done.detail })
      };
    };
    return [await once(), await once()];
  } finally {
    await sim?.close();
    await gh.close();
    time.dispose();
  }
}

/** The rows of the sweep's cases: case, tool, what happened, the goal. */
export async function sweepRows(): Promise<string[][]> {
  const rows: string[][] = [];
  const runs = [];
  for (const tool of SWEEP_TOOLS) runs.push({ tool, done: await runSweep(tool) });
  const what = (run: SweepRun): string => {
    const beyond = run.requests - run.listPages;
    const each = run.deleted > 0 ? ` (${(beyond / run.deleted).toFixed(2)} a deleted branch)` : '';
    const why = run.detail ? `; ${run.detail}` : '';
    return (
      `${run.green}/${run.runs} run(s) green; ${run.deleted} stale deleted, ${run.wrong} other; ` +
      `${run.requests} Neon requests, ${run.listPages} of them list pages, ${beyond} beyond${each}; ` +
      `${run.pullReads} pull request reads; ${(run.ms / 1000).toFixed(1)} s${why}`
    );
  };
  for (const { tool, done } of runs)
    rows.push([
      'a nightly sweep of 40 stale and 60 live branches',
      tool.name,
      what(done[0]),
      'the 40 deleted and no other; ≤ 2 requests a deleted branch beyond the list pages, one read of each pull request'
    ]);
  for (const { tool, done } of runs)
    rows.push(['the sweep run again at once', tool.name, what(done[1]), 'nothing deleted, green']);
  return rows;
}
