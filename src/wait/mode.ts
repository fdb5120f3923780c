import type { NeonClient } from '../neon/client.js';
import type { Operation } from '../neon/operation.js';
import type { FetchedPage } from '../neon/paging.js';
import { oneLine } from '../util/text.js';
import type { Ending } from './conclusion.js';
import { aggregateStatus, type Verdict } from './status.js';
import type { OperationTracker } from './tracker.js';
import type { WaitSettings } from './wait-settings.js';

/** The ways of waiting; the report's `kind`. Each has a row in `modes/index.ts`'s `MODES`. */
export const WAIT_KINDS = ['operations', 'project', 'endpoint', 'job'] as const;
export type WaitKind = (typeof WAIT_KINDS)[number];

/** How the report names what a mode followed (each mode's file declares its own). */
export interface ModeWords {
  /** The headline's: `Neon project activity: idle`. */
  subject: string;
  /** The awaited operations' table heading. */
  heading: string;
  /** The timeline's section of the awaited operations. */
  section: string;
  /** A PR comment's folded title: `2 awaited`. */
  counted: string;
  /** Said when the mode followed no operation ('' when that needs no word). */
  none: string;
  /**
   * The mode awaits a place (project, branch, compute) to be idle, which the facts line names: the
   * headline names no operations and says `after` (being idle is no achievement of the wait).
   */
  awaitsPlace: boolean;
}

/** One way of waiting (a file in `modes/`); the loop, deadline, retries and errors are shared. */
export interface WaitMode {
  /** The log's first line: what is awaited. */
  goal: string;
  /** What the deadline's message names when nothing in particular was still open. */
  scope: string;
  refresh(deadline: number): Promise<void>;
  verdict(): Verdict;
  /** The ending when the checks ended the wait (not a timeout, a cancellation or an error). */
  conclude(): Ending;
  /** The newest page of List operations from the last check, if it made one (the summary reuses it). */
  newestPage(): FetchedPage | undefined;
}

export interface ModeContext {
  client: NeonClient;
  projectId: string;
  settings: WaitSettings;
  tracker: OperationTracker;
  /** `project p` or `branch b of project p`: what is followed. */
  scope: string;
  /** The project's operations, newest first, as `operationPages` reads them. */
  list(
    deadline: number,
    limit: number | (() => number),
    maxPages: number,
    patience?: number
  ): AsyncGenerator<Operation[]>;
}

/** Which mode the settings ask for, known before the project is (errors report it too). */
export function kindFor(settings: WaitSettings): WaitKind {
  if (settings.jobMark) return 'job';
  if (settings.operationIds.length > 0) return 'operations';
  if (settings.endpointId) return 'endpoint';
  return 'project';
}

/** The ending for operations that did not succeed: the worst status, and why. */
export function failed(what: string, ops: Operation[]): Ending {
  // `create_branch 1a2b… is error (failures_count 2): text`
  const each = ops.map(
    (op) =>
      `${oneLine(op.action, 60)} ${op.id} is ${oneLine(op.status, 40)}` +
      (op.status === 'failed' ? ' with no retry in sight' : '') +
      ` (failures_count ${op.failures_count ?? 0})` +
      (op.error ? `: ${oneLine(op.error, 300)}` : '')
  );
  const status = aggregateStatus(ops.map((op) => op.status));
  return { status, failure: `${what} did not succeed: ${each.join('; ')}` };
}
