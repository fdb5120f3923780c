import type { BranchOutcomeWord } from '../neon/branch-outcome.js';

/** How the reports say one branch outcome. */
interface BranchWords {
  /** The summary's branch line, around the branch's name and id: `Created branch preview/pr-1 (br-…)`. */
  summary: (named: string) => string;
  /** JUnit's `branch` case output, after the id: `br-…: created`. */
  junit: string;
  /** Whether the parent is named after it (`from main`). */
  fromParent: boolean;
  /** The `created` output: `true` only for a branch this step made, `false` for another it kept (none: a deletion). */
  created?: boolean;
}

/** The one table of what each outcome reads as: the summary, JUnit, `--json` and the outputs read it. */
// prettier-ignore
export const BRANCH_WORDS: Readonly<Record<BranchOutcomeWord, BranchWords>> = {
  created: { summary: (named) => `Created branch ${named}`, junit: 'created', fromParent: true, created: true },
  reused: { summary: (named) => `Reused branch ${named}`, junit: 'reused', fromParent: true, created: false },
  reset: { summary: (named) => `Reset branch ${named}`, junit: 'reset', fromParent: true, created: false },
  deleted: { summary: (named) => `Deleted branch ${named}`, junit: 'deleted', fromParent: false },
  gone: { summary: (named) => `Branch ${named} was already gone`, junit: 'already gone', fromParent: false }
};
