import type { Ending } from '../wait/conclusion.js';

/** What JUnit says of a case: passed (empty), or a kind, a short message, a type and the detail (GitLab shows the last). */
export type CaseVerdict =
  [] | [kind: 'failure' | 'error' | 'skipped', message: string, type?: string, detail?: string];

/** One JUnit test case. */
export interface TestCase {
  name: string;
  ms: number;
  verdict: CaseVerdict;
  /** Ids of this run (`operation_id`, `branch_id`): kept out of the name, which stays stable. */
  properties?: Record<string, string | undefined>;
  /** What was done, for the case's output (`system-out`). */
  out?: string;
}

/** How a check that fails the step ends it. */
export type CheckEnding = Pick<Ending, 'status' | 'failure' | 'timedOut' | 'apiUnusable'>;

/**
 * What one check after the wait found (`checks/`), as data every renderer shows without knowing
 * the check: the summary, JUnit, the comment's digest and the outputs read these fields only.
 */
export interface CheckOutcome {
  /** Its name, by which the outputs find its `facts` (`database`). */
  name: string;
  /** Its line in the summary's top (Markdown, escaped), if it has one. */
  line?: string;
  /**
   * Markdown shown under its line (above a comment's fold), if it has any, rendered within
   * `maxBytes` (UTF-8): the room the rest of the report leaves it.
   */
  details?: (maxBytes: number) => string;
  /** Its JUnit case, if it has one. */
  junit?: TestCase;
  /** What of it counts for the PR comment's digest: a change rewrites the comment. */
  digest?: unknown[];
  /** What the outputs and `--json` read of it (`database_ready` reads the database's `ready`). */
  facts?: Readonly<Record<string, unknown>>;
  /** It connected to the database, which may wake a compute (an operation of its own). */
  connected?: boolean;
  /** When it fails the step: how the step ends. */
  ending?: CheckEnding;
}
