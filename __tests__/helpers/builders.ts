import { DEFAULT_POLICY } from '../../src/wait/status.js';
import type { Operation } from '../../src/neon/operation.js';
import { reportOf, type Report, type TargetReport } from '../../src/report/model.js';
import type { RecentOperations } from '../../src/neon/recent.js';
import type { SweepBranch } from '../../src/neon/branch-sweep.js';

let counter = 0;

/** A distinct operation id whose first 8 characters are distinct too. */
export function nextId(): string {
  counter++;
  return `${counter.toString(16).padStart(8, '0')}-a757-42b1-9907-f78322ee394e`;
}

/** A finished create_branch operation of 2026-01-02, with `fields` on top. */
export function makeOperation(fields: Partial<Operation> = {}): Operation {
  return {
    id: nextId(),
    project_id: 'spring-example-302709',
    action: 'create_branch',
    status: 'finished',
    failures_count: 0,
    created_at: '2026-01-02T03:04:05Z',
    updated_at: '2026-01-02T03:04:07Z',
    ...fields
  };
}

/** A report's fields, flat: the step's and its one target's (`status` and `failure` are both). */
export type ReportFields = Partial<Omit<Report, 'targets'> & Omit<TargetReport, 'checks'>> & {
  checks?: TargetReport['checks'];
};

/**
 * A report of a finished wait for operations of that project, ending at `finishedAt`, with `fields`
 * on top: the step's facts, and one target of the rest.
 */
export function makeReport(fields: ReportFields = {}): Report {
  const finishedAt = fields.finishedAt ?? Date.parse('2026-01-02T03:10:00Z');
  const {
    kind = 'operations',
    projectId,
    branchId,
    endpointId,
    status = 'finished',
    failure,
    timedOut = false,
    lastError,
    failingSince,
    operations = [],
    checks = [],
    recent,
    recentError,
    ...step
  } = fields;
  // A project unless one is given, `undefined` included.
  const project = 'projectId' in fields ? projectId : 'spring-example-302709';
  const target = {
    kind,
    projectId: project,
    branchId,
    endpointId,
    status,
    failure,
    timedOut,
    lastError
  };
  const seen = { failingSince, operations, checks, recent, recentError };
  return reportOf(
    {
      policy: DEFAULT_POLICY,
      waited: true,
      startedAt: finishedAt - 75_000,
      finishedAt,
      serviceAheadMs: 0,
      timeoutMs: 600_000,
      requests: 7,
      ...step
    },
    [{ ...target, ...seen }]
  );
}

/** Recent operations as one page fetched them. */
export function makeRecent(
  operations: Operation[],
  fields: Partial<RecentOperations> = {}
): RecentOperations {
  return { operations, scanned: operations.length, requests: 1, scanStopped: false, ...fields };
}

/** A report of several targets, one a `fields` (the step's facts are the first's). */
export function makeTargets(first: ReportFields, ...others: ReportFields[]): Report {
  const { status, failure, targets, ...step } = makeReport(first);
  return reportOf(step, [targets[0], ...others.map((fields) => makeReport(fields).targets[0])]);
}

/** The moment the sweep's tests look from, and a day. */
export const SWEEP_NOW = Date.parse('2026-11-28T03:00:00Z');
export const DAY = 86_400_000;
/** The id of `main`, the parent of the branches `makeSweepBranch` makes. */
export const MAIN_ID = 'br-main-0001';

/** A branch as the sweep reads it, created `days` before `SWEEP_NOW`, a child of main unless `more` says otherwise. */
export function makeSweepBranch(
  name: string,
  days: number,
  more: Partial<SweepBranch> = {}
): SweepBranch {
  return {
    id: `br-${name.replace(/[^a-z0-9]+/g, '-')}`,
    name,
    parentId: MAIN_ID,
    default: false,
    protected: false,
    createdAt: new Date(SWEEP_NOW - days * DAY).toISOString(),
    ...more
  };
}
