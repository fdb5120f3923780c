import { describe, expect, it } from '@jest/globals';
import { annotationValues, pullRequestAnnotation } from '../src/neon/branch-annotations.js';
import { compileBranchPattern } from '../src/neon/branch-pattern.js';
import {
  oldestSweepable,
  planSweep,
  pullRequestsToRead,
  sweepBranchOf,
  type PullState,
  type SweepAsk,
  type SweepBranch
} from '../src/neon/branch-sweep.js';
import { DAY, MAIN_ID, makeSweepBranch, SWEEP_NOW } from './helpers/builders.js';

const NOW = SWEEP_NOW;
const ago = (ms: number): string => new Date(NOW - ms).toISOString();
const MAIN = MAIN_ID;
const branch = makeSweepBranch;
const main: SweepBranch = {
  id: MAIN,
  name: 'main',
  default: true,
  protected: false,
  createdAt: ago(400 * DAY)
};

const pulls = (entries: Array<[number, PullState]>) => new Map(entries);
const ask = (
  more: Partial<SweepAsk> & ({ olderThanMs: number } | { pulls: Map<number, PullState> })
): SweepAsk => ({
  pattern: compileBranchPattern('preview/pr-{pr}'),
  sweepMax: 20,
  dryRun: false,
  now: NOW,
  ...more
});
const verdicts = (plan: ReturnType<typeof planSweep>) =>
  plan.entries.map((e) => [e.branch.name, e.verdict, e.reason.kind]);

describe('the benchmark: a nightly sweep of 40 stale and 60 live branches', () => {
  // 25 with a merged or closed pull request, 15 without one and older than 7 days: stale.
  // 50 with an open pull request (20 of them older than 7 days), 10 new without one: live.
  // The pull request's number is the annotation create-branch-action writes (`github-pr-number`).
  const withPr = (name: string, days: number, pr: number) =>
    branch(name, days, {
      annotations: { 'github-pr-number': String(pr), 'github-commit-repo': 'o/r' }
    });
  const stale = [
    ...Array.from({ length: 25 }, (_, i) => withPr(`preview/fix-${i + 1}`, 3 + i, i + 1)),
    ...Array.from({ length: 15 }, (_, i) => branch(`preview/feature-${i + 1}`, 8 + i))
  ];
  const live = [
    ...Array.from({ length: 50 }, (_, i) =>
      withPr(`preview/work-${100 + i}`, i < 20 ? 9 + i : 1, 100 + i)
    ),
    ...Array.from({ length: 10 }, (_, i) => branch(`preview/spike-${i + 1}`, 2))
  ];
  const all = [main, ...stale, ...live];
  const states = pulls([
    ...Array.from({ length: 25 }, (_, i): [number, PullState] => [
      i + 1,
      i % 2 ? 'closed' : 'merged'
    ]),
    ...Array.from({ length: 50 }, (_, i): [number, PullState] => [100 + i, 'open'])
  ]);
  const pattern = compileBranchPattern('preview/*');
  const sweep = (branches: SweepBranch[], sweepMax: number) =>
    planSweep(branches, {
      pattern,
      olderThanMs: 7 * DAY,
      pulls: states,
      sweepMax,
      dryRun: false,
      now: NOW
    });

  it('deletes the 40 stale branches and no other; one read of each pull request', () => {
    const plan = sweep(all, 50);
    expect(plan.deletions.map((b) => b.name).sort()).toEqual(stale.map((b) => b.name).sort());
    expect(plan.entries).toHaveLength(100);
    const kept = plan.entries.filter((e) => e.verdict === 'keep').map((e) => e.branch.name);
    expect(kept.sort()).toEqual(live.map((b) => b.name).sort());
    const read = pullRequestsToRead(all, pattern);
    expect(read).toEqual([...states.keys()].sort((a, b) => a - b));
    // Two branches of one pull request: still one read.
    expect(pullRequestsToRead([...all, withPr('preview/fix-1-again', 1, 1)], pattern)).toEqual(
      read
    );
  });

  it('with sweep_max 20: the 20 oldest deleted, the other 20 left for the next run, which takes them', () => {
    const first = sweep(all, 20);
    expect(first.deletions).toHaveLength(20);
    const left = first.entries.filter((e) => e.verdict === 'left-for-next-run');
    expect(left).toHaveLength(20);
    const age = (b: SweepBranch) => NOW - Date.parse(b.createdAt);
    const youngestTaken = Math.min(...first.deletions.map(age));
    expect(left.every((e) => age(e.branch) <= youngestTaken)).toBe(true);
    const remaining = all.filter((b) => !first.deletions.includes(b));
    const second = sweep(remaining, 20);
    expect(second.deletions.map((b) => b.name).sort()).toEqual(
      left.map((e) => e.branch.name).sort()
    );
  });

  it('run again at once after every deletion: nothing deleted', () => {
    const done = sweep(all, 50).deletions;
    const again = sweep(
      all.filter((b) => !done.includes(b)),
      50
    );
    expect(again.deletions).toEqual([]);
    expect(again.entries.every((e) => e.verdict === 'keep')).toBe(true);
  });
});

describe('what is never deleted', () => {
  it('the default branch, a protected branch, a branch with children, a branch that does not match', () => {
    const parent = branch('preview/pr-1', 30);
    const child = branch('preview/pr-2', 30, { parentId: parent.id });
    const branches = [
      { ...main, name: 'preview/pr-9' },
      branch('preview/pr-3', 30, { protected: true }),
      parent,
      child,
      branch('other/pr-4', 30),
      branch('preview/pr-5-extra', 30)
    ];
    const plan = planSweep(
      branches,
      ask({
        olderThanMs: DAY,
        pulls: pulls([
          [1, 'merged'],
          [2, 'merged'],
          [3, 'merged'],
          [9, 'merged']
        ])
      })
    );
    expect(verdicts(plan)).toEqual([
      ['preview/pr-2', 'delete', 'pull-request-merged'],
      ['preview/pr-1', 'keep', 'has-children'],
      ['preview/pr-3', 'keep', 'protected'],
      ['preview/pr-9', 'keep', 'default']
    ]);
    expect(plan.deletions).toEqual([child]);
  });

  it('an open pull request keeps its branch whatever its age', () => {
    const plan = planSweep(
      [branch('preview/pr-7', 90)],
      ask({ olderThanMs: DAY, pulls: pulls([[7, 'open']]) })
    );
    expect(plan.entries[0]).toMatchObject({
      verdict: 'keep',
      reason: { kind: 'open-pull-request', pr: 7 },
      pr: 7
    });
  });
});

describe('which pull request a branch has, and what is read', () => {
  it('{pr} in the name first, else the github-pr-number annotation; a malformed one is ignored', () => {
    const pattern = compileBranchPattern('preview/*');
    const branches = [
      branch('preview/a', 1, { annotations: { 'github-pr-number': '12' } }),
      branch('preview/b', 1, { annotations: { 'github-pr-number': '12' } }),
      branch('preview/c', 1, { annotations: { 'github-pr-number': '012' } }),
      branch('preview/d', 1, { annotations: { 'github-pr-number': 'twelve' } }),
      branch('preview/e', 1, { annotations: { 'github-pr-number': '3' }, protected: true }),
      branch('other/f', 1, { annotations: { 'github-pr-number': '4' } })
    ];
    expect(pullRequestsToRead(branches, pattern)).toEqual([12]);
    const named = [branch('preview/pr-5', 1, { annotations: { 'github-pr-number': '6' } })];
    expect(pullRequestsToRead(named, compileBranchPattern('preview/pr-{pr}'))).toEqual([5]);
    expect(pullRequestsToRead(named, pattern)).toEqual([6]);
  });

  it('no pull request read and no older_than: kept, saying so', () => {
    const plan = planSweep(
      [branch('preview/pr-1', 30), branch('preview/pr-2', 30), branch('preview/pr-x', 30)],
      ask({ pattern: compileBranchPattern('preview/*'), pulls: pulls([[2, 'not-found']]) })
    );
    expect(plan.entries.map((e) => e.reason)).toEqual([
      { kind: 'no-pull-request' },
      { kind: 'no-pull-request' },
      { kind: 'no-pull-request' }
    ]);
    const withPr = planSweep(
      [branch('preview/pr-1', 30), branch('preview/pr-2', 30)],
      ask({ pulls: pulls([[2, 'not-found']]) })
    );
    expect(withPr.entries.map((e) => e.reason)).toEqual([
      { kind: 'no-pull-request', pr: 1, state: 'unread' },
      { kind: 'no-pull-request', pr: 2, state: 'not-found' }
    ]);
  });

  it('a pull request not found or not read: older_than decides', () => {
    const plan = planSweep(
      [branch('preview/pr-1', 30), branch('preview/pr-2', 3)],
      ask({ olderThanMs: 7 * DAY, pulls: pulls([[1, 'not-found']]) })
    );
    expect(plan.entries.map((e) => [e.branch.name, e.verdict, e.reason])).toEqual([
      [
        'preview/pr-1',
        'delete',
        { kind: 'older-than', ageMs: 30 * DAY, olderThanMs: 7 * DAY, since: 'created' }
      ],
      [
        'preview/pr-2',
        'keep',
        { kind: 'newer-than', ageMs: 3 * DAY, olderThanMs: 7 * DAY, since: 'created' }
      ]
    ]);
  });
});

describe('age, order and dry run', () => {
  it('counts from the last reset when there is one', () => {
    const reset = branch('preview/pr-1', 30, { lastResetAt: ago(2 * DAY) });
    const plan = planSweep([reset], ask({ olderThanMs: 7 * DAY }));
    expect(plan.entries[0]?.reason).toEqual({
      kind: 'newer-than',
      ageMs: 2 * DAY,
      olderThanMs: 7 * DAY,
      since: 'reset'
    });
  });

  it('exactly older_than old is not older; a time it cannot read counts as new', () => {
    const plan = planSweep(
      [branch('preview/pr-1', 7), branch('preview/pr-2', 1, { createdAt: 'yesterday' })],
      ask({ olderThanMs: 7 * DAY })
    );
    expect(plan.deletions).toEqual([]);
  });

  it('deletes the oldest first, ties by name; keeps the rest by name', () => {
    const plan = planSweep(
      [
        branch('preview/pr-3', 10),
        branch('preview/pr-1', 20),
        branch('preview/pr-2', 20),
        branch('preview/pr-4', 1)
      ],
      ask({ olderThanMs: 7 * DAY, sweepMax: 2 })
    );
    expect(verdicts(plan)).toEqual([
      ['preview/pr-1', 'delete', 'older-than'],
      ['preview/pr-2', 'delete', 'older-than'],
      ['preview/pr-3', 'left-for-next-run', 'older-than'],
      ['preview/pr-4', 'keep', 'newer-than']
    ]);
  });

  it('a dry run lists the same, deletes nothing', () => {
    const branches = [
      branch('preview/pr-1', 20),
      branch('preview/pr-2', 10),
      branch('preview/pr-3', 1)
    ];
    const real = planSweep(branches, ask({ olderThanMs: 7 * DAY, sweepMax: 1 }));
    const dry = planSweep(branches, ask({ olderThanMs: 7 * DAY, sweepMax: 1, dryRun: true }));
    expect(dry.deletions).toEqual([]);
    expect(dry.entries.map((e) => e.verdict)).toEqual([
      'would-delete',
      'left-for-next-run',
      'keep'
    ]);
    expect(dry.entries.map((e) => e.reason)).toEqual(real.entries.map((e) => e.reason));
  });
});

describe('the oldest branches a sweep could take (for the branch-limit error)', () => {
  it('never the default, a protected one or one with children; oldest first; matching the pattern if given', () => {
    const parent = branch('preview/pr-1', 50);
    const branches = [
      main,
      parent,
      branch('preview/pr-2', 40, { parentId: parent.id }),
      branch('preview/pr-3', 60, { protected: true }),
      branch('preview/pr-4', 10),
      branch('scratch', 30, { lastResetAt: ago(DAY) }),
      branch('preview/pr-5', 20)
    ];
    expect(oldestSweepable(branches, NOW, 2).map((b) => b.name)).toEqual([
      'preview/pr-2',
      'preview/pr-5'
    ]);
    expect(oldestSweepable(branches, NOW, 10).map((b) => b.name)).toEqual([
      'preview/pr-2',
      'preview/pr-5',
      'preview/pr-4',
      'scratch'
    ]);
    const pattern = compileBranchPattern('preview/pr-{pr}');
    expect(oldestSweepable(branches, NOW, 10, pattern).map((b) => b.name)).toEqual([
      'preview/pr-2',
      'preview/pr-5',
      'preview/pr-4'
    ]);
  });
});

describe('reading the branch list for a sweep', () => {
  it("each branch with its annotation's string values and its last reset", () => {
    const values = annotationValues({
      'br-a-1': {
        object: { type: 'console/branch', id: 'br-a-1' },
        value: { 'github-pr-number': '12', n: 5 }
      },
      'br-b-2': { object: { type: 'console/branch', id: 'br-b-2' }, value: 'nonsense' }
    });
    expect([...values]).toEqual([
      ['br-a-1', { 'github-pr-number': '12' }],
      ['br-b-2', {}]
    ]);
    expect(annotationValues(undefined).size).toBe(0);
    const item = {
      id: 'br-a-1',
      name: 'preview/a',
      parent_id: 'br-main-1',
      created_at: '2026-11-01T00:00:00Z',
      last_reset_at: '2026-11-20T00:00:00Z',
      default: false,
      protected: false
    };
    expect(sweepBranchOf(item, values)).toEqual({
      id: 'br-a-1',
      name: 'preview/a',
      parentId: 'br-main-1',
      createdAt: '2026-11-01T00:00:00Z',
      lastResetAt: '2026-11-20T00:00:00Z',
      default: false,
      protected: false,
      annotations: { 'github-pr-number': '12' }
    });
    expect(sweepBranchOf({ name: 'no id' }, values)).toBeUndefined();
  });

  it('writes the annotation create-branch-action writes, and ignores one of another repository', () => {
    const annotations = pullRequestAnnotation('octo-org/octo-repo', 12);
    expect(annotations).toEqual({
      'github-pr-number': '12',
      'github-commit-repo': 'octo-org/octo-repo'
    });
    const ours = branch('preview/a', 30, { annotations });
    const theirs = branch('preview/b', 30, {
      annotations: pullRequestAnnotation('other/repo', 13)
    });
    const pattern = compileBranchPattern('preview/*');
    expect(pullRequestsToRead([ours, theirs], pattern, 'Octo-Org/octo-repo')).toEqual([12]);
    expect(pullRequestsToRead([ours, theirs], pattern)).toEqual([12, 13]);
    const plan = planSweep(
      [ours, theirs],
      ask({
        pattern,
        repository: 'octo-org/octo-repo',
        pulls: pulls([
          [12, 'merged'],
          [13, 'merged']
        ])
      })
    );
    expect(verdicts(plan)).toEqual([
      ['preview/a', 'delete', 'pull-request-merged'],
      ['preview/b', 'keep', 'no-pull-request']
    ]);
  });
});
