import type { AwaitedOperation } from '../neon/operation.js';
import type { Ending } from '../wait/conclusion.js';
import type { WaitResult } from '../wait/wait.js';
import { aggregateStatus, DEFAULT_POLICY, type Status, WAIT_STATUS } from '../wait/status.js';
import type { RecentOperations } from '../neon/recent.js';
import type { CheckOutcome } from './check-outcome.js';
import { COLUMNS } from './table.js';

/**
 * Everything a step saw, whatever way it ended: the outputs, the summary and the comment are made
 * from it. The step's facts, and what each target (a place waited for) saw: one target today.
 */
export type Report = StepFacts & {
  /** The worst of the targets' statuses (`aggregateStatus`), or the main step's (`watch_job`). */
  status: Status;
  /** Why the step fails: its targets' failures. */
  failure?: string;
  /** One or more: an input error's follows nothing. */
  targets: readonly [TargetReport, ...TargetReport[]];
};

/** The step's facts: when it ran, what it asked of the API, how it judged statuses. */
export type StepFacts = Pick<
  WaitResult,
  'startedAt' | 'finishedAt' | 'serviceAheadMs' | 'request' | 'policy'
> & {
  waited: boolean;
  timeoutMs: number;
  /** API requests sent in all. */
  requests: number;
  /** Link the project and branches to the Neon console (`consoleLinksFor`). */
  consoleLinks?: boolean;
  /** The post step of `watch_job`: how the main step ended, shown beside what the post step saw. */
  mainStep?: MainEnding;
};

/** What one target's wait and the checks after it saw. */
export type TargetReport = TargetWait & {
  branchId?: string;
  endpointId?: string;
  /** What the checks after the wait found, in their order (`checks/index.ts`). */
  checks: CheckOutcome[];
  /** The project's recent operations for the summary, when asked for and fetched. */
  recent?: RecentOperations;
  recentError?: string;
};
type TargetWait = Omit<WaitResult, keyof StepFacts | 'checks' | 'apiUnusable' | 'newestPage'>;

/** How the main step of `watch_job` ended, as the post step reads it back. */
export type MainEnding = Pick<Ending, 'status' | 'failure'>;

/** The report of a step: its status and failure are its targets'. */
export function reportOf(step: StepFacts, targets: Report['targets']): Report {
  const failures = targets.flatMap((target) => (target.failure ? [target.failure] : []));
  const status = aggregateStatus(targets.map((target) => target.status));
  return { ...step, status, ...(failures.length > 0 && { failure: failures.join(' ') }), targets };
}

/** What the engine adds to a wait's result: the step's facts, and the target's place, checks and recent operations. */
export type WaitContext = Omit<StepFacts, keyof WaitResult> &
  Partial<Omit<TargetReport, keyof TargetWait>>;

/** The report of a step that waited for one target. */
export function buildReport(result: WaitResult, context: WaitContext): Report {
  // The wait's own bookkeeping is left out; the rest is the step's or its target's.
  const { checks: done, apiUnusable, newestPage, request, policy, ...seen } = result;
  const { startedAt, finishedAt, serviceAheadMs, ...waited } = seen;
  const { branchId, endpointId, checks = [], recent, recentError, ...facts } = context;
  const step = { ...facts, startedAt, finishedAt, serviceAheadMs, request, policy };
  return reportOf(step, [{ ...waited, branchId, endpointId, checks, recent, recentError }]);
}

/** Every awaited operation of the report, target by target. */
export const awaitedOperations = (report: Report): AwaitedOperation[] =>
  report.targets.flatMap((target) => target.operations);

/** Whether a target's deadline passed before its wait ended. */
export const timedOut = (report: Report): boolean => report.targets.some((t) => t.timedOut);

/** The facts of every check named `name`, target by target (`database`). */
export const checkFacts = (report: Report, name: string) =>
  report.targets.flatMap(({ checks }) => checks.flatMap((c) => (c.name === name ? [c.facts] : [])));

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
  const step = { policy: DEFAULT_POLICY, waited: false, startedAt, finishedAt: now };
  const none = { serviceAheadMs: 0, timeoutMs: 0, requests: 0 };
  const target = { kind: 'operations', status, failure: message, timedOut: false } as const;
  return reportOf({ ...step, ...none }, [{ ...target, operations: [], checks: [] }]);
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
  const places = targets.flatMap((t) => [t.kind, t.projectId, t.branchId, t.endpointId]);
  return JSON.stringify([
    ...places,
    report.status,
    report.failure ?? '',
    ...targets.flatMap((target) => [
      target.operations.map(brief),
      target.recent?.operations.map(brief) ?? [],
      target.recentError ?? '',
      target.checks.flatMap((check) => check.digest ?? [])
    ]),
    Boolean(report.consoleLinks),
    report.mainStep ?? []
  ]);
}
