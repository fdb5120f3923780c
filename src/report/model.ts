import type { AwaitedOperation } from '../neon/operation.js';
import type { RequestOutcome } from '../neon/send.js';
import type { Ending } from '../wait/conclusion.js';
import type { WaitKind } from '../wait/mode.js';
import type { WaitResult } from '../wait/wait.js';
import {
  aggregateStatus,
  DEFAULT_POLICY,
  type FailurePolicy,
  type Status,
  WAIT_STATUS
} from '../wait/status.js';
import type { RecentOperations } from '../neon/recent.js';
import type { CheckOutcome } from './check-outcome.js';
import { COLUMNS } from './table.js';

/**
 * Everything a step saw, whatever way it ended: the outputs, the summary and the comment are made
 * from it. The step's facts, and what each target (a place waited for) saw: one target today.
 */
export interface Report {
  startedAt: number;
  finishedAt: number;
  /**
   * How far the service's clock is ahead of the runner's (ms), as the `Date` of its answers shows:
   * operations' timestamps are the service's, so durations are read at `finishedAt` + this.
   */
  serviceAheadMs: number;
  /** API requests sent in all. */
  requests: number;
  /** What happened to the `request`, when one was asked. */
  request?: RequestOutcome;
  waited: boolean;
  timeoutMs: number;
  /** The post step of `watch_job`: how the main step ended, shown beside what the post step saw. */
  mainStep?: MainEnding;
  /** The worst of the targets' statuses (`aggregateStatus`), or the main step's (`watch_job`). */
  status: Status;
  /** Why the step fails: its targets' failures. */
  failure?: string;
  /** Which statuses failed the step: the reports show each status as the wait judged it. */
  policy: FailurePolicy;
  /** Link the project and branches to the Neon console (`consoleLinksFor`). */
  consoleLinks?: boolean;
  targets: Targets;
}

/** One or more targets: a report always has one (an input error's follows nothing). */
export type Targets = readonly [TargetReport, ...TargetReport[]];

/** What one target's wait and checks saw. */
export interface TargetReport extends Pick<
  Ending,
  'status' | 'failure' | 'lastError' | 'failingSince'
> {
  kind: WaitKind;
  projectId?: string;
  branchId?: string;
  endpointId?: string;
  timedOut: boolean;
  /** Awaited operations as last seen. */
  operations: AwaitedOperation[];
  /** What the checks after the wait found, in their order (`checks/index.ts`). */
  checks: CheckOutcome[];
  /** The project's recent operations for the summary, when asked for and fetched. */
  recent?: RecentOperations;
  recentError?: string;
}

/** How the main step of `watch_job` ended, as the post step reads it back. */
export type MainEnding = Pick<Ending, 'status' | 'failure'>;

/** The step's facts, as the engine knows them: the rest is the targets'. */
export type StepFacts = Omit<Report, 'status' | 'failure' | 'targets'>;

/** The report of a step: its status and failure are its targets'. */
export function reportOf(step: StepFacts, targets: Targets): Report {
  const failures = targets.flatMap((target) => (target.failure ? [target.failure] : []));
  const status = aggregateStatus(targets.map((target) => target.status));
  return { ...step, status, ...(failures.length > 0 && { failure: failures.join(' ') }), targets };
}

/** What the engine knows of a wait beside its result: the step's facts and the target's place, checks and recent operations. */
export type WaitContext = Pick<StepFacts, 'waited' | 'timeoutMs' | 'requests' | 'consoleLinks'> &
  Partial<Pick<TargetReport, 'branchId' | 'endpointId' | 'checks' | 'recent' | 'recentError'>>;

/** One target's report, from its wait's result (and its checks' endings). */
export function targetOf(result: WaitResult, context: WaitContext): TargetReport {
  const { kind, projectId, status, failure, timedOut, lastError, failingSince, operations } =
    result;
  const { branchId, endpointId, checks = [], recent, recentError } = context;
  const ending = { status, failure, timedOut, lastError, failingSince };
  return {
    kind,
    projectId,
    branchId,
    endpointId,
    ...ending,
    operations,
    checks,
    recent,
    recentError
  };
}

/** The report of a step that waited for one target. */
export function buildReport(result: WaitResult, context: WaitContext): Report {
  const { startedAt, finishedAt, serviceAheadMs, request, policy } = result;
  const { waited, timeoutMs, requests, consoleLinks } = context;
  const step = {
    startedAt,
    finishedAt,
    serviceAheadMs,
    request,
    policy,
    waited,
    timeoutMs,
    requests
  };
  return reportOf({ ...step, consoleLinks }, [targetOf(result, context)]);
}

/** Every awaited operation of the report, target by target. */
export const awaitedOperations = (report: Report): AwaitedOperation[] =>
  report.targets.flatMap((target) => target.operations);

/** Whether a target's deadline passed before its wait ended. */
export const timedOut = (report: Report): boolean => report.targets.some((t) => t.timedOut);

/** The facts of every check named `name`, target by target (`database`). */
export const checkFacts = (report: Report, name: string): Readonly<Record<string, unknown>>[] =>
  report.targets.flatMap((target) =>
    target.checks.filter((c) => c.name === name).map((c) => c.facts)
  );

/**
 * When the report's wait ended, on the service's clock: operations' timestamps are the service's,
 * so how long one has run is read against this.
 */
export const serviceEnd = (report: Report): number => report.finishedAt + report.serviceAheadMs;

/** The report of a step whose inputs were wrong (or that was interrupted reading them): nothing was asked of the API. */
export function inputErrorReport(
  message: string,
  startedAt: number,
  now: number,
  status: Status = WAIT_STATUS.inputError
): Report {
  const step = {
    policy: DEFAULT_POLICY,
    waited: false,
    startedAt,
    finishedAt: now,
    serviceAheadMs: 0,
    timeoutMs: 0,
    requests: 0
  };
  const target: TargetReport = {
    kind: 'operations',
    status,
    failure: message,
    timedOut: false,
    operations: [],
    checks: []
  };
  return reportOf(step, [target]);
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
  const { targets } = report;
  return JSON.stringify([
    ...targets.flatMap((target) => [
      target.kind,
      target.projectId,
      target.branchId,
      target.endpointId
    ]),
    report.status,
    report.failure ?? '',
    ...targets.flatMap((target) => [
      target.operations.map(brief),
      target.recent?.operations.map(brief) ?? [],
      target.recentError ?? '',
      target.checks.flatMap((check) => check.digest)
    ]),
    Boolean(report.consoleLinks),
    report.mainStep ?? []
  ]);
}
