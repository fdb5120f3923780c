import { DEFAULT_POLICY } from '../../src/wait/status.js';
import type { Operation } from '../../src/neon/operation.js';
import type { Report } from '../../src/report/model.js';
import type { RecentOperations } from '../../src/neon/recent.js';

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

/** A report of a finished wait for operations of that project, ending at `finishedAt`, with `fields` on top. */
export function makeReport(fields: Partial<Report> = {}): Report {
  const finishedAt = fields.finishedAt ?? Date.parse('2026-01-02T03:10:00Z');
  return {
    kind: 'operations',
    policy: DEFAULT_POLICY,
    waited: true,
    projectId: 'spring-example-302709',
    status: 'finished',
    timedOut: false,
    operations: [],
    startedAt: finishedAt - 75_000,
    finishedAt,
    serviceAheadMs: 0,
    timeoutMs: 600_000,
    requests: 7,
    ...fields
  };
}

/** Recent operations as one page fetched them. */
export function makeRecent(
  operations: Operation[],
  fields: Partial<RecentOperations> = {}
): RecentOperations {
  return { operations, scanned: operations.length, requests: 1, scanStopped: false, ...fields };
}
