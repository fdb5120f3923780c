/**
 * The simulator's behaviour over time, on a clock the test moves: projects and branches deleted in
 * the middle of a wait, faults limited to a time window, and Neon's documented rate limits (700
 * requests a minute per account, every key of it together; 40 a second per route; 429 without
 * `Retry-After` unless asked for).
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import {
  DEFAULT_KEY,
  lock,
  operation,
  project,
  seededBranches,
  type Scenario
} from '../simulator/scenario.js';
import {
  LOCKED_MESSAGE,
  NEON_RATE_LIMIT,
  startSimulator,
  type RateLimit,
  type Simulator
} from '../simulator/server.js';

const PROJECT = 'quiet-pond-12345678';
const OTHER = 'loud-river-87654321';
const ORG = 'org-busy-bees-1234';
const ORG_KEY = 'neon-sim-org-key-1';
const PROJECT_KEY = 'neon-sim-project-key-1';
const STRANGER_KEY = 'neon-sim-stranger-key-1';

let now = 0;
let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  now = 0;
});

async function start(scenario: Scenario, rateLimit?: RateLimit): Promise<Simulator> {
  sim = await startSimulator({ scenario, clock: () => now, rateLimit });
  return sim;
}

async function status(s: Simulator, path: string, key = DEFAULT_KEY): Promise<number> {
  const res = await fetch(`${s.url}${path}`, { headers: { Authorization: `Bearer ${key}` } });
  await res.arrayBuffer();
  return res.status;
}

async function reply(
  s: Simulator,
  path: string,
  key = DEFAULT_KEY
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const res = await fetch(`${s.url}${path}`, { headers: { Authorization: `Bearer ${key}` } });
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as Record<string, unknown>
  };
}

const running = (branch_id: string) =>
  operation(PROJECT, 'create_branch', [[-1000, 'running']], { branch_id });

describe('deletion in the middle of a wait', () => {
  it('a project deleted at 5 s answers 404 on every route from then on', async () => {
    const op = running('br-a');
    const s = await start({
      keys: { [DEFAULT_KEY]: { kind: 'personal', user: 'u' } },
      projects: [
        project(PROJECT, { owner_id: 'u', deletedAt: 5000 }),
        project(OTHER, { owner_id: 'u' })
      ],
      operations: [op]
    });
    const get = `/projects/${PROJECT}/operations/${op.id}`;
    const list = `/projects/${PROJECT}/operations?limit=10`;
    now = 4999;
    expect(await status(s, get)).toBe(200);
    expect(await status(s, list)).toBe(200);
    expect(((await reply(s, '/projects')).body.projects as unknown[]).length).toBe(2);
    now = 5000;
    const gone = await reply(s, get);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ code: '', message: `project not found: ${PROJECT}` });
    expect(gone.headers.get('x-neon-ret-request-id')).toMatch(/^[0-9a-f]{32}$/);
    expect(await status(s, list)).toBe(404);
    const left = (await reply(s, '/projects')).body.projects as Array<{ id: string }>;
    expect(left.map((p) => p.id)).toEqual([OTHER]);
  });

  it('deleteProject() takes effect at once', async () => {
    const op = running('br-a');
    const s = await start({
      keys: { [DEFAULT_KEY]: { kind: 'personal', user: 'u' } },
      projects: [project(PROJECT, { owner_id: 'u' })],
      operations: [op]
    });
    expect(await status(s, `/projects/${PROJECT}/operations/${op.id}`)).toBe(200);
    s.deleteProject(PROJECT);
    expect(await status(s, `/projects/${PROJECT}/operations/${op.id}`)).toBe(404);
  });

  it("a deleted branch's operations vanish (Get 404, not listed); other branches stay", async () => {
    const mine = running('br-doomed');
    const theirs = running('br-main');
    const s = await start({
      keys: { [DEFAULT_KEY]: { kind: 'personal', user: 'u' } },
      projects: [project(PROJECT, { owner_id: 'u' })],
      operations: [mine, theirs]
    });
    const listed = async () =>
      (
        (await reply(s, `/projects/${PROJECT}/operations?limit=10`)).body.operations as Array<{
          id: string;
        }>
      ).map((o) => o.id);
    expect((await listed()).sort()).toEqual([mine.id, theirs.id].sort());
    s.deleteBranch(PROJECT, 'br-doomed', 2000);
    now = 1999;
    expect(await status(s, `/projects/${PROJECT}/operations/${mine.id}`)).toBe(200);
    now = 2000;
    const gone = await reply(s, `/projects/${PROJECT}/operations/${mine.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ code: '', message: `operation not found: ${mine.id}` });
    expect(await listed()).toEqual([theirs.id]);
    expect(await status(s, `/projects/${PROJECT}/operations/${theirs.id}`)).toBe(200);
  });
});

describe('faults in a time window', () => {
  it('hits only requests between `from` and `until` on the simulator clock', async () => {
    const s = await start({
      keys: { [DEFAULT_KEY]: { kind: 'personal', user: 'u' } },
      projects: [project(PROJECT, { owner_id: 'u' })],
      operations: []
    });
    s.inject({ kind: 'status', status: 429 }, { times: Infinity, from: 1000, until: 3000 });
    const at = async (t: number) => {
      now = t;
      return status(s, '/projects');
    };
    expect([await at(999), await at(1000), await at(2999), await at(3000)]).toEqual([
      200, 429, 429, 200
    ]);
  });
});

describe("Neon's rate limits", () => {
  /** Two projects of one organization; keys of several kinds, all of one account but one. */
  const scenario = (): Scenario => ({
    keys: {
      [DEFAULT_KEY]: { kind: 'personal', user: 'u', orgs: [ORG], account: `org:${ORG}` },
      [ORG_KEY]: { kind: 'organization', org: ORG },
      [PROJECT_KEY]: { kind: 'project', project: PROJECT },
      [STRANGER_KEY]: { kind: 'personal', user: 'stranger' }
    },
    projects: [
      project(PROJECT, { owner_id: 'u', org_id: ORG }),
      project(OTHER, { owner_id: 'u', org_id: ORG })
    ],
    operations: []
  });
  const opPath = (p = PROJECT) => `/projects/${p}/operations/${randomUUID()}`;

  it('allows 40 requests a second on one route, then 429 without Retry-After', async () => {
    const s = await start(scenario(), NEON_RATE_LIMIT);
    const first = await Promise.all(Array.from({ length: 41 }, () => status(s, opPath(), ORG_KEY)));
    // Unknown operations answer 404: the limit counts requests, not successes.
    expect(first.filter((c) => c === 404)).toHaveLength(40);
    expect(first.filter((c) => c === 429)).toHaveLength(1);
    const limited = await reply(s, opPath(OTHER), ORG_KEY);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ code: '', message: 'too many requests' });
    expect(limited.headers.get('retry-after')).toBeNull();
    expect(limited.headers.get('x-neon-ret-request-id')).toMatch(/^[0-9a-f]{32}$/);
    // Another route of the same account, and the same route of another account, still pass.
    expect(await status(s, `/projects/${PROJECT}/operations?limit=1`, ORG_KEY)).toBe(200);
    expect(await status(s, '/projects', STRANGER_KEY)).toBe(200);
    // The route's second slides: at 1 s it has room again.
    now = 999;
    expect(await status(s, opPath(), ORG_KEY)).toBe(429);
    now = 1000;
    expect(await status(s, opPath(), ORG_KEY)).toBe(404);
    expect(
      s.requests
        .filter((r) => r.status === 429)
        .every((r) => r.route === 'GET /projects/{project_id}/operations/{operation_id}')
    ).toBe(true);
  });

  it('counts every key of an account against one minute, and not the refused requests', async () => {
    const s = await start(scenario(), { ...NEON_RATE_LIMIT, retryAfter: true });
    const keys = [DEFAULT_KEY, ORG_KEY, PROJECT_KEY];
    // 700 requests in 35 s, 20 a second, spread over three keys of one account.
    for (let second = 0; second < 35; second++) {
      now = second * 1000;
      const codes = await Promise.all(
        Array.from({ length: 20 }, (_, i) => status(s, opPath(), keys[i % 3]))
      );
      expect(codes.every((c) => c === 404)).toBe(true);
    }
    expect(new Set(s.requests.map((r) => r.account))).toEqual(new Set([`org:${ORG}`]));
    now = 40_000;
    const over = await reply(s, '/projects', PROJECT_KEY);
    expect(over.status).toBe(429);
    // The first second's 20 requests leave the window at 60 s: 20 s from now.
    expect(over.headers.get('retry-after')).toBe('20');
    expect(await status(s, '/projects', STRANGER_KEY)).toBe(200);
    now = 59_999;
    expect(await status(s, '/projects', DEFAULT_KEY)).toBe(429);
    now = 60_000;
    // Room for exactly the 20 that left; the refused ones did not count.
    const codes = await Promise.all(
      Array.from({ length: 21 }, () => status(s, '/projects', ORG_KEY))
    );
    expect(codes.filter((c) => c === 200)).toHaveLength(20);
    expect(codes.filter((c) => c === 429)).toHaveLength(1);
  });

  it('says Retry-After in whole seconds of the simulator clock when asked', async () => {
    const s = await start(scenario(), { perRoutePerSecond: 2, retryAfter: true });
    now = 10_000;
    expect(await status(s, '/projects', ORG_KEY)).toBe(200);
    now = 10_400;
    expect(await status(s, '/projects', ORG_KEY)).toBe(200);
    now = 10_500;
    const limited = await reply(s, '/projects', ORG_KEY);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    now = 11_000;
    expect(await status(s, '/projects', ORG_KEY)).toBe(200);
  });
});

describe('mutations', () => {
  const keys = { [DEFAULT_KEY]: { kind: 'personal' as const, user: 'u' } };

  async function send(
    s: Simulator,
    method: string,
    path: string,
    body?: unknown
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await fetch(`${s.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${DEFAULT_KEY}` },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  }
  const branches = `/projects/${PROJECT}/branches`;

  it('a lock held 6 s answers 423 to mutations until it ends, never to reads', async () => {
    const s = await start({
      keys,
      projects: [project(PROJECT, { owner_id: 'u' })],
      operations: [lock(PROJECT, 0, 6000)]
    });
    now = 5999;
    const locked = await send(s, 'POST', branches, {});
    expect(locked.status).toBe(423);
    expect(locked.body).toEqual({ code: 'LOCKED', message: LOCKED_MESSAGE });
    expect((await send(s, 'GET', branches)).status).toBe(200);
    expect((await send(s, 'GET', `/projects/${PROJECT}/operations`)).status).toBe(200);
    now = 6000;
    expect((await send(s, 'POST', branches, {})).status).toBe(201);
    expect(s.requests.map((r) => [r.method, r.status])).toEqual([
      ['POST', 423],
      ['GET', 200],
      ['GET', 200],
      ['POST', 201]
    ]);
  });

  it("a mutation's operations run one after another and finish on the clock, then free the project", async () => {
    const s = await startSimulator({
      scenario: { keys, projects: [project(PROJECT, { owner_id: 'u' })], operations: [] },
      clock: () => now,
      operationMs: 1000
    });
    sim = s;
    const created = await send(s, 'POST', branches, { endpoints: [{ type: 'read_write' }] });
    const ids = (created.body.operations as Array<{ id: string }>).map((op) => op.id);
    const statuses = async (): Promise<string[]> =>
      Promise.all(
        ids.map(
          async (id) =>
            (
              (await reply(s, `/projects/${PROJECT}/operations/${id}`)).body.operation as {
                status: string;
              }
            ).status
        )
      );
    // create_branch (1 s), timeline_update_protected_config (0.25 s), start_compute (1 s), then
    // the project-level epc_sync (0.25 s): the project stays locked until the last one ends.
    expect(await statuses()).toEqual(['running', 'scheduling', 'scheduling', 'scheduling']);
    now = 1000;
    expect(await statuses()).toEqual(['finished', 'running', 'scheduling', 'scheduling']);
    now = 1250;
    expect(await statuses()).toEqual(['finished', 'finished', 'running', 'scheduling']);
    now = 2250;
    expect(await statuses()).toEqual(['finished', 'finished', 'finished', 'running']);
    expect((await send(s, 'POST', branches, {})).status).toBe(423);
    now = 2500;
    expect(await statuses()).toEqual(['finished', 'finished', 'finished', 'finished']);
    expect((await send(s, 'POST', branches, {})).status).toBe(201);
  });

  it('a deleted branch leaves the lists; its delete_timeline stays visible until it is done', async () => {
    const s = await start({
      keys,
      projects: [project(PROJECT, { owner_id: 'u' })],
      operations: []
    });
    const created = await send(s, 'POST', branches, {});
    const id = (created.body.branch as { id: string }).id;
    expect(s.branches(PROJECT).map((b) => b.id)).toContain(id);
    now = 10_000;
    const gone = await send(s, 'DELETE', `${branches}/${id}`);
    expect(gone.status).toBe(200);
    expect(s.branches(PROJECT).map((b) => b.id)).not.toContain(id);
    const [op] = gone.body.operations as Array<{ id: string; action: string }>;
    expect(op?.action).toBe('delete_timeline');
    now = 20_000;
    const seen = await reply(s, `/projects/${PROJECT}/operations/${op?.id}`);
    expect((seen.body.operation as { status: string }).status).toBe('finished');
  });

  it.each(['reset-after-apply', 'hang-after-apply'] as const)(
    '%s: the branch is created once, the client gets no answer',
    async (kind) => {
      const s = await start({
        keys,
        projects: [project(PROJECT, { owner_id: 'u' })],
        operations: []
      });
      s.inject({ kind }, { times: 1, match: '/branches' });
      const before = s.branches(PROJECT).length;
      const aborted = new AbortController();
      const pending = fetch(`${s.url}${branches}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${DEFAULT_KEY}` },
        body: '{"branch":{"name":"x"}}',
        signal: aborted.signal
      });
      if (kind === 'hang-after-apply') {
        // Waits until the simulator has recorded the request, then gives up on the answer.
        while (s.requests.length === 0 || s.branches(PROJECT).length === before)
          await new Promise((resolve) => setTimeout(resolve, 10));
        aborted.abort();
      }
      await expect(pending).rejects.toThrow();
      expect(s.branches(PROJECT).length).toBe(before + 1);
      expect(s.requests).toEqual([
        expect.objectContaining({
          method: 'POST',
          status: kind === 'reset-after-apply' ? -1 : -2,
          bodyBytes: 23
        })
      ]);
      expect(Object.values(s.requests[0] ?? {})).not.toContain('{"branch":{"name":"x"}}');
    }
  );

  describe('branches by name', () => {
    const seeded = (): Scenario => ({
      keys,
      projects: [project(PROJECT, { owner_id: 'u' })],
      operations: [],
      ...seededBranches(PROJECT, [{ name: 'main' }, { name: 'preview/pr-1' }])
    });
    /** Sends `count` creates of one name at once; `gather` holds them until all have arrived. */
    async function createAtOnce(s: Simulator, count: number, name: string): Promise<number[]> {
      s.gather(count, { method: 'POST', match: '/branches' });
      const replies = await Promise.all(
        Array.from({ length: count }, () => send(s, 'POST', branches, { branch: { name } }))
      );
      return replies.map((r) => r.status);
    }
    const named = (s: Simulator, name: string) =>
      s.branches(PROJECT).filter((b) => b.name === name);

    it('10 creators of one name at once: exactly one 201, nine 409, one branch', async () => {
      const s = await start(seeded());
      const statuses = await createAtOnce(s, 10, 'preview/pr-2');
      expect(statuses.filter((st) => st === 201)).toHaveLength(1);
      expect(statuses.filter((st) => st === 409)).toHaveLength(9);
      expect(named(s, 'preview/pr-2')).toHaveLength(1);
    });

    it('at once while another operation holds the project: all 423; once free, one 201 and 409s', async () => {
      const s = await start({ ...seeded(), operations: [lock(PROJECT, 0, 6000)] });
      expect(await createAtOnce(s, 5, 'preview/pr-3')).toEqual(Array(5).fill(423));
      now = 6000;
      expect(await createAtOnce(s, 5, 'preview/pr-3')).toEqual([201, 409, 409, 409, 409]);
      expect(named(s, 'preview/pr-3')).toHaveLength(1);
    });

    it('the answer lost after the create was applied: sending it again answers 409, one branch', async () => {
      const s = await start(seeded());
      s.inject({ kind: 'reset-after-apply' }, { times: 1, method: 'POST' });
      await expect(
        fetch(`${s.url}${branches}`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${DEFAULT_KEY}` },
          body: JSON.stringify({ branch: { name: 'preview/pr-4' } })
        })
      ).rejects.toThrow();
      const again = await send(s, 'POST', branches, { branch: { name: 'preview/pr-4' } });
      expect(again).toEqual({
        status: 409,
        body: { code: '', message: 'branch with the provided name "preview/pr-4" already exists' }
      });
      expect(named(s, 'preview/pr-4')).toHaveLength(1);
    });

    it('a branch past its expires_at is gone from every read, and its name free', async () => {
      const epoch = Date.UTC(2026, 10, 2, 10, 0, 0);
      const s = await startSimulator({ scenario: seeded(), clock: () => now, epoch });
      sim = s;
      const expires = new Date(epoch + 3_600_000).toISOString().replace('.000Z', 'Z');
      const created = await send(s, 'POST', branches, {
        branch: { name: 'preview/pr-5', expires_at: expires }
      });
      expect(created.status).toBe(201);
      const id = (created.body.branch as { id: string; expires_at: string }).id;
      expect((created.body.branch as { expires_at: string }).expires_at).toBe(expires);
      now = 3_600_000 + 1000;
      expect((await send(s, 'GET', `${branches}/${id}`)).status).toBe(404);
      expect(named(s, 'preview/pr-5')).toHaveLength(0);
      expect((await send(s, 'POST', branches, { branch: { name: 'preview/pr-5' } })).status).toBe(
        201
      );
    });

    it('an expiry renewed by PATCH: the branch outlives its old expires_at and goes at the new one', async () => {
      const epoch = Date.UTC(2026, 10, 2, 10, 0, 0);
      const s = await startSimulator({ scenario: seeded(), clock: () => now, epoch });
      sim = s;
      const at = (ms: number) => new Date(epoch + ms).toISOString().replace('.000Z', 'Z');
      const created = await send(s, 'POST', branches, {
        branch: { name: 'preview/pr-6', expires_at: at(3_600_000) }
      });
      const id = (created.body.branch as { id: string }).id;
      now = 1_800_000;
      const renewed = await send(s, 'PATCH', `${branches}/${id}`, {
        branch: { expires_at: at(7_200_000) }
      });
      expect(renewed.status).toBe(200);
      now = 3_600_000 + 1000;
      expect((await send(s, 'GET', `${branches}/${id}`)).status).toBe(200);
      now = 7_200_000 + 1000;
      expect((await send(s, 'GET', `${branches}/${id}`)).status).toBe(404);
    });

    it('a reset: the branch keeps its id and compute, holds the project until its operations end on the clock', async () => {
      const s = await start(seeded());
      const branch = named(s, 'preview/pr-1')[0];
      const reset = await send(s, 'POST', `${branches}/${branch?.id}/restore`, {
        source_branch_id: branch?.parent_id
      });
      expect(reset.status).toBe(200);
      const ops = reset.body.operations as Array<{ action: string; endpoint_id?: string }>;
      // Its own compute restarts after the new timeline.
      expect(ops.map((op) => op.action)).toEqual(['create_timeline', 'start_compute']);
      expect(ops[1]?.endpoint_id).toBe(branch?.id.replace(/^br-/, 'ep-'));
      expect((await send(s, 'POST', branches, { branch: { name: 'x' } })).status).toBe(423);
      now = 3999;
      expect((await send(s, 'GET', `${branches}/${branch?.id}`)).body.branch).toMatchObject({
        id: branch?.id,
        current_state: 'resetting'
      });
      now = 4000;
      expect((await send(s, 'GET', `${branches}/${branch?.id}`)).body.branch).toMatchObject({
        current_state: 'ready'
      });
      expect((await send(s, 'POST', branches, { branch: { name: 'x' } })).status).toBe(201);
    });

    it('deleting a branch starts its operations; it is gone at once, its name free once they end', async () => {
      const s = await start(seeded());
      const id = named(s, 'preview/pr-1')[0]?.id as string;
      const gone = await send(s, 'DELETE', `${branches}/${id}`);
      expect(gone.status).toBe(200);
      expect((gone.body.operations as unknown[]).length).toBeGreaterThan(0);
      expect((await send(s, 'GET', `${branches}/${id}`)).status).toBe(404);
      const found = await send(s, 'GET', `${branches}?search=pr-1`);
      expect(found.body.branches).toEqual([]);
      // Its operations hold the project: a create of the same name waits for them (423), then 201.
      expect((await send(s, 'POST', branches, { branch: { name: 'preview/pr-1' } })).status).toBe(
        423
      );
      now = 60_000;
      expect((await send(s, 'POST', branches, { branch: { name: 'preview/pr-1' } })).status).toBe(
        201
      );
    });
  });
});
