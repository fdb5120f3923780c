import { describe, expect, it } from '@jest/globals';
import { renderJunit } from '../src/cli/junit.js';
import type { BranchOutcomeWord } from '../src/neon/branch-outcome.js';
import { resultFields } from '../src/outputs.js';
import { renderSummary } from '../src/report/summary.js';
import { makeReport } from './helpers/builders.js';

// What happened to a branch is one word (src/neon/branch-outcome.ts), and each reader says it from
// the one table of its words (src/report/branch-words.ts).

const reportOf = (outcome: BranchOutcomeWord) =>
  makeReport({
    request: {
      method: 'POST',
      path: '/projects/p/branches',
      status: 201,
      attempts: 1,
      lockedMs: 0,
      holders: [],
      branch: {
        id: 'br-a-1',
        name: 'preview/pr-1',
        outcome,
        parentId: 'br-main-1',
        parentName: 'main'
      }
    }
  });

describe('the branch outcome, as each reader says it', () => {
  it.each<[BranchOutcomeWord, string, string, boolean | undefined]>([
    [
      'created',
      'Created branch <code>preview/pr-1</code> (<code>br-a-1</code>) from <code>main</code>',
      'br-a-1: created from main',
      true
    ],
    [
      'reused',
      'Reused branch <code>preview/pr-1</code> (<code>br-a-1</code>) from <code>main</code>',
      'br-a-1: reused from main',
      false
    ],
    [
      'reset',
      'Reset branch <code>preview/pr-1</code> (<code>br-a-1</code>) from <code>main</code>',
      'br-a-1: reset from main',
      false
    ],
    [
      'deleted',
      'Deleted branch <code>preview/pr-1</code> (<code>br-a-1</code>)',
      'br-a-1: deleted',
      undefined
    ],
    [
      'gone',
      'Branch <code>preview/pr-1</code> (<code>br-a-1</code>) was already gone',
      'br-a-1: already gone',
      undefined
    ]
  ])('%s: the summary, JUnit, --json and the outputs', (outcome, summary, junit, created) => {
    const report = reportOf(outcome);
    expect(renderSummary(report)).toContain(`${summary}\n`);
    expect(renderJunit(report)).toContain(`<system-out>${junit}</system-out>`);
    const fields = resultFields(report);
    expect(fields.branch_outcome).toBe(outcome);
    expect(fields.created).toBe(created);
  });
});
