import { describe, expect, it } from '@jest/globals';
import { compileBranchPattern } from '../src/neon/branch-pattern.js';
import { planSweep, type SweepReason } from '../src/neon/branch-sweep.js';
import { ageWords, reasonWords, sweepLine, sweptOf } from '../src/report/sweep-words.js';
import { DAY, makeSweepBranch, SWEEP_NOW } from './helpers/builders.js';

const NOW = SWEEP_NOW;
const branch = makeSweepBranch;

describe('a sweep in words', () => {
  it.each<[SweepReason, string]>([
    [{ kind: 'pull-request-merged', pr: 12 }, 'pull request #12 merged'],
    [{ kind: 'pull-request-closed', pr: 12 }, 'pull request #12 closed'],
    [{ kind: 'open-pull-request', pr: 12 }, 'open pull request #12'],
    [
      { kind: 'older-than', ageMs: 9.5 * DAY, olderThanMs: 7 * DAY, since: 'created' },
      'older than 7d (created 9d ago)'
    ],
    [
      { kind: 'newer-than', ageMs: 5 * 3_600_000, olderThanMs: 36 * 3_600_000, since: 'reset' },
      'newer than 36h (last reset 5h ago)'
    ],
    [{ kind: 'default' }, 'default branch'],
    [{ kind: 'protected' }, 'protected'],
    [{ kind: 'has-children' }, 'has child branches'],
    [{ kind: 'no-pull-request' }, 'no pull request known, and no older_than'],
    [
      { kind: 'no-pull-request', pr: 3, state: 'not-found' },
      'pull request #3 not found, and no older_than'
    ],
    [
      { kind: 'no-pull-request', pr: 3, state: 'unread' },
      'pull request #3 not read, and no older_than'
    ]
  ])('%j: %s', (reason, words) => {
    expect(reasonWords(reason)).toBe(words);
  });

  it('says each branch with what was done and why, and `swept` lists the deletions', () => {
    const branches = [
      branch('preview/pr-12', 1),
      branch('preview/pr-13', 30),
      branch('preview/pr-14', 20),
      branch('preview/pr-15', 1, { protected: true })
    ];
    const ask = {
      pattern: compileBranchPattern('preview/pr-{pr}'),
      olderThanMs: 7 * DAY,
      pulls: new Map([[12, 'merged' as const]]),
      sweepMax: 2,
      now: NOW
    };
    const plan = planSweep(branches, { ...ask, dryRun: false });
    expect(plan.entries.map(sweepLine)).toEqual([
      'preview/pr-13: deleted: older than 7d (created 30d ago)',
      'preview/pr-14: deleted: older than 7d (created 20d ago)',
      'preview/pr-12: left for the next run (sweep_max reached): pull request #12 merged',
      'preview/pr-15: kept: protected'
    ]);
    expect(sweptOf(plan)).toEqual([
      { id: 'br-preview-pr-13', name: 'preview/pr-13', reason: 'older than 7d (created 30d ago)' },
      { id: 'br-preview-pr-14', name: 'preview/pr-14', reason: 'older than 7d (created 20d ago)' }
    ]);
    const dry = planSweep(branches, { ...ask, dryRun: true });
    expect(dry.entries.map(sweepLine)[0]).toBe(
      'preview/pr-13: would delete (dry run): older than 7d (created 30d ago)'
    );
    expect(sweptOf(dry)).toEqual(sweptOf(plan));
  });

  it.each([
    [0, '0m'],
    [59_000, '0m'],
    [61_000, '1m'],
    [3_600_000, '1h'],
    [47 * 3_600_000, '1d']
  ])('an age of %d ms is %s', (ms, words) => {
    expect(ageWords(ms)).toBe(words);
  });
});
