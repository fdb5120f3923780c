/**
 * What a step did to a branch, in one word: made it (`created`), took the one of that name
 * (`reused`), restored it from its parent (`reset`), deleted it (`deleted`), or found it already
 * gone (`gone`). Its wording is one table, `report/branch-words.ts`.
 */
export type BranchOutcomeWord = 'created' | 'reused' | 'reset' | 'deleted' | 'gone';

/** What a branch kind did to a branch, for the outputs and the reports. */
export interface BranchOutcome {
  /** None for a name already gone: the name is no id. */
  id?: string;
  name: string;
  outcome: BranchOutcomeWord;
  parentId?: string;
  parentName?: string;
  expiresAt?: string;
  /** From the step's first request until the branch had no operation in progress (ms). */
  readyMs?: number;
  connection?: Connection;
}

/** How to reach the branch's database; both URLs are secrets (masked when they were read). */
export interface Connection {
  url: string;
  pooledUrl?: string;
  host: string;
  pooledHost?: string;
  database: string;
  role: string;
}
