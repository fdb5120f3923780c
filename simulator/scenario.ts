import { randomUUID } from 'node:crypto';
import type { PullScript } from './github.js';

/**
 * A scenario scripts what the fake API knows: keys, projects and operations whose status changes
 * over time. Times are milliseconds relative to the simulator's start (or to the first request, with
 * `startOnFirstRequest`); negative ones lie in the past.
 */
export interface StepScript {
  at: number;
  status: string;
  error?: string;
  failures_count?: number;
  /**
   * What the API reports as `total_duration_ms` from this step on. It is not wall time: left out,
   * the simulator sends what recordings show (see `server.ts`, `reportedDurationMs`).
   */
  total_duration_ms?: number;
}

export interface OperationScript {
  id: string;
  project_id: string;
  branch_id?: string;
  endpoint_id?: string;
  action: string;
  /** When the operation appears. */
  created: number;
  /** Status changes in time order; the first usually at `created`. */
  steps: StepScript[];
  /**
   * Each answer that shows the operation (Get or List) moves it one step on, whatever `at` says:
   * the client sees every step, one per request, however fast or slow it polls.
   */
  stepPerAnswer?: boolean;
  /** Leave out `total_duration_ms`: the schema requires it, but some of the service's published examples lack it. */
  omitDuration?: boolean;
  /** Fields the action does not know; they must come back untouched in its outputs. */
  extra?: Record<string, unknown>;
}

export interface ProjectScript {
  id: string;
  name: string;
  owner_id: string;
  org_id?: string;
  region_id?: string;
  /** When the project is deleted: from then on every route of it answers 404. */
  deletedAt?: number;
  /**
   * Branches deleted, with when. What the service does with the operations of a deleted branch is
   * not documented; the simulator takes the hard case: they vanish (Get answers 404, List leaves
   * them out).
   */
  deletedBranches?: Record<string, number>;
  /** The owner's plan, answered by `GET /projects/{project_id}` as `project.owner`; `SCALE_PLAN` when left out. */
  plan?: PlanScript;
}

/**
 * The project owner's plan: `branches_limit` is what `project.owner.branches_limit` answers (10 on
 * Free and Launch, 25 on Scale). Past it, a create is `refused` (422 `BRANCHES_LIMIT_EXCEEDED`) or,
 * on a paid plan, the extra branches are `billed` and the create succeeds.
 */
export interface PlanScript {
  subscription_type: string;
  branches_limit: number;
  overLimit: 'refused' | 'billed';
}

/** A Free plan: 10 branches a project, the eleventh create refused. */
export const FREE_PLAN: PlanScript = {
  subscription_type: 'free_v3',
  branches_limit: 10,
  overLimit: 'refused'
};

/**
 * Scale: 25 branches included, extra ones billed. The default, so that scenarios that never
 * thought of the limit (ten pull requests at once, and more) behave as before.
 */
export const SCALE_PLAN: PlanScript = {
  subscription_type: 'scale_v3',
  branches_limit: 25,
  overLimit: 'billed'
};

/**
 * Personal keys see their owner's projects, and an organization's when `org_id` names one of `orgs`.
 * `account` is whose rate limit the key spends (several keys can share one); by default a personal
 * key spends its user's, an organization key its organization's, a project key that of the
 * project's organization, or of its owner.
 */
export type KeyScript = (
  | { kind: 'personal'; user: string; orgs?: string[] }
  | { kind: 'organization'; org: string }
  | { kind: 'project'; project: string }
) & { account?: string };

/** A branch; its state changes at the given times (`ready` from `created` when left out). */
export interface BranchScript {
  id: string;
  project_id: string;
  name: string;
  parent_id?: string;
  default?: boolean;
  /** A protected branch: the service refuses to delete it. */
  protected?: boolean;
  created: number;
  states?: Array<[number, string]>;
  /**
   * When the branch expires (simulator clock, ms): the service's background job deletes it then,
   * so from that time it is gone from every read.
   */
  expiresAt?: number;
  /** The branch's annotation (`annotation_value` of its create): `github-pr-number`... */
  annotations?: Record<string, string>;
  /** When it was last reset (restored from its parent), simulator clock (ms): `last_reset_at`. */
  lastResetAt?: number;
}

/** A compute endpoint; `idle` from `created` when `states` is left out. */
export interface EndpointScript {
  id: string;
  project_id: string;
  branch_id: string;
  type?: 'read_write' | 'read_only';
  created: number;
  states?: Array<[number, 'init' | 'active' | 'idle']>;
  /** The `binding_id` of each compute of its compute group; one drawn from its id by default. */
  bindings?: string[];
}

export interface Scenario {
  keys: Record<string, KeyScript>;
  projects: ProjectScript[];
  operations: OperationScript[];
  /**
   * Branches and endpoints, for the mutation routes and the endpoint lists. A project without a
   * branch here gets a default one, `main`, with an idle read-write endpoint (see `server.ts`).
   */
  branches?: BranchScript[];
  endpoints?: EndpointScript[];
  /**
   * What `compare_schema` answers for a branch, by its name or id: the diff of its schema against
   * any base branch (its migrations). A branch not named here has the same schema as every other.
   */
  schemaDiffs?: Record<string, string>;
}

export const DEFAULT_KEY = 'neon-sim-key-0123456789abcdef';

/** An operation that goes through `statuses` at the given times (ms from start). */
export function operation(
  project_id: string,
  action: string,
  timeline: Array<[number, string] | [number, string, Partial<StepScript>]>,
  fields: Partial<OperationScript> = {}
): OperationScript {
  const steps = timeline.map(([at, status, more]) => ({ at, status, ...more }));
  return {
    id: randomUUID(),
    project_id,
    action,
    created: steps[0]?.at ?? 0,
    steps,
    ...fields
  };
}

/**
 * The project's history: operations of `action` that took these lengths (ms) and finished, one
 * every `everyMs` before time 0 (the newest first), as the service shows them (`created_at` and
 * `updated_at` to the second, `total_duration_ms` not wall time).
 */
export function pastOperations(
  projectId: string,
  action: string,
  lengthsMs: readonly number[],
  everyMs = 600_000
): OperationScript[] {
  return lengthsMs.map((length, i) => {
    const at = -(i + 1) * everyMs - Math.round(length);
    return operation(projectId, action, [
      [at, 'running'],
      [at + Math.round(length), 'finished']
    ]);
  });
}

/**
 * Another operation holding the project from `from` for `forMs` (ms; Infinity: never released):
 * every mutation answers 423 Locked meanwhile.
 */
export function lock(
  projectId: string,
  from: number,
  forMs: number,
  action = 'apply_config'
): OperationScript {
  const end: Array<[number, string]> = Number.isFinite(forMs) ? [[from + forMs, 'finished']] : [];
  return operation(projectId, action, [[from, 'running'], ...end]);
}

export function project(id: string, fields: Partial<ProjectScript> = {}): ProjectScript {
  return { id, name: id.replace(/-\d+$/, '').replace(/-/g, ' '), owner_id: 'user-1', ...fields };
}

/** One project, one personal key that owns it, and the given operations. */
export function singleProject(projectId: string, operations: OperationScript[]): Scenario {
  return {
    keys: { [DEFAULT_KEY]: { kind: 'personal', user: 'user-1' } },
    projects: [project(projectId)],
    operations
  };
}

/**
 * What a preview-branch workflow sees: a branch being created and its compute started, after an
 * hour of the control plane's own background work on the project.
 */
export function branchCreation(
  projectId = 'restless-sun-58231907',
  { fail = false }: { fail?: boolean } = {}
): {
  scenario: Scenario;
  createBranch: OperationScript;
  startCompute: OperationScript;
} {
  const branch = 'br-calm-river-a1b2c3d4';
  const endpoint = 'ep-quiet-lake-e5f6a7b8';
  const main = 'br-main-00112233';
  const mainEndpoint = 'ep-main-44556677';
  const history: OperationScript[] = [];
  for (let i = 1; i <= 12; i++) {
    const at = -i * 5 * 60_000;
    history.push(
      operation(
        projectId,
        'check_availability',
        [
          [at, 'running'],
          [at + 900, 'finished']
        ],
        {
          branch_id: main,
          endpoint_id: mainEndpoint
        }
      )
    );
  }
  history.push(
    operation(
      projectId,
      'suspend_compute',
      [
        [-40 * 60_000, 'running'],
        [-40 * 60_000 + 1200, 'finished']
      ],
      {
        branch_id: main,
        endpoint_id: mainEndpoint
      }
    ),
    operation(
      projectId,
      'start_compute',
      [
        [-20 * 60_000, 'scheduling'],
        [-20 * 60_000 + 700, 'running'],
        [-20 * 60_000 + 2100, 'finished']
      ],
      {
        branch_id: main,
        endpoint_id: mainEndpoint
      }
    ),
    operation(
      projectId,
      'apply_config',
      [
        [-15 * 60_000, 'running'],
        [
          -15 * 60_000 + 3000,
          'failed',
          { failures_count: 1, error: 'compute did not respond in time' }
        ],
        [-15 * 60_000 + 9000, 'finished', { failures_count: 1 }]
      ],
      { branch_id: main, endpoint_id: mainEndpoint }
    )
  );
  const createBranch = operation(
    projectId,
    'create_branch',
    [
      [-300, 'running'],
      [2400, 'finished']
    ],
    { branch_id: branch }
  );
  const startCompute = operation(
    projectId,
    'start_compute',
    // With `fail` (`npm run demo -- --fail`): the compute fails once, then for good, so the step
    // ends in `error` (red summary, exit 1) as a newcomer should see before production does.
    fail
      ? [
          [-300, 'scheduling'],
          [2500, 'running'],
          [3300, 'failed', { failures_count: 1, error: 'compute did not start: out of capacity' }],
          [4200, 'error', { failures_count: 2, error: 'compute did not start: out of capacity' }]
        ]
      : [
          [-300, 'scheduling'],
          [2500, 'running'],
          [4200, 'finished']
        ],
    { branch_id: branch, endpoint_id: endpoint }
  );
  const scenario = singleProject(projectId, [...history, createBranch, startCompute]);
  scenario.branches = [
    { id: main, project_id: projectId, name: 'main', default: true, created: -86_400_000 },
    {
      id: branch,
      project_id: projectId,
      // Not a name a newcomer tries first (`preview/pr-42`, as the docs write): theirs is created.
      name: 'demo/being-created',
      parent_id: main,
      created: -300,
      states: [
        [-300, 'init'],
        [2400, 'ready']
      ]
    }
  ];
  scenario.endpoints = [
    {
      id: mainEndpoint,
      project_id: projectId,
      branch_id: main,
      created: -86_400_000,
      states: [[-86_400_000, 'active']]
    },
    {
      id: endpoint,
      project_id: projectId,
      branch_id: branch,
      created: -300,
      states: [
        [-300, 'init'],
        [4200, 'active']
      ]
    }
  ];
  return { scenario, createBranch, startCompute };
}

/** One branch of `seededBranches`: its parent by name, the default branch when left out. */
export interface BranchSeed {
  name: string;
  default?: boolean;
  protected?: boolean;
  /** The parent's name; the default branch when left out (none for the default branch itself). */
  parent?: string;
  /** When it was created (ms, usually negative: in the past); a day ago when left out. */
  created?: number;
  expiresAt?: number;
  annotations?: Record<string, string>;
  lastResetAt?: number;
}

/**
 * A project's branches by name, each with an idle read-write endpoint (so `connection_uri`
 * answers for it). The first branch is the default one unless another says `default`. Ids are
 * derived from the names (`preview/pr-42` → `br-preview-pr-42-…`), the same in every run.
 */
export function seededBranches(
  projectId: string,
  seeds: readonly BranchSeed[]
): { branches: BranchScript[]; endpoints: EndpointScript[] } {
  const idOf = (name: string, prefix: string): string =>
    `${prefix}-${slug(name)}-${nameDigits(projectId + name)}`;
  const defaultSeed = seeds.find((s) => s.default) ?? seeds[0];
  const branches = seeds.map((seed): BranchScript => {
    const parentName = seed === defaultSeed ? undefined : (seed.parent ?? defaultSeed?.name);
    return {
      id: idOf(seed.name, 'br'),
      project_id: projectId,
      name: seed.name,
      ...(parentName === undefined ? {} : { parent_id: idOf(parentName, 'br') }),
      default: seed === defaultSeed,
      protected: seed.protected ?? false,
      created: seed.created ?? -86_400_000,
      ...(seed.expiresAt === undefined ? {} : { expiresAt: seed.expiresAt }),
      ...(seed.annotations === undefined ? {} : { annotations: seed.annotations }),
      ...(seed.lastResetAt === undefined ? {} : { lastResetAt: seed.lastResetAt })
    };
  });
  const endpoints = branches.map((b): EndpointScript => ({
    id: idOf(b.name, 'ep'),
    project_id: projectId,
    branch_id: b.id,
    type: 'read_write',
    created: b.created
  }));
  return { branches, endpoints };
}

/** What an id may hold of a name: lower-case letters, digits and dashes, 30 at most. */
function slug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 30) || 'branch'
  );
}

/** Eight digits derived from `text`. */
function nameDigits(text: string): string {
  let hash = 7;
  for (const c of text) hash = (hash * 31 + c.charCodeAt(0)) % 10 ** 8;
  return String(hash).padStart(8, '0');
}

const DAY_MS = 86_400_000;

/**
 * A project of 100 branches for a nightly sweep of `preview/pr-{pr}` with `older_than: 14d`: 40
 * stale (25 whose pull request is merged or closed, 15 whose pull request GitHub does not know, 20
 * days old), 60 live (the default, `dev`, a protected `release`, 45 with an open pull request, ten
 * of them 20 days old, 5 protected ones whose pull request is merged, one whose pull request is
 * closed but which has a child, that child, and 5 a day old that GitHub does not know). `pulls`
 * are the GitHub stand-in's (`startFakeGitHub`), `stale` the names a sweep should delete.
 */
export function sweepProject(): {
  seeds: BranchSeed[];
  pulls: Record<number, PullScript>;
  stale: string[];
} {
  const seeds: BranchSeed[] = [{ name: 'main' }, { name: 'dev' }];
  seeds.push({ name: 'release', protected: true });
  const pulls: Record<number, PullScript> = {};
  const stale: string[] = [];
  const preview = (pr: number, seed: Omit<BranchSeed, 'name'> = {}) => {
    seeds.push({ name: `preview/pr-${pr}`, created: -3 * DAY_MS, ...seed });
    return `preview/pr-${pr}`;
  };
  for (let pr = 1; pr <= 25; pr++) {
    pulls[pr] = { state: pr % 2 ? 'merged' : 'closed' };
    stale.push(preview(pr));
  }
  for (let pr = 26; pr <= 40; pr++) stale.push(preview(pr, { created: -20 * DAY_MS }));
  for (let pr = 41; pr <= 85; pr++) {
    pulls[pr] = { state: 'open' };
    preview(pr, pr <= 50 ? { created: -20 * DAY_MS } : {});
  }
  for (let pr = 86; pr <= 90; pr++) {
    pulls[pr] = { state: 'merged' };
    preview(pr, { protected: true, created: -20 * DAY_MS });
  }
  pulls[91] = { state: 'closed' };
  preview(91);
  seeds.push({ name: 'feature/on-91', parent: 'preview/pr-91' });
  for (let pr = 92; pr <= 96; pr++) preview(pr, { created: -DAY_MS });
  return { seeds, pulls, stale };
}
