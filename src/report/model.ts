import type { AwaitedOperation } from '../neon/operation.js';
import type { Ending } from '../wait/conclusion.js';
import { DEFAULT_POLICY, WAIT_STATUS } from '../wait/status.js';
import type { WaitResult } from '../wait/wait.js';
import type { RecentOperations } from '../neon/recent.js';
import { COLUMNS } from './table.js';

/** Everything a run saw, whatever way it ended: the outputs, the summary and the comment are made from it. */
export type Report = Omit<WaitResult, 'checks' | 'apiUnusable' | 'newestPage'> & ReportContext;

/** How the main step of `watch_job` ended, as the post step reads it back. */
export type MainEnding = Pick<Ending, 'status' | 'failure'>;

interface ReportContext {
  waited: boolean;
  branchId?: string;
  endpointId?: string;
  timeoutMs: number;
  requests: number;
  /** The project's recent operations for the summary, when asked for and fetched. */
  recent?: RecentOperations;
  recentError?: string;
  /** Link the project and branches to the Neon console (`consoleLinksFor`). */
  consoleLinks?: boolean;
  /** The post step of `watch_job`: how the main step ended, shown beside what the post step saw. */
  mainStep?: MainEnding;
}

/** The report of a wait, built once from its result and what was fetched for the summary. */
export function buildReport(result: WaitResult, context: ReportContext): Report {
  const { checks, apiUnusable, newestPage, ...seen } = result; // the wait's own bookkeeping
  return { ...seen, ...context };
}

/**
 * When the report's wait ended, on the service's clock: operations' timestamps are the service's,
 * so how long one has run is read against this.
 */
export const serviceEnd = (report: Report): number => report.finishedAt + report.serviceAheadMs;

/** The report of a step whose inputs were wrong: nothing was asked of the API. */
export function inputErrorReport(message: string, startedAt: number, now: number): Report {
  return {
    kind: 'operations',
    policy: DEFAULT_POLICY,
    waited: false,
    status: WAIT_STATUS.inputError,
    timedOut: false,
    operations: [],
    startedAt,
    finishedAt: now,
    serviceAheadMs: 0,
    timeoutMs: 0,
    failure: message,
    requests: 0
  };
}

/**
 * What the report says, without what changes on every run (times, request counts): two runs that
 * saw the same thing have the same view, so a PR comment showing it need not be rewritten.
 */
export function stableView(report: Report): string {
  // The table's columns that count, and the error text listed under it.
  const brief = (op: AwaitedOperation): unknown[] => [
    ...COLUMNS.flatMap((column) => (column.digest ? [column.digest(op)] : [])),
    op.error ?? ''
  ];
  return JSON.stringify([
    report.kind,
    report.projectId,
    report.branchId,
    report.endpointId,
    report.status,
    report.failure ?? '',
    report.operations.map(brief),
    report.recent?.operations.map(brief) ?? [],
    report.recentError ?? '',
    report.database ? [report.database.target, report.database.ready] : [],
    Boolean(report.consoleLinks),
    report.mainStep ?? []
  ]);
}
