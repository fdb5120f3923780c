import { fieldsOf, textOf } from '../util/json-fields.js';
import { PR_NUMBER_KEY, REPOSITORY_KEY } from './branch-annotations.js';
import { type BranchPattern, PR_NUMBER } from './branch-pattern.js';
import { type Branch, branchOf } from './resources.js';

// What a sweep does to each branch of the project, decided from what was read (the branches with
// their annotations, the pull requests' states) and asked (pattern, older_than, sweep_max,
// dry_run): pure, so every decision is tested without a network.

/** A branch as a sweep reads it: the list's fields, when it was last reset, and its annotation. */
export interface SweepBranch extends Branch {
  /** `last_reset_at` (RFC 3339): a reset branch is as fresh as a new one. */
  lastResetAt?: string;
  /** The branch list's `annotations[id].value`: create-branch-action and this action write `github-pr-number`. */
  annotations?: Readonly<Record<string, string>>;
}

/** A pull request's state as GitHub answers it (`merged`: closed by a merge), or `not-found` (404). */
export type PullState = 'open' | 'closed' | 'merged' | 'not-found';

/**
 * What a sweep decides by: `older_than`, the pull requests' states (read when a token can read
 * them), or both. The type has no case with neither: such a sweep has nothing to decide by and is
 * refused with the inputs.
 */
export type SweepCriteria =
  | { olderThanMs: number; pulls?: ReadonlyMap<number, PullState> }
  | { olderThanMs?: number; pulls: ReadonlyMap<number, PullState> };

export type SweepAsk = SweepCriteria & {
  pattern: BranchPattern;
  /** The repository whose pull requests are read (`owner/name`); an annotation of another is ignored. */
  repository?: string;
  /** At most this many deletions in one run (`sweep_max`). */
  sweepMax: number;
  dryRun: boolean;
  /** Epoch ms. */
  now: number;
};

/** What is done to a matching branch. */
export type SweepVerdict = 'delete' | 'would-delete' | 'left-for-next-run' | 'keep';

/** Why: the first rule that decided, with the facts its words need. */
export type SweepReason =
  | { kind: 'pull-request-merged' | 'pull-request-closed'; pr: number }
  | { kind: 'older-than'; ageMs: number; olderThanMs: number; since: 'created' | 'reset' }
  | { kind: 'default' | 'protected' | 'has-children' }
  | { kind: 'open-pull-request'; pr: number }
  | { kind: 'newer-than'; ageMs: number; olderThanMs: number; since: 'created' | 'reset' }
  /** Nothing to decide by: no `older_than`, and no pull request known (no number, not read, or 404). */
  | { kind: 'no-pull-request'; pr?: number; state?: 'not-found' | 'unread' };

export interface SweepEntry {
  branch: SweepBranch;
  verdict: SweepVerdict;
  reason: SweepReason;
  /** The branch's pull request, from `{pr}` in its name, else its `github-pr-number` annotation. */
  pr?: number;
}

export interface SweepPlan {
  /**
   * Every branch the pattern matches, once: those to delete (or that a dry run would), oldest
   * first; those left for the next run; then those kept, by name.
   */
  entries: SweepEntry[];
  /**
   * The branches to delete now, oldest first (none in a dry run). Their order does not matter for
   * the API: a branch with child branches is kept, so no deletion waits for a child's.
   */
  deletions: SweepBranch[];
}

/** A branch of the list (`item`) with its annotation's values (`annotationValues`), or undefined. */
export function sweepBranchOf(
  item: unknown,
  annotations: ReadonlyMap<string, Record<string, string>>
): SweepBranch | undefined {
  const branch = branchOf(item);
  if (!branch) return undefined;
  const lastResetAt = textOf(fieldsOf(item), 'last_reset_at');
  const values = annotations.get(branch.id);
  return { ...branch, ...(lastResetAt && { lastResetAt }), ...(values && { annotations: values }) };
}

/**
 * The pull request of a branch the pattern matched: the name's `{pr}`, else a well-formed
 * `github-pr-number` annotation, unless it names another repository than `repository`; undefined
 * when neither gives one.
 */
export function pullRequestOf(
  branch: SweepBranch,
  pattern: BranchPattern,
  repository?: string
): number | undefined {
  const fromName = pattern.match(branch.name)?.pr;
  if (fromName !== undefined) return fromName;
  const annotated = branch.annotations?.[PR_NUMBER_KEY];
  const from = branch.annotations?.[REPOSITORY_KEY];
  // Pull request #12 of another repository is not this one's #12.
  if (repository && from && from.toLowerCase() !== repository.toLowerCase()) return undefined;
  return annotated !== undefined && PR_NUMBER.test(annotated) ? Number(annotated) : undefined;
}

/**
 * The pull requests a sweep must read, each number once, ascending: those of the matching branches
 * that a sweep may delete (never the default, a protected branch or one with children).
 */
export function pullRequestsToRead(
  branches: readonly SweepBranch[],
  pattern: BranchPattern,
  repository?: string
): number[] {
  const parents = parentIds(branches);
  const numbers = new Set<number>();
  for (const branch of branches) {
    if (!pattern.match(branch.name) || shield(branch, parents)) continue;
    const pr = pullRequestOf(branch, pattern, repository);
    if (pr !== undefined) numbers.add(pr);
  }
  return [...numbers].sort((a, b) => a - b);
}

/** The sweep's plan: see `SweepPlan`. */
export function planSweep(branches: readonly SweepBranch[], ask: SweepAsk): SweepPlan {
  const parents = parentIds(branches);
  const stale: SweepEntry[] = [];
  const kept: SweepEntry[] = [];
  for (const branch of branches) {
    if (!ask.pattern.match(branch.name)) continue;
    const pr = pullRequestOf(branch, ask.pattern, ask.repository);
    const reason = shield(branch, parents) ?? staleness(branch, pr, ask);
    const entry = { branch, reason, ...(pr === undefined ? {} : { pr }) };
    if (isStale(reason)) stale.push({ ...entry, verdict: 'delete' });
    else kept.push({ ...entry, verdict: 'keep' });
  }
  stale.sort((a, b) => ageOf(b.branch, ask.now) - ageOf(a.branch, ask.now) || byName(a, b));
  kept.sort(byName);
  const taken = stale
    .slice(0, ask.sweepMax)
    .map((entry): SweepEntry => ({ ...entry, verdict: ask.dryRun ? 'would-delete' : 'delete' }));
  const left = stale
    .slice(ask.sweepMax)
    .map((entry): SweepEntry => ({ ...entry, verdict: 'left-for-next-run' }));
  return {
    entries: [...taken, ...left, ...kept],
    deletions: ask.dryRun ? [] : taken.map((entry) => entry.branch)
  };
}

/** The reasons that make a branch stale. */
const STALE_KINDS: ReadonlySet<SweepReason['kind']> = new Set([
  'pull-request-merged',
  'pull-request-closed',
  'older-than'
]);

const isStale = (reason: SweepReason): boolean => STALE_KINDS.has(reason.kind);

/** Why a branch is never deleted, if it is one of those (the API refuses them too). */
function shield(branch: SweepBranch, parents: ReadonlySet<string>): SweepReason | undefined {
  if (branch.default) return { kind: 'default' };
  if (branch.protected) return { kind: 'protected' };
  if (parents.has(branch.id)) return { kind: 'has-children' };
  return undefined;
}

/**
 * Stale or not. A pull request read says first: merged or closed, stale; open, kept whatever its
 * age (it is in use). Without one (no number, not read, not found), `older_than` decides, by the
 * last reset or else the creation.
 */
function staleness(branch: SweepBranch, pr: number | undefined, ask: SweepAsk): SweepReason {
  if (pr === undefined) return byAge(branch, ask) ?? { kind: 'no-pull-request' };
  const state = ask.pulls?.get(pr) ?? 'unread';
  switch (state) {
    case 'merged':
      return { kind: 'pull-request-merged', pr };
    case 'closed':
      return { kind: 'pull-request-closed', pr };
    case 'open':
      return { kind: 'open-pull-request', pr };
  }
  return byAge(branch, ask) ?? { kind: 'no-pull-request', pr, state };
}

/** Older than `older_than` or not, by the last reset or else the creation; undefined without it. */
function byAge(branch: SweepBranch, ask: SweepAsk): SweepReason | undefined {
  const { olderThanMs } = ask;
  if (olderThanMs === undefined) return undefined;
  const ageMs = ageOf(branch, ask.now);
  const since = branch.lastResetAt ? 'reset' : 'created';
  return { kind: ageMs > olderThanMs ? 'older-than' : 'newer-than', ageMs, olderThanMs, since };
}

/**
 * The oldest branches a sweep could take (never the default, a protected one or one with
 * children), oldest first, at most `max`; those `pattern` matches when it is given. For the error
 * at the project's branch limit, which names them and deletes none.
 */
export function oldestSweepable(
  branches: readonly SweepBranch[],
  now: number,
  max: number,
  pattern?: BranchPattern
): SweepBranch[] {
  const parents = parentIds(branches);
  return branches
    .filter((b) => !shield(b, parents) && (!pattern || pattern.match(b.name)))
    .sort((a, b) => ageOf(b, now) - ageOf(a, now) || (a.name < b.name ? -1 : 1))
    .slice(0, max);
}

/** How long ago the branch was last reset, else created (ms); 0 when the time cannot be read. */
export function ageOf(branch: SweepBranch, now: number): number {
  const at = Date.parse(branch.lastResetAt ?? branch.createdAt);
  return Number.isNaN(at) ? 0 : Math.max(0, now - at);
}

function parentIds(branches: readonly SweepBranch[]): ReadonlySet<string> {
  return new Set(branches.flatMap((b) => (b.parentId === undefined ? [] : [b.parentId])));
}

const byName = (a: SweepEntry, b: SweepEntry): number =>
  a.branch.name < b.branch.name ? -1 : a.branch.name > b.branch.name ? 1 : 0;

/** What a sweep did, for the report: its plan as carried out, the project's count and its limit. */
export interface SweepOutcome {
  /** The pattern as given. */
  pattern: string;
  dryRun: boolean;
  /** Every matching branch and what was done to it (`delete`: deleted, or already gone). */
  plan: SweepPlan;
  /** The project's branches after the sweep. */
  branchesCount: number;
  /** The project owner's `branches_limit`, when the API answered it. */
  branchesLimit?: number;
}
