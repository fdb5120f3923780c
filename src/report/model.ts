import type { Operation } from '../neon/operation.js';
import type { ResultStatus } from '../wait/status.js';
import { WAIT_STATUS } from '../wait/status.js';
import type { DatabaseCheck } from '../database/probe.js';
import type { WaitResult } from '../wait/wait.js';
import type { RecentOperations } from './recent.js';
import type { WaitKind } from '../wait/mode.js';

/** Everything a run saw, whatever way it ended: the outputs, the summary and the comment are made from it. */
export interface Report {
  mode: WaitKind;
  waited: boolean;
  projectId?: string;
  branchId?: string;
  /** The `status` output. */
  status: ResultStatus;
  timedOut: boolean;
  /** Awaited operations as last seen. */
  operations: Operation[];
  startedAt: number;
  finishedAt: number;
  timeoutMs: number;
  /** Why the step failed, when it did. */
  failure?: string;
  /** A transient fault still happening at the deadline. */
  lastError?: string;
  requests: number;
  /** The project's recent operations for the summary, when asked for and fetched. */
  recent?: RecentOperations;
  /** Why the recent operations could not be fetched. */
  recentError?: string;
  /** The database check, when `database_url` was given. */
  database?: DatabaseCheck;
  /**
   * Link the project and branches to the Neon console: only when the API is Neon's own
   * (`consoleLinksFor(settings.apiHost)`), whose console knows these ids.
   */
  consoleLinks?: boolean;
  /** The post step of `watch_job`: what the main step decided, shown beside what the post step saw. */
  mainStep?: MainVerdict;
}

/** A step's verdict as another step shows it. */
export interface MainVerdict {
  status: ResultStatus;
  failure?: string;
}

export interface ReportContext {
  waited: boolean;
  branchId?: string;
  timeoutMs: number;
  requests: number;
  recent?: RecentOperations;
  recentError?: string;
  consoleLinks?: boolean;
}

/** The report of a wait, built once from its result and what was fetched for the summary. */
export function buildReport(result: WaitResult, context: ReportContext): Report {
  return {
    mode: result.kind,
    waited: context.waited,
    projectId: result.projectId,
    branchId: context.branchId,
    status: result.status,
    timedOut: result.timedOut,
    operations: result.operations,
    startedAt: result.startedAt,
    finishedAt: result.finishedAt,
    timeoutMs: context.timeoutMs,
    failure: result.failure,
    lastError: result.lastError,
    requests: context.requests,
    recent: context.recent,
    recentError: context.recentError,
    database: result.database,
    consoleLinks: context.consoleLinks
  };
}

/** The report of a step whose inputs were wrong: nothing was asked of the API. */
export function inputErrorReport(message: string, startedAt: number, now: number): Report {
  return {
    mode: 'operations',
    waited: false,
    status: WAIT_STATUS.inputError,
    timedOut: false,
    operations: [],
    startedAt,
    finishedAt: now,
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
  const brief = (op: Operation): unknown[] => [op.id, op.status, op.failures_count, op.error ?? ''];
  return JSON.stringify([
    report.mode,
    report.projectId,
    report.branchId,
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
