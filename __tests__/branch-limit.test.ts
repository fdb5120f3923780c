import { describe, expect, it } from '@jest/globals';
import { isBranchLimitRefusal } from '../src/neon/branch-limit.js';
import { branchLimitWords } from '../src/report/branch-limit-message.js';
import { actionNaming, type Naming } from '../src/util/errors.js';
import { DAY, makeSweepBranch, SWEEP_NOW } from './helpers/builders.js';

const NOW = SWEEP_NOW;
const branch = makeSweepBranch;

describe('a create refused at the branch limit', () => {
  it.each<[number, unknown, boolean]>([
    [
      422,
      { code: 'BRANCHES_LIMIT_EXCEEDED', message: 'branches limit of 10 exceeded, got 10' },
      true
    ],
    [422, { code: '', message: 'project branches limit exceeded' }, true],
    [
      422,
      { code: 'PROJECTS_LIMIT_EXCEEDED', message: 'user projects limit of 1 exceeded, got 1' },
      false
    ],
    [409, { code: 'BRANCHES_LIMIT_EXCEEDED', message: 'x' }, false],
    [422, '<html>', false]
  ])('%d %j: %s', (status, body, refused) => {
    expect(isBranchLimitRefusal(status, body)).toBe(refused);
  });
});

describe('the error at the branch limit', () => {
  const commandNaming: Naming = (input) => `--${input.replace(/_/g, '-')}`;
  const facts = {
    name: 'preview/pr-11',
    count: 10,
    limit: 10,
    candidates: [
      branch('preview/pr-1', 12),
      branch('preview/pr-2', 9, { lastResetAt: new Date(NOW - 8 * DAY).toISOString() })
    ],
    pattern: 'preview/pr-{pr}',
    now: NOW
  };

  it('names the count, the limit, the candidates and the sweep to run; nothing deleted', () => {
    expect(branchLimitWords(facts)(actionNaming)).toBe(
      "Neon refused to create branch 'preview/pr-11': the project has 10 branches and its plan " +
        'allows 10. Nothing was deleted. The oldest branches a sweep could take: ' +
        "'preview/pr-1' (created 12d ago), 'preview/pr-2' (last reset 8d ago). To make room, run " +
        "a sweep: input 'sweep_branches' set to 'preview/pr-{pr}' with input 'older_than' (such " +
        "as 7d) or a token that can read pull requests. A dry run first (input 'dry_run') lists " +
        'what it would delete and deletes nothing.'
    );
  });

  it("in the command's words", () => {
    const words = branchLimitWords(facts)(commandNaming);
    expect(words).toContain(
      "run a sweep: --sweep-branches set to 'preview/pr-{pr}' with --older-than"
    );
    expect(words).toContain('A dry run first (--dry-run) lists');
  });

  it('says when no branch can be swept', () => {
    expect(branchLimitWords({ ...facts, candidates: [] })(actionNaming)).toMatch(
      /Nothing was deleted\. No branch can be swept: each is the default branch, protected, or has child branches\./
    );
  });
});
