/**
 * What the wait decides when the API misbehaves, in-process on simulated time (see
 * `helpers/in-process.ts`): every retry, backoff and deadline as the action takes it, at no cost in
 * real time. The end-to-end suite keeps one spawned run per kind of behaviour.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isAfterMark } from '../src/wait/job-mark.js';
import {
  operation,
  type OperationScript,
  pastOperations,
  type Scenario
} from '../simulator/scenario.js';
import type { Fault, SimulatorOptions } from '../simulator/server.js';
import { EPOCH, InProcess } from './helpers/in-process.js';
import { DEFAULT_KEY, PROJECT, uuid } from './helpers/sim.js';

let t: InProcess | undefined;
afterEach(async () => {
  await t?.dispose();
  t = undefined;
});

async function start(
  operations: OperationScript[] | Scenario,
  options?: Omit<SimulatorOptions, 'scenario' | 'clock' | 'epoch'>
): Promise<InProcess> {
  t = await InProcess.start(operations, options);
  return t;
}

const base = { project_id: PROJECT, interval: '1s', timeout: '30s', summary_limit: '0' };

describe('transient faults are retried and the wait still ends right', () => {
  const faults: Array<[string, (s: InProcess) => Fault]> = [
    ['429 with Retry-After in seconds', () => ({ kind: 'status', status: 429, retryAfter: '1' })],
    [
      '429 with Retry-After as an HTTP date',
      (s) => ({
        kind: 'status',
        status: 429,
        retryAfter: new Date(s.time.now() + 1000).toUTCString()
      })
    ],
    ['429 without Retry-After', () => ({ kind: 'status', status: 429 })],
    ['423 locked', () => ({ kind: 'status', status: 423 })],
    ['500', () => ({ kind: 'status', status: 500 })],
    ['502', () => ({ kind: 'status', status: 502 })],
    ['503', () => ({ kind: 'status', status: 503 })],
    ['504', () => ({ kind: 'status', status: 504 })],
    ['an HTML error page from the edge', () => ({ kind: 'html' })],
    ...[520, 521, 522, 523, 524].map((status): [string, () => Fault] => [
      `a Cloudflare ${status} page`,
      () => ({ kind: 'html', status })
    ]),
    ['a connection reset', () => ({ kind: 'reset' })],
    ['a 200 with malformed JSON', () => ({ kind: 'malformed' })],
    ['a 200 without the expected fields', () => ({ kind: 'missing-fields' })]
  ];

  it.each(faults)('%s', async (_name, fault) => {
    const op = operation(PROJECT, 'create_branch', [
      [0, 'running'],
      [1500, 'finished']
    ]);
    const s = await start([op]);
    s.sim.inject(fault(s), { times: 2, skip: 1 });
    const { result, retries } = await s.wait({ ...base, operation_id: op.id });
    expect(result.status).toBe('finished');
    // Both faults reached the wait, which went on after them.
    expect(retries).toHaveLength(2);
    expect(s.sim.requests.at(-1)?.status).toBe(200);
  });

  it('waits at least half the 5 s throttle base after a 429 that names no Retry-After', async () => {
    const op = operation(PROJECT, 'create_branch', [
      [0, 'running'],
      [1500, 'finished']
    ]);
    const s = await start([op]);
    s.sim.inject({ kind: 'status', status: 429 }, { times: 1, skip: 1 });
    const { retries } = await s.wait({ ...base, operation_id: op.id });
    expect(retries.map((r) => r.delayMs)).toEqual([expect.any(Number)]);
    expect(retries[0]?.delayMs).toBeGreaterThanOrEqual(2500);
    const [, limited, after] = s.sim.requests;
    expect((after?.at ?? 0) - (limited?.at ?? 0)).toBeGreaterThanOrEqual(2500);
  });

  it('a storm of 503s ends as timeout at the deadline with the last error, not a flood', async () => {
    const op = operation(PROJECT, 'create_branch', [[0, 'running']]);
    const s = await start([op]);
    s.sim.inject(
      { kind: 'status', status: 503, message: 'service unavailable' },
      { times: Infinity }
    );
    const { result } = await s.wait({ ...base, operation_id: op.id, timeout: '6s' });
    expect(result.status).toBe('timeout');
    expect(result.timedOut).toBe(true);
    expect(result.lastError).toMatch(/HTTP 503: service unavailable/);
    expect(s.sim.requests.length).toBeLessThanOrEqual(8);
    expect(result.finishedAt - result.startedAt).toBeLessThanOrEqual(6000);
  });
});

describe('errors that retrying cannot fix', () => {
  it('a key revoked in the middle of a wait stops it at once', async () => {
    const op = operation(PROJECT, 'create_branch', [
      [0, 'running'],
      [60_000, 'finished']
    ]);
    const s = await start([op]);
    // Checks at 0 and about 0.6 s are answered; the key is refused from 1 s on.
    s.sim.revokeKey(DEFAULT_KEY, 1000);
    const { result } = await s.wait({ ...base, operation_id: op.id });
    expect(s.sim.requests.map((r) => r.status)).toEqual([200, 200, 401]);
    expect(result.status).toBe('api_error');
    expect(result.failure).toMatch(/The API refused the key \(HTTP 401\)/);
    expect(result.finishedAt - result.startedAt).toBeLessThan(2000);
  });

  it('an unknown project is named, without retries', async () => {
    const s = await start([]);
    const { result } = await s.wait({ ...base, project_id: 'no-such-project-1' });
    expect(result.status).toBe('api_error');
    expect(result.failure).toMatch(
      /Project no-such-project-1 was not found, or this API key cannot see it/
    );
    expect(s.sim.requests).toHaveLength(1);
  });

  it('an unknown operation is named, without retries', async () => {
    const s = await start([]);
    const id = uuid();
    const { result } = await s.wait({ ...base, operation_id: id });
    expect(result.failure).toContain(`Operation ${id} was not found in project ${PROJECT}`);
    // The first check's list (the project's history) does not hold it; its Get is not retried.
    expect(s.sim.requests.map((r) => [r.route, r.status])).toEqual([
      ['GET /projects/{project_id}/operations', 200],
      ['GET /projects/{project_id}/operations/{operation_id}', 404]
    ]);
  });

  it('a redirect to another host is not followed, so the key goes nowhere else', async () => {
    const seen: string[] = [];
    const other = createServer((req, res) => {
      seen.push(String(req.headers.authorization));
      res.end('{}');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const port = (other.address() as AddressInfo).port;
    try {
      const s = await start([]);
      s.sim.inject(
        { kind: 'redirect', location: `http://127.0.0.1:${port}/steal` },
        { times: Infinity }
      );
      const { result } = await s.wait({ ...base, operation_id: uuid() });
      expect(result.status).toBe('api_error');
      expect(result.failure).toMatch(/redirects are not followed/);
      expect(seen).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => other.close(() => resolve()));
    }
  });

  it('says "10 projects", not "more than 10", when the key sees exactly ten', async () => {
    const s = await start({
      keys: { [DEFAULT_KEY]: { kind: 'organization', org: 'org-a' } },
      projects: Array.from({ length: 10 }, (_, i) => ({
        id: `proj-${i}`,
        name: `p${i}`,
        owner_id: 'u',
        org_id: 'org-a'
      })),
      operations: []
    });
    const { result } = await s.wait({ ...base, project_id: '' });
    expect(result.failure).toMatch(/the API key sees 10 projects: proj-0/);
  });
});

describe('failed is not the end: the control plane retries', () => {
  it('keeps waiting through failed without fail_fast, and ends as the operation does', async () => {
    const op = operation(PROJECT, 'apply_config', [
      [0, 'running'],
      [500, 'failed', { failures_count: 1, error: 'transient' }],
      [2000, 'finished', { failures_count: 1 }]
    ]);
    const s = await start([op]);
    const { result, log } = await s.wait({ ...base, operation_id: op.id });
    expect(result.status).toBe('finished');
    expect(result.operations[0]?.failures_count).toBe(1);
    expect(log.join('\n')).toMatch(/running → failed \(failures: 1\) — .*error: transient/);
    expect(s.sim.requests.at(-1)?.at).toBeGreaterThanOrEqual(2000);
  });
});

describe('statuses named like prototype members', () => {
  it.each([
    ['operations', (id: string) => ({ operation_id: id })],
    ['project', () => ({})]
  ])('are unknown statuses, followed to the end, in %s mode', async (mode, extra) => {
    // One status per answer: the wait sees each of them.
    const names = ['__proto__', 'constructor', 'toString'];
    const op = operation(
      PROJECT,
      'create_branch',
      [...names, 'finished'].map((status, i): [number, string] => [i, status]),
      { stepPerAnswer: true }
    );
    const s = await start([op]);
    const { result, log } = await s.wait({ ...base, ...extra(op.id) });
    expect(result.status).toBe(mode === 'project' ? 'idle' : 'finished');
    const short = op.id.slice(0, 8);
    const text = log.join('\n');
    expect(text).toContain(`create_branch ${short} __proto__ → constructor`);
    expect(text).toContain(`create_branch ${short} constructor → toString`);
    expect(text).toContain(`create_branch ${short} toString → finished`);
    for (const name of names) {
      expect(log.some((line) => line.startsWith('warning: ') && line.includes(name))).toBe(true);
    }
  });
});

describe('project mode gates on the work it followed', () => {
  const story = (slowEndsAt: number) => [
    operation(
      PROJECT,
      'start_compute',
      [
        [-100, 'running'],
        [600, 'error', { error: 'no capacity' }]
      ],
      { branch_id: 'br-a' }
    ),
    operation(
      PROJECT,
      'create_branch',
      [
        [-100, 'running'],
        [slowEndsAt, 'finished']
      ],
      { branch_id: 'br-a' }
    )
  ];

  it('fails when an operation it saw in progress ends in error, once the rest is done', async () => {
    const s = await start(story(3000));
    const { result } = await s.wait({ ...base, branch_id: 'br-a' });
    expect(result.status).toBe('error');
    expect(result.failure).toMatch(
      /Operation\(s\) of branch br-a .* did not succeed: start_compute .* is error .*no capacity/
    );
    // It waited for the slow one (finished at 3 s) before failing.
    expect(s.sim.requests.at(-1)?.at).toBeGreaterThanOrEqual(3000);
  });

  it('passes (idle) when fail_on leaves error out', async () => {
    const s = await start(story(3000));
    const { result } = await s.wait({ ...base, branch_id: 'br-a', fail_on: 'cancelled' });
    expect(result.failure).toBeUndefined();
    expect(result.status).toBe('idle');
  });

  it('fails on skipped when fail_on lists it, in operations mode too', async () => {
    const op = operation(PROJECT, 'start_compute', [
      [0, 'running'],
      [500, 'skipped']
    ]);
    const s = await start([op]);
    const plain = await s.wait({ ...base, operation_id: op.id });
    expect(plain.result.failure).toBeUndefined();
    expect(plain.result.status).toBe('skipped');
    const strict = await s.wait({ ...base, operation_id: op.id, fail_on: 'skipped,error' });
    expect(strict.result.status).toBe('skipped');
    expect(strict.result.failure).toMatch(/start_compute .* is skipped/);
  });

  it('fails at once with fail_fast', async () => {
    const s = await start(story(30_000));
    const { result } = await s.wait({ ...base, branch_id: 'br-a', fail_fast: 'true' });
    expect(result.status).toBe('error');
    expect(result.finishedAt - result.startedAt).toBeLessThan(2000);
  });
});

describe('endpoint mode', () => {
  it('waits until no operation of that compute is in progress, whatever other computes do', async () => {
    const onCompute = (endsAt: number, action: string) =>
      operation(
        PROJECT,
        action,
        [
          [-100, 'running'],
          [endsAt, 'finished']
        ],
        { branch_id: 'br-a', endpoint_id: 'ep-a' }
      );
    const elsewhere = operation(PROJECT, 'start_compute', [[-100, 'running']], {
      branch_id: 'br-a',
      endpoint_id: 'ep-b'
    });
    const s = await start([onCompute(4000, 'apply_config'), elsewhere]);
    const { result, log } = await s.wait({ ...base, endpoint_id: 'ep-a' });
    expect(result).toMatchObject({ kind: 'endpoint', status: 'idle' });
    expect(result.operations.map((op) => op.endpoint_id)).toEqual(['ep-a']);
    expect(log[0]).toMatch(
      /^Waiting until no operation of compute ep-a of project \S+ is in progress/
    );
    expect(s.sim.requests.at(-1)?.at).toBeGreaterThanOrEqual(4000);
  });

  it('a compute or branch id the project lacks is not found, not idle (issue 44, item 9)', async () => {
    const elsewhere = operation(PROJECT, 'start_compute', [[-100, 'running']], {
      branch_id: 'br-a',
      endpoint_id: 'ep-a'
    });
    const s = await start([elsewhere]);
    const compute = await s.wait({ ...base, endpoint_id: 'ep-nope-123456' });
    expect(compute.result.status).toBe('api_error');
    expect(compute.result.failure).toMatch(
      /^Compute ep-nope-123456 was not found in project \S+, or this API key cannot see that project \(.*404.*\)\. Check input 'endpoint_id' and input 'project_id'\.$/
    );
    const branch = await s.wait({ ...base, branch_id: 'br-nope-123456' });
    expect(branch.result.status).toBe('api_error');
    expect(branch.result.failure).toMatch(
      /^Branch br-nope-123456 was not found in project \S+, .*\. Check input 'branch_id' and input 'project_id'\.$/
    );
    // Before any list of operations: nothing was awaited.
    expect(s.sim.requests.filter((r) => r.path.includes('/operations'))).toHaveLength(0);
    const mixed = await s.wait({ ...base, endpoint_id: 'ep-a', branch_id: 'br-main-00000000' });
    expect(mixed.result.status).toBe('input_error');
    expect(mixed.result.failure).toBe(
      "Input 'endpoint_id' ep-a is a compute of branch br-a, not of input 'branch_id' br-main-00000000. Give the ids of one branch."
    );
    const right = await s.wait({ ...base, endpoint_id: 'ep-a', branch_id: 'br-a', wait: 'false' });
    expect(right.result.status).toBe('busy');
  });

  it('refuses an id that is not one, naming the input', async () => {
    const s = await start([]);
    await expect(s.wait({ ...base, endpoint_id: 'EP A' })).rejects.toThrow(
      /^Input 'endpoint_id' must be a Neon id .*; got 'EP A'\.$/
    );
    expect(s.sim.requests).toHaveLength(0);
  });
});

describe('jobs of one account sharing a rate limit', () => {
  const JOBS = 20;
  const PER_SECOND = 5;

  it(`${JOBS} jobs waiting at once under ${PER_SECOND} requests/s all finish, their retries spread out`, async () => {
    const ops = Array.from({ length: JOBS }, (_, i) =>
      operation(PROJECT, 'create_branch', [
        [0, 'running'],
        [2000 + i * 100, 'finished']
      ])
    );
    // The first 429s say when to come back, the later ones do not: both must be handled.
    const s = await start(ops, { rateLimit: { perSecond: PER_SECOND, retryAfter: true } });
    void s.time.clock
      .sleep(3000)
      .then(() => s.sim.setRateLimit({ perSecond: PER_SECOND, retryAfter: false }));
    const waits = await s.waitAll(
      ops.map((op) => ({ ...base, operation_id: op.id, interval: '5s', timeout: '90s' }))
    );
    expect(waits.map((w) => w.result.status)).toEqual(ops.map(() => 'finished'));
    const limited = s.sim.requests.filter((r) => r.status === 429);
    expect(limited.some((r) => r.at < 3000)).toBe(true);
    expect(limited.some((r) => r.at >= 3000)).toBe(true);
    // Retries spread out: after the first requests, no 100 ms slot holds more than a burst's
    // worth of the 20 jobs.
    const slots = new Map<number, number>();
    for (const r of s.sim.requests.slice(JOBS)) {
      const slot = Math.floor(r.at / 100);
      slots.set(slot, (slots.get(slot) ?? 0) + 1);
    }
    expect(Math.max(...slots.values())).toBeLessThanOrEqual((JOBS * 3) / 4);
  });
});

describe("the service's clock, not the runner's (its Date header), ages operations and dates retries", () => {
  const MINUTES_5 = 5 * 60_000;
  const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

  it.each([
    ['ahead of', MINUTES_5],
    ['behind', -MINUTES_5],
    ['in step with', 0]
  ])(
    'with the service 5 minutes %s the runner, history still times the checks of a 30 s operation',
    async (_name, skewMs) => {
      const op = operation(PROJECT, 'create_branch', [
        [-200, 'running'],
        [30_400, 'finished']
      ]);
      const thirty = [28, 29, 29.5, 30, 30, 30.5, 31, 31, 32, 29].map((x) => x * 1000);
      const past = pastOperations(PROJECT, 'create_branch', thirty);
      const s = await start([op, ...past], { skewMs });
      const { result, requests } = await s.wait({
        ...base,
        operations: JSON.stringify([s.sim.render(op)]),
        interval: '5s',
        timeout: '2m'
      });
      expect(result.status).toBe('finished');
      // History gathers the checks where such operations end (28 to 32 s). Aged on the runner's
      // clock, a service ahead made the operation look newborn at every check, and one behind made
      // it look past all history: either way the checks stayed 5 s apart through that span.
      const nearTheEnd = s.sim.requests.filter((r) => r.at >= 27_000 && r.at < 30_400);
      expect(nearTheEnd.length).toBeGreaterThanOrEqual(2);
      expect(requests).toBeLessThanOrEqual(10);
      expect(result.finishedAt - s.time.epoch - 30_400).toBeLessThan(1500);
    }
  );

  it("a runner 60 s ahead waits for Neon's retry (retry_at on the service's clock) and sees it succeed", async () => {
    const skewMs = -60_000;
    const op = operation(
      PROJECT,
      'start_compute',
      [
        [0, 'running'],
        [2000, 'failed', { failures_count: 1, error: 'compute did not start' }],
        [33_000, 'finished', { failures_count: 1 }]
      ],
      // The service's time of its retry: 30 s after the failure, by its own clock.
      { extra: { retry_at: iso(s0(skewMs) + 32_000) } }
    );
    const s = await start([op], { skewMs });
    const { result, log } = await s.wait({ ...base, operation_id: op.id, timeout: '2m' });
    expect(log.join('\n')).toMatch(/running → failed \(failures: 1\) — retry due in (29\.\d|30)s/);
    expect(result.status).toBe('finished');
  });

  it('a service 5 minutes ahead: the end after a retry is noticed soon, not a skew later', async () => {
    const skewMs = MINUTES_5;
    const op = operation(
      PROJECT,
      'start_compute',
      [
        [0, 'running'],
        [2000, 'failed', { failures_count: 1, error: 'compute did not start' }],
        [12_000, 'finished', { failures_count: 1 }]
      ],
      { extra: { retry_at: iso(s0(skewMs) + 10_000) } }
    );
    const s = await start([op], { skewMs });
    const { result, log } = await s.wait({ ...base, operation_id: op.id, timeout: '2m' });
    expect(log.join('\n')).toMatch(/retry due in (7\.\d|8)s/);
    expect(result.status).toBe('finished');
    expect(result.finishedAt - s.time.epoch).toBeLessThan(20_000);
  });

  it.each([
    ['ahead of', MINUTES_5],
    ['behind', -MINUTES_5]
  ])(
    "watch_job's mark is the service's time when the step ran, whatever a row dated ahead says (service %s the runner)",
    async (_name, skewMs) => {
      const older = operation(PROJECT, 'create_branch', [
        [-60_000, 'running'],
        [-50_000, 'finished']
      ]);
      // A row that claims to come from an hour on (a clock gone wrong somewhere upstream).
      const ahead = operation(PROJECT, 'apply_config', [
        [-10_000, 'running'],
        [-9000, 'finished']
      ]);
      ahead.extra = { created_at: iso(s0(skewMs) + 3_600_000) };
      const s = await start([older, ahead], { skewMs });
      const { result, jobMark } = await s.wait({ ...base, watch_job: 'true' });
      expect(result.status).toBe('watching');
      if (!jobMark) throw new Error('no mark');
      // The job's own operation, created 5 s later by the service's clock.
      const ours = operation(PROJECT, 'create_branch', [[5000, 'running']]);
      s.sim.addOperation(ours);
      await s.time.run([s.time.clock.sleep(6000)], 10_000);
      const shown = (o: OperationScript) => s.sim.render(o) as Parameters<typeof isAfterMark>[0];
      expect(isAfterMark(shown(ours), jobMark)).toBe(true);
      expect(isAfterMark(shown(older), jobMark)).toBe(false);
      expect(isAfterMark(shown(ahead), jobMark)).toBe(false);
    }
  );
});

/** The service's time at the simulator's start, with the service `skewMs` ahead of the runner. */
const s0 = (skewMs: number) => EPOCH + skewMs;

describe("the first check's List is an optimisation: the awaited operation's answer decides", () => {
  const done = () =>
    operation(PROJECT, 'create_branch', [
      [-3000, 'running'],
      [-1000, 'finished']
    ]);
  const LIST = `/projects/${PROJECT}/operations?`;
  const cases: Array<[string, Fault]> = [
    ['answers 503 throughout', { kind: 'status', status: 503 }],
    ['is refused (403)', { kind: 'status', status: 403, message: 'forbidden' }],
    ['answers an unreadable page', { kind: 'missing-fields' }]
  ];

  it.each(cases)('a finished operation is finished when the List %s', async (_name, fault) => {
    const op = done();
    const s = await start([op]);
    s.sim.inject(fault, { times: Infinity, match: LIST });
    const { result } = await s.wait({ ...base, operation_id: op.id });
    expect(result.status).toBe('finished');
    expect(s.sim.requests.at(-1)?.route).toBe(
      'GET /projects/{project_id}/operations/{operation_id}'
    );
  });

  it('a finished operation is finished when another operation on the page is unreadable', async () => {
    const op = done();
    const broken = operation(PROJECT, 'start_compute', [[-500, 'running']], {
      extra: { action: null }
    });
    const s = await start([op, broken]);
    const { result } = await s.wait({ ...base, operation_id: op.id });
    expect(result.status).toBe('finished');
  });

  it('a List throttled throughout is still waited on as a throttle, not given up on', async () => {
    const op = done();
    const s = await start([op]);
    s.sim.inject({ kind: 'status', status: 429 }, { times: Infinity, match: LIST });
    const { result } = await s.wait({ ...base, operation_id: op.id, timeout: '20s' });
    expect(result.status).toBe('timeout');
    expect(s.sim.requests.every((r) => r.route === 'GET /projects/{project_id}/operations')).toBe(
      true
    );
  });
});

describe('requests per check stay bounded whatever the spread of what is followed', () => {
  const ROUTE_GET = 'GET /projects/{project_id}/operations/{operation_id}';
  const ROUTE_LIST = 'GET /projects/{project_id}/operations';

  it('2,000 awaited ids with 40 stragglers spread through them: a few requests per check', async () => {
    // One created every 100 ms; every 50th ends a minute from now, the rest a second after creation.
    const ops = Array.from({ length: 2000 }, (_, i) =>
      operation(PROJECT, 'create_branch', [
        [-200_000 + i * 100, 'running'],
        [i % 50 === 0 ? 60_000 : -199_000 + i * 100, 'finished']
      ])
    );
    const s = await start(ops);
    const { result, requests } = await s.wait({
      ...base,
      operation_id: ops.map((op) => op.id).join(','),
      interval: '5s',
      timeout: '120s'
    });
    expect(result.status).toBe('finished');
    expect(requests).toBeLessThanOrEqual(result.checks * 7);
    // Within the 700 a minute every job of the account shares, with room to spare.
    const firstMinute = s.sim.requests.filter((r) => r.at < 60_000);
    expect(firstMinute.length).toBeLessThanOrEqual(100);
  });

  it("watch_job's post step after a job of 2,000 operations, 40 still running: a few requests per check", async () => {
    // The job ran for about an hour before the post step: one operation every 1.5 s, every 50th
    // still running (ending 5 to 24.5 s from now); the project's older work precedes the mark.
    const mark = { projectId: PROJECT, createdAt: EPOCH - 3_600_000, ids: [] };
    const before = pastOperations(PROJECT, 'start_compute', Array(30).fill(2000), 200_000).map(
      (op) => ({ ...op, created: op.created - 3_600_000 })
    );
    const job = Array.from({ length: 2000 }, (_, i) =>
      operation(PROJECT, 'create_branch', [
        [-3_000_000 + i * 1500, 'running'],
        [i % 50 === 0 ? 5000 + i * 5 : -2_999_000 + i * 1500, 'finished']
      ])
    );
    // A later step of the job started one more while the post step waits: it is found and awaited.
    const late = operation(PROJECT, 'apply_config', [
      [8000, 'running'],
      [30_000, 'finished']
    ]);
    const s = await start([...before, ...job, late]);
    const { result } = await s.post(mark, { ...base, interval: '5s', timeout: '120s' });
    expect(result.status).toBe('finished');
    expect(result.finishedAt - EPOCH).toBeGreaterThanOrEqual(30_000);
    expect(result.operations.map((op) => op.id)).toContain(late.id);
    expect(result.operations).toHaveLength(2001);
    const lists = s.sim.requests.filter((r) => r.route === ROUTE_LIST).length;
    const gets = s.sim.requests.filter((r) => r.route === ROUTE_GET).length;
    expect(lists).toBeLessThanOrEqual(result.checks * 4);
    expect(gets).toBeLessThanOrEqual(result.checks * 3);
    // Within the 700 a minute every job of the account shares, with room to spare.
    expect(s.sim.requests.filter((r) => r.at < 60_000).length).toBeLessThanOrEqual(100);
  });

  it("project mode while another job's 300 operations run: a few requests per check", async () => {
    const ops = Array.from({ length: 300 }, (_, i) =>
      operation(PROJECT, 'create_branch', [
        [-30_000 + i * 100, 'running'],
        [20_000 + i * 50, 'finished']
      ])
    );
    const s = await start(ops);
    const { result, requests } = await s.wait({ ...base, interval: '5s', timeout: '120s' });
    expect(result.status).toBe('idle');
    expect(requests).toBeLessThanOrEqual(result.checks * 7);
    expect(s.sim.requests.filter((r) => r.route === ROUTE_GET).length).toBeLessThanOrEqual(
      result.checks * 3
    );
  });
});
