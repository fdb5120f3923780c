import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { NeonClient } from '../src/neon/client.js';
import type { OperationsPage } from '../src/neon/resources.js';
import type { Operation } from '../src/neon/operation.js';
import { BRANCH_SCAN_PAGES, fetchRecentOperations } from '../src/neon/recent.js';
import {
  DEFAULT_KEY,
  operation,
  type OperationScript,
  project,
  type Scenario
} from '../simulator/scenario.js';
import { type RequestRecord, type Simulator, startSimulator } from '../simulator/server.js';

const TARGET = 'br-target-00112233';
const OTHER = 'br-other-44556677';

const SIXTY = 'sixty-ops-100001';
const FEW = 'few-ops-100002';
const EMPTY = 'no-ops-100003';
const BRANCHY = 'branchy-ops-100004';
const BRANCH_FULL = 'branch-full-100005';
const HUGE = 'huge-ops-100006';
const COMPUTE = 'compute-ops-100007';
const TARGET_COMPUTE = 'ep-target-compute-1';

/** `count` finished operations, newest first, one second apart; `onTarget(i)` puts the i-th on TARGET. */
function history(
  projectId: string,
  count: number,
  onTarget: (i: number) => boolean = () => false
): OperationScript[] {
  return Array.from({ length: count }, (_, i) =>
    operation(
      projectId,
      'check_availability',
      [
        [-10_000 - i * 1000, 'running'],
        [-9_500 - i * 1000, 'finished']
      ],
      { branch_id: onTarget(i) ? TARGET : OTHER }
    )
  );
}

const ops: Record<string, OperationScript[]> = {
  [SIXTY]: history(SIXTY, 60),
  [FEW]: history(FEW, 5),
  [EMPTY]: [],
  // 250 operations: 5 on the branch, so the branch scan needs a full page and a short one.
  [BRANCHY]: history(BRANCHY, 250, (i) => i % 50 === 7),
  // 600 operations, every 10th on the branch: 25 of them are found on the second page.
  [BRANCH_FULL]: history(BRANCH_FULL, 600, (i) => i % 10 === 3),
  // 1100 operations, only 3 on the branch: the bounded scan stops before the end.
  [HUGE]: history(HUGE, 1100, (i) => i === 5 || i === 500 || i === 1050),
  // 60 operations on the branch, every 4th on its compute.
  [COMPUTE]: history(COMPUTE, 60, () => true).map((op, i) =>
    i % 4 === 1 ? { ...op, endpoint_id: TARGET_COMPUTE } : op
  )
};

const scenario: Scenario = {
  keys: { [DEFAULT_KEY]: { kind: 'personal', user: 'user-1' } },
  projects: Object.keys(ops).map((id) => project(id)),
  operations: Object.values(ops).flat()
};

let sim: Simulator;

function client(): NeonClient {
  return new NeonClient({
    baseUrl: sim.url,
    apiKey: DEFAULT_KEY,
    backoffBaseMs: 20,
    throttleBaseMs: 20,
    backoffMaxMs: 100
  });
}
const deadline = (): number => Date.now() + 20_000;

/** The List operations requests made for a project, in order. */
function listRequests(projectId: string): RequestRecord[] {
  return sim.requests.filter((r) => r.path.endsWith(`/projects/${projectId}/operations`));
}

beforeAll(async () => {
  sim = await startSimulator({ scenario });
});
afterAll(async () => {
  await sim.close();
});
afterEach(() => {
  sim.clearFaults();
  sim.requests.length = 0;
});

describe('fetchRecentOperations against the simulator', () => {
  it('asks once with limit 20 for the newest 20 of 60 operations', async () => {
    const result = await fetchRecentOperations(client(), SIXTY, {
      limit: 20,
      deadline: deadline()
    });
    expect(sim.requests).toHaveLength(1);
    expect(sim.requests[0]?.query).toEqual({ limit: '20' });
    expect(result.requests).toBe(1);
    expect(result.scanned).toBe(20);
    expect(result.scanStopped).toBe(false);
    expect(result.operations.map((o) => o.id)).toEqual(
      (ops[SIXTY] as OperationScript[]).slice(0, 20).map((o) => o.id)
    );
  });

  it('makes no request for limit 0', async () => {
    const result = await fetchRecentOperations(client(), SIXTY, { limit: 0, deadline: deadline() });
    expect(sim.requests).toHaveLength(0);
    expect(result).toEqual({ operations: [], scanned: 0, requests: 0, scanStopped: false });
  });

  it('makes no request for a negative limit', async () => {
    const result = await fetchRecentOperations(client(), SIXTY, {
      limit: -1,
      deadline: deadline()
    });
    expect(sim.requests).toHaveLength(0);
    expect(result.operations).toEqual([]);
  });

  it('stops on a page shorter than asked when there are fewer operations than the limit', async () => {
    const result = await fetchRecentOperations(client(), FEW, { limit: 20, deadline: deadline() });
    expect(listRequests(FEW)).toHaveLength(1);
    expect(sim.requests).toHaveLength(1);
    expect(sim.requests[0]?.query.limit).toBe('20');
    expect(result.operations).toHaveLength(5);
    expect(result.requests).toBe(1);
    expect(result.scanStopped).toBe(false);
  });

  it('asks once for a project without operations', async () => {
    const result = await fetchRecentOperations(client(), EMPTY, {
      limit: 20,
      deadline: deadline()
    });
    expect(sim.requests).toHaveLength(1);
    expect(result).toEqual({ operations: [], scanned: 0, requests: 1, scanStopped: false });
  });

  it('asks exactly for the limit when the project has exactly that many', async () => {
    const result = await fetchRecentOperations(client(), FEW, { limit: 5, deadline: deadline() });
    expect(sim.requests).toHaveLength(1);
    expect(sim.requests[0]?.query.limit).toBe('5');
    expect(result.operations).toHaveLength(5);
  });

  it('pages past 1000 without a branch, asking only for what is still missing', async () => {
    const result = await fetchRecentOperations(client(), HUGE, {
      limit: 1500,
      deadline: deadline()
    });
    const requests = listRequests(HUGE);
    expect(requests.map((r) => r.query.limit)).toEqual(['1000', '500']);
    expect(requests[0]?.query.cursor).toBeUndefined();
    expect(requests[1]?.query.cursor).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(result.operations).toHaveLength(1100);
    expect(new Set(result.operations.map((o) => o.id)).size).toBe(1100);
  });

  it('pages a branch with cursors and stops on the short page', async () => {
    const result = await fetchRecentOperations(client(), BRANCHY, {
      limit: 20,
      place: { branchId: TARGET },
      deadline: deadline()
    });
    const requests = listRequests(BRANCHY);
    expect(requests).toHaveLength(2);
    expect(requests.map((r) => r.query.limit)).toEqual(['200', '200']);
    expect(requests[0]?.query.cursor).toBeUndefined();
    expect(requests[1]?.query.cursor).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(result.requests).toBe(2);
    expect(result.scanned).toBe(250);
    expect(result.scanStopped).toBe(false);
    expect(result.operations.map((o) => o.id)).toEqual(
      (ops[BRANCHY] as OperationScript[]).filter((o) => o.branch_id === TARGET).map((o) => o.id)
    );
    expect(result.operations.every((o) => o.branch_id === TARGET)).toBe(true);
  });

  it("keeps a compute's operations only, when the place is a compute", async () => {
    const result = await fetchRecentOperations(client(), COMPUTE, {
      limit: 20,
      place: { branchId: TARGET, endpointId: TARGET_COMPUTE },
      deadline: deadline()
    });
    const onCompute = (ops[COMPUTE] as OperationScript[]).filter(
      (o) => o.endpoint_id === TARGET_COMPUTE
    );
    expect(onCompute).toHaveLength(15);
    expect(result.operations.map((o) => o.id)).toEqual(onCompute.map((o) => o.id));
  });

  it('stops paging a branch as soon as the limit is reached', async () => {
    const result = await fetchRecentOperations(client(), BRANCH_FULL, {
      limit: 25,
      place: { branchId: TARGET },
      deadline: deadline()
    });
    expect(listRequests(BRANCH_FULL)).toHaveLength(2);
    expect(result.operations).toHaveLength(25);
    expect(result.operations.every((o) => o.branch_id === TARGET)).toBe(true);
    expect(result.scanned).toBe(400);
    expect(result.scanStopped).toBe(false);
  });

  it(`stops a branch scan after ${BRANCH_SCAN_PAGES} pages and says so`, async () => {
    const result = await fetchRecentOperations(client(), HUGE, {
      limit: 20,
      place: { branchId: TARGET },
      deadline: deadline()
    });
    const requests = listRequests(HUGE);
    expect(requests).toHaveLength(BRANCH_SCAN_PAGES);
    expect(result.requests).toBe(BRANCH_SCAN_PAGES);
    expect(result.scanned).toBe(BRANCH_SCAN_PAGES * 200);
    expect(result.scanStopped).toBe(true);
    // The branch's operation beyond the scanned pages is not found.
    const onBranch = (ops[HUGE] as OperationScript[]).filter((o) => o.branch_id === TARGET);
    expect(result.operations.map((o) => o.id)).toEqual(onBranch.slice(0, 2).map((o) => o.id));
    // Each page starts where the previous ended.
    const cursors = requests.map((r) => r.query.cursor);
    expect(cursors[0]).toBeUndefined();
    expect(new Set(cursors.slice(1)).size).toBe(BRANCH_SCAN_PAGES - 1);
  });
});

describe('fetchRecentOperations paging rules', () => {
  interface Call {
    projectId: string;
    limit: number;
    cursor: string | undefined;
    deadline: number;
  }

  /** `count` operations; `from` makes each page's ids new (the same ids again are overlap). */
  function fakeOperations(count: number, branchId = OTHER, from = 0): Operation[] {
    return Array.from({ length: count }, (_, i) => ({
      id: `00000000-0000-4000-8000-${String(from + i).padStart(12, '0')}`,
      project_id: 'stub-project',
      branch_id: branchId,
      action: 'check_availability',
      status: 'finished',
      failures_count: 0,
      created_at: '2026-01-02T03:04:05Z',
      updated_at: '2026-01-02T03:04:06Z'
    }));
  }

  /** A client whose every page is what `page` gives; calls are recorded. */
  function stub(page: (call: Call) => OperationsPage): { client: NeonClient; calls: Call[] } {
    const calls: Call[] = [];
    const fake = {
      listOperations: async (
        projectId: string,
        options: { limit: number; cursor?: string },
        deadlineMs: number
      ): Promise<OperationsPage> => {
        const call = {
          projectId,
          limit: options.limit,
          cursor: options.cursor,
          deadline: deadlineMs
        };
        calls.push(call);
        if (calls.length > 50) throw new Error('paging did not stop');
        return page(call);
      }
    };
    return { client: fake as unknown as NeonClient, calls };
  }

  it('stops when the cursor does not change', async () => {
    const { client: fake, calls } = stub((call) => ({
      operations: fakeOperations(call.limit, OTHER, calls.length * 1000),
      cursor: 'same-cursor'
    }));
    const at = Date.now() + 1234;
    const result = await fetchRecentOperations(fake, 'stub-project', {
      limit: 20,
      place: { branchId: TARGET },
      deadline: at
    });
    expect(calls).toHaveLength(2);
    expect(calls.map((c) => c.cursor)).toEqual([undefined, 'same-cursor']);
    expect(calls.every((c) => c.projectId === 'stub-project' && c.deadline === at)).toBe(true);
    expect(result.requests).toBe(2);
    expect(result.scanned).toBe(400);
    expect(result.operations).toEqual([]);
    expect(result.scanStopped).toBe(false);
  });

  it('stops when a full page has no cursor', async () => {
    const { client: fake, calls } = stub((call) => ({ operations: fakeOperations(call.limit) }));
    const result = await fetchRecentOperations(fake, 'stub-project', {
      limit: 20,
      place: { branchId: TARGET },
      deadline: Date.now() + 1000
    });
    expect(calls).toHaveLength(1);
    expect(result.scanStopped).toBe(false);
  });

  it('stops on an empty page that still has a cursor', async () => {
    const { client: fake, calls } = stub(() => ({ operations: [], cursor: 'next' }));
    const result = await fetchRecentOperations(fake, 'stub-project', {
      limit: 20,
      place: { branchId: TARGET },
      deadline: Date.now() + 1000
    });
    expect(calls).toHaveLength(1);
    expect(result).toEqual({ operations: [], scanned: 0, requests: 1, scanStopped: false });
  });

  it('follows changing cursors up to the bound', async () => {
    const { client: fake, calls } = stub((call) => ({
      operations: fakeOperations(call.limit, OTHER, calls.length * 1000),
      cursor: `cursor-${calls.length}`
    }));
    const result = await fetchRecentOperations(fake, 'stub-project', {
      limit: 20,
      place: { branchId: TARGET },
      deadline: Date.now() + 1000
    });
    expect(calls.map((c) => c.cursor)).toEqual([
      undefined,
      'cursor-1',
      'cursor-2',
      'cursor-3',
      'cursor-4'
    ]);
    expect(result.scanStopped).toBe(true);
  });

  it('stops when a page adds nothing new, and lists no operation twice (a cursor that loops)', async () => {
    const target = fakeOperations(3, TARGET);
    const { client: fake, calls } = stub(() => ({
      operations: target,
      cursor: `cursor-${calls.length}`
    }));
    const result = await fetchRecentOperations(fake, 'stub-project', {
      limit: 20,
      deadline: Date.now() + 1000
    });
    // A page of 3 for a limit of 20 is short already; ask for 3 to make the pages full.
    expect(result.operations.map((o) => o.id)).toEqual(target.map((o) => o.id));
    expect(calls).toHaveLength(1);
    const looped = await fetchRecentOperations(
      stub((call) => ({
        operations: fakeOperations(call.limit, TARGET),
        cursor: 'c' + Math.random()
      })).client,
      'stub-project',
      { limit: 500, place: { branchId: TARGET }, deadline: Date.now() + 1000 }
    );
    expect(looped.operations).toHaveLength(200);
    expect(new Set(looped.operations.map((o) => o.id)).size).toBe(200);
    expect(looped.requests).toBe(2);
    expect(looped.scanStopped).toBe(false);
  });

  it('with since, reads page after page until one reaches back before since', async () => {
    // Pages of 1000, one operation a second, newest first from 12:00:00.
    const top = Date.parse('2026-11-26T12:00:00Z');
    const { client: fake, calls } = stub((call) => {
      const from = (calls.length - 1) * call.limit;
      return {
        operations: fakeOperations(call.limit, TARGET, from).map((op, i) => ({
          ...op,
          branch_id: (from + i) % 3 === 0 ? TARGET : OTHER,
          created_at: new Date(top - (from + i) * 1000).toISOString()
        })),
        cursor: `cursor-${calls.length}`
      };
    });
    const since = top - 2500 * 1000; // 2,501 operations are that recent, 834 of them on TARGET
    const result = await fetchRecentOperations(fake, 'stub-project', {
      limit: 1000,
      place: { branchId: TARGET },
      deadline: Date.now() + 1000,
      since
    });
    expect(calls.map((c) => c.limit)).toEqual([1000, 1000, 1000]);
    expect(result.since).toBe(since);
    expect(result.operations).toHaveLength(834);
    expect(result.scanStopped).toBe(false);
    const wide = await fetchRecentOperations(
      stub((call) => ({
        operations: fakeOperations(call.limit, TARGET).map((op, i) => ({
          ...op,
          created_at: new Date(top - i * 1000).toISOString()
        })),
        cursor: 'c'
      })).client,
      'stub-project',
      { limit: 1000, deadline: Date.now() + 1000, since: top - 99_500 }
    );
    expect(wide.operations).toHaveLength(100);
    expect(wide.operations.every((op) => Date.parse(op.created_at) >= top - 99_500)).toBe(true);
  });

  it('keeps at most limit rows from a page longer than asked', async () => {
    const { client: fake, calls } = stub(() => ({
      operations: fakeOperations(50),
      cursor: 'c'
    }));
    const result = await fetchRecentOperations(fake, 'stub-project', {
      limit: 20,
      deadline: Date.now() + 1000
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.limit).toBe(20);
    expect(result.operations).toHaveLength(20);
  });

  it('passes a failure of the client on', async () => {
    const { client: fake } = stub(() => {
      throw new Error('HTTP 500');
    });
    await expect(
      fetchRecentOperations(fake, 'stub-project', { limit: 20, deadline: Date.now() + 1000 })
    ).rejects.toThrow('HTTP 500');
  });
});
