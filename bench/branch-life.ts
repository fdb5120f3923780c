import {
  DEFAULT_KEY,
  FREE_PLAN,
  type PlanScript,
  pastOperations,
  project,
  seededBranches
} from '../simulator/scenario.js';
import { NEON_RATE_LIMIT, type Simulator, startSimulator } from '../simulator/server.js';
import { VirtualTime } from '../simulator/virtual-time.js';
import type { RequestKind } from '../src/requests/index.js';
import { previewContext, runActionStep } from './locked.js';
import {
  createBranchActionV6,
  EPOCH,
  type PreviewContext,
  type ResetEnding,
  resetBranchAction
} from './peers.js';

/**
 * A preview branch's life (issue 43), each tool on the same scenario (the simulator, Neon's rate
 * limits on, 2 s operations, on simulated time): a push to a pull request whose branch exists,
 * asked fresh from its parent (this action's `on_existing: reset`; create-branch-action finds the
 * branch, then reset-branch-action resets it); the eleventh pull request on a 10-branch plan.
 */

const PROJECT = 'life-project-1';
const NAME = 'preview/pr-42';

export type LifeCase = 'reset on push' | 'branch limit';
export const LIFE_CASES: LifeCase[] = ['reset on push', 'branch limit'];

/** How a tool's job ended; `urlHost`: the host of the URL it handed on (this action's output). */
type LifeEnding = ResetEnding & { urlHost?: string };

interface LifeTool {
  name: string;
  run(ctx: PreviewContext): Promise<LifeEnding>;
  /** The project has no history of restores (the first reset it ever had). */
  noHistory?: boolean;
}

/** Earlier pushes' restores (2 s each step, as the simulator runs them), one every 10 minutes. */
const RESTORE_HISTORY = [
  ...pastOperations(PROJECT, 'create_timeline', Array<number>(8).fill(2000)),
  ...pastOperations(PROJECT, 'start_compute', Array<number>(8).fill(2000))
];

/** This action's step, as the engine runs it (timeout 10 min, interval 5 s). */
async function ourStep(ctx: PreviewContext, request: RequestKind): Promise<LifeEnding> {
  const result = await runActionStep(ctx, request, 600_000);
  const branch = result.request?.branch;
  const host = branch?.connection?.host;
  return {
    ending: result.timedOut ? 'timeout' : result.failure ? 'error' : 'success',
    ...(branch?.id && { branchId: branch.id }),
    ...(host && { urlHost: host }),
    detail: result.failure ?? `${result.request?.attempts ?? 0} attempt(s), waited`
  };
}

const TOOLS: Record<LifeCase, LifeTool[]> = {
  'reset on push': [
    {
      name: 'this action (create_branch, on_existing: reset)',
      run: (ctx) => ourStep(ctx, { kind: 'create_branch', name: ctx.name, onExisting: 'reset' })
    },
    {
      name: "this action, the project's first reset (no history to learn from)",
      run: (ctx) => ourStep(ctx, { kind: 'create_branch', name: ctx.name, onExisting: 'reset' }),
      noHistory: true
    },
    {
      name: 'create-branch-action v6, then reset-branch-action',
      async run(ctx) {
        const found = await createBranchActionV6.create(ctx);
        if (found.ending !== 'success') return found;
        return resetBranchAction(ctx);
      }
    }
  ],
  'branch limit': [
    {
      name: 'this action (create_branch)',
      run: (ctx) => ourStep(ctx, { kind: 'create_branch', name: ctx.name })
    },
    { name: 'create-branch-action v6', run: (ctx) => createBranchActionV6.create(ctx) }
  ]
};

interface LifeRun {
  job: LifeEnding;
  /** Simulated ms: when the step ended, and when the restore's operations ended (if one was sent). */
  endedAt: number;
  restoreEndsAt?: number;
  /** The preview branch's id before and after, and whether it was reset from its parent. */
  idBefore?: string;
  idAfter?: string;
  reset: boolean;
  /** The URL's branch, if the step gave one: the preview's endpoint, or another's. */
  urlBranchName?: string;
  branchesBefore: number;
  branchesAfter: number;
  deletes: number;
}

async function runLife(tool: LifeTool, kase: LifeCase): Promise<LifeRun> {
  const time = new VirtualTime(EPOCH);
  let sim: Simulator | undefined;
  const plan: PlanScript | undefined = kase === 'branch limit' ? FREE_PLAN : undefined;
  // The limit: main and nine pull requests' branches, days old; the reset: main and the PR's.
  const previews =
    kase === 'branch limit'
      ? Array.from({ length: 9 }, (_, i) => ({
          name: `preview/pr-${i + 31}`,
          created: -(20 - i) * 86_400_000
        }))
      : [{ name: NAME, created: -2 * 86_400_000 }];
  const seeded = seededBranches(PROJECT, [{ name: 'main' }, ...previews]);
  try {
    sim = await startSimulator({
      scenario: {
        keys: { [DEFAULT_KEY]: { kind: 'personal', user: 'user-1' } },
        projects: [project(PROJECT, { owner_id: 'user-1', ...(plan && { plan }) })],
        operations: kase === 'reset on push' && !tool.noHistory ? RESTORE_HISTORY : [],
        ...seeded
      },
      clock: () => time.elapsed(),
      epoch: EPOCH,
      rateLimit: NEON_RATE_LIMIT,
      operationMs: 2000
    });
    const s = sim;
    const name = kase === 'branch limit' ? 'preview/pr-41' : NAME;
    const ctx = previewContext(s, time, PROJECT, name);
    const idOf = () => s.branches(PROJECT).find((b) => b.name === name)?.id;
    const idBefore = idOf();
    const branchesBefore = s.branches(PROJECT).length;
    const [done] = await time.run(
      [(async () => ({ job: await tool.run(ctx), endedAt: time.elapsed() }))()],
      30 * 60_000
    );
    const restore = s.requests.find((r) => r.route.endsWith('/restore') && r.status === 200);
    const restoreEndsAt = restore
      ? Math.max(
          ...s
            .operations(PROJECT)
            .filter((op) => op.created >= restore.at)
            .map((op) => op.steps.at(-1)?.at ?? op.created)
        )
      : undefined;
    const preview = s.branches(PROJECT).find((b) => b.name === name);
    // The URL's host is its compute's (`ep-….region…`): the endpoint's branch is the URL's.
    const urlHost = done?.job.urlHost;
    const urlBranchId = urlHost
      ? seeded.endpoints.find((e) => urlHost.startsWith(`${e.id}.`))?.branch_id
      : done?.job.urlBranchId;
    const urlBranch = s.branches(PROJECT).find((b) => b.id === urlBranchId);
    return {
      job: done?.job ?? { ending: 'timeout' },
      endedAt: done?.endedAt ?? Infinity,
      ...(restoreEndsAt !== undefined && { restoreEndsAt }),
      ...(idBefore && { idBefore }),
      ...(preview && { idAfter: preview.id }),
      reset: preview?.lastResetAt !== undefined,
      ...(urlBranch && { urlBranchName: urlBranch.name }),
      branchesBefore,
      branchesAfter: s.branches(PROJECT).length,
      deletes: s.requests.filter((r) => r.method === 'DELETE').length
    };
  } finally {
    await sim?.close();
    time.dispose();
  }
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

function lifeRow(kase: LifeCase, tool: string, run: LifeRun): string[] {
  const { job } = run;
  const ended = `${job.ending}${job.ending === 'success' ? '' : ` (${job.detail ?? ''})`}`;
  if (kase === 'reset on push') {
    const end =
      run.restoreEndsAt === undefined
        ? 'no restore'
        : run.endedAt >= run.restoreEndsAt
          ? `ended ${seconds(run.endedAt - run.restoreEndsAt)} after the restore's operations`
          : `ended ${seconds(run.restoreEndsAt - run.endedAt)} before the restore's operations (not waited)`;
    const url = run.urlBranchName
      ? `the URL is ${run.urlBranchName === NAME ? 'the branch' : `${run.urlBranchName}`}'s`
      : 'no URL';
    return [
      'a push to a pull request with on_existing: reset',
      tool,
      `${ended}; ${run.reset ? "reset from the parent's head" : 'not reset'}; ${end}; ` +
        `${run.idBefore === run.idAfter ? 'same id' : 'another id'}; ${url}`,
      "reset to the parent's head; ends ≤ 1 s after the restore's operations; same id; the URL works"
    ];
  }
  const said = (job.detail ?? '').replace(/\s+/g, ' ');
  const names = /plan allows \d+/.test(said) && /sweep could take: '/.test(said);
  return [
    'the eleventh pull request on a 10-branch plan',
    tool,
    `${job.ending}: "${said.length > 160 ? `${said.slice(0, 157)}…` : said}"; ` +
      `${names ? 'names the limit and the candidates' : 'names neither the limit nor what to delete'}; ` +
      `${run.branchesBefore} → ${run.branchesAfter} branches, ${run.deletes} DELETE`,
    'a clear error naming the limit and the candidates; nothing deleted'
  ];
}

/** Every case for every tool, this action first. */
export async function lifeRows(): Promise<string[][]> {
  const rows: string[][] = [];
  for (const kase of LIFE_CASES)
    for (const tool of TOOLS[kase]) rows.push(lifeRow(kase, tool.name, await runLife(tool, kase)));
  return rows;
}
