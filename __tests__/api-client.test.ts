import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { NeonClient } from '../src/neon/client.js';
import { retryAfter } from '../src/neon/retry.js';
import { ApiError, CancelledError, DeadlineError } from '../src/util/errors.js';
import { ACTION_NAME, ACTION_VERSION } from '../src/version.js';
import {
  DEFAULT_KEY,
  operation,
  type OperationScript,
  singleProject
} from '../simulator/scenario.js';
import { type Simulator, startSimulator } from '../simulator/server.js';
import { SimulatedClock } from '../simulator/simulated-wait.js';

const PROJECT = 'misty-field-123456';
let sim: Simulator;
let op: OperationScript;

function client(overrides: Partial<ConstructorParameters<typeof NeonClient>[0]> = {}): NeonClient {
  return new NeonClient({
    baseUrl: sim.url,
    apiKey: DEFAULT_KEY,
    backoffBaseMs: 20,
    throttleBaseMs: 20,
    backoffMaxMs: 100,
    ...overrides
  });
}
const soon = (ms = 5000): number => Date.now() + ms;

beforeAll(async () => {
  op = operation(
    PROJECT,
    'create_branch',
    [
      [-5000, 'running'],
      [-1000, 'finished']
    ],
    { branch_id: 'br-a' }
  );
  const many = Array.from({ length: 25 }, (_, i) =>
    operation(PROJECT, 'check_availability', [
      [-60_000 - i * 1000, 'running'],
      [-59_000 - i * 1000, 'finished']
    ])
  );
  sim = await startSimulator({ scenario: singleProject(PROJECT, [op, ...many]) });
});
afterAll(async () => {
  await sim.close();
});
afterEach(() => {
  sim.clearFaults();
  sim.requests.length = 0;
});

describe('NeonClient', () => {
  it('sends the key as a bearer token, asks for JSON and names itself', async () => {
    const got = await client().getOperation(PROJECT, op.id, soon());
    expect(got).toMatchObject({ id: op.id, status: 'finished', action: 'create_branch' });
    const [request] = sim.requests;
    expect(request?.key).toBe(DEFAULT_KEY);
    expect(request?.userAgent).toContain(`${ACTION_NAME}/${ACTION_VERSION}`);
  });

  it('pages with limit and a URL-encoded cursor', async () => {
    const c = client();
    const first = await c.listOperations(PROJECT, { limit: 10 }, soon());
    expect(first.operations).toHaveLength(10);
    expect(first.cursor).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const second = await c.listOperations(PROJECT, { limit: 10, cursor: first.cursor }, soon());
    expect(second.operations[0]?.id).not.toBe(first.operations[0]?.id);
    expect(sim.requests[1]?.target).toContain(
      `cursor=${encodeURIComponent(first.cursor as string)}`
    );
    expect(sim.requests[1]?.target).toContain('%3A');
  });

  it.each([
    ['429 with Retry-After in seconds', { kind: 'status', status: 429, retryAfter: '0' }],
    ['429 without Retry-After', { kind: 'status', status: 429 }],
    ['423 locked', { kind: 'status', status: 423 }],
    ['500', { kind: 'status', status: 500 }],
    ['502', { kind: 'status', status: 502 }],
    ['503', { kind: 'status', status: 503 }],
    ['504', { kind: 'status', status: 504 }],
    ['an HTML error page', { kind: 'html' }],
    ['a connection reset', { kind: 'reset' }],
    ['malformed JSON in a 200', { kind: 'malformed' }],
    ['a 200 without the expected fields', { kind: 'missing-fields' }]
  ] as const)('retries after %s', async (_name, fault) => {
    sim.inject(fault, { times: 2 });
    const retries: string[] = [];
    const got = await client({ onRetry: (e) => retries.push(e.error) }).getOperation(
      PROJECT,
      op.id,
      soon()
    );
    expect(got.id).toBe(op.id);
    expect(sim.requests).toHaveLength(3);
    expect(retries).toHaveLength(2);
  });

  it('gives a request that never answers up after its own timeout, then retries', async () => {
    sim.inject({ kind: 'hang' }, { times: 1 });
    const started = Date.now();
    const got = await client({ requestTimeoutMs: 300 }).getOperation(PROJECT, op.id, soon());
    expect(got.id).toBe(op.id);
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    expect(sim.requests).toHaveLength(2);
  });

  it('honours Retry-After given as an HTTP date', async () => {
    const at = new Date(Date.now() + 3000).toUTCString();
    sim.inject({ kind: 'status', status: 429, retryAfter: at }, { times: 1 });
    const delays: number[] = [];
    await client({ onRetry: (e) => delays.push(e.delayMs), random: () => 0 }).getOperation(
      PROJECT,
      op.id,
      soon()
    );
    // HTTP dates have whole seconds: 2 to 3 s from now, never the 20 ms backoff of this client.
    expect(delays[0]).toBeGreaterThanOrEqual(1900);
    expect(delays[0]).toBeLessThanOrEqual(3000);
  });

  it('stops retrying at the deadline and names the last error', async () => {
    sim.inject({ kind: 'status', status: 503, message: 'maintenance' }, { times: Infinity });
    // Simulated time: on a busy machine a real 800 ms can run out during a request, and the last
    // error would be that request's timeout instead.
    const clock = new SimulatedClock(Date.now());
    const error = await client({ clock })
      .getOperation(PROJECT, op.id, clock.now() + 800)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeadlineError);
    expect((error as DeadlineError).lastError).toContain('HTTP 503: maintenance');
    expect(clock.elapsed).toBeLessThan(800);
  });

  it('gives up within a minute on a host that never answered, whatever the deadline; rides faults once it has', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), {
      code: 'ECONNREFUSED'
    });
    let answers = 0; // how many requests get an answer (a 503) before every connection is refused
    const transport = {
      send: async () => {
        if (answers-- > 0) return { status: 503, headers: {}, text: '' };
        throw refused;
      },
      close: async () => undefined
    };
    const clock = new SimulatedClock(Date.now());
    const neverAnswered = await new NeonClient({
      baseUrl: 'https://api.example.invalid/api/v2',
      apiKey: 'k',
      transport,
      clock
    })
      .getOperation(PROJECT, op.id, clock.now() + 600_000)
      .catch((e: unknown) => e);
    expect(neverAnswered).toBeInstanceOf(ApiError);
    expect((neverAnswered as Error).message).toBe(
      'The API host api.example.invalid never answered (network error ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9).'
    );
    expect(clock.elapsed).toBeLessThanOrEqual(30_000);

    answers = 1;
    const answeredOnce = new SimulatedClock(Date.now());
    const error = await new NeonClient({
      baseUrl: sim.url,
      apiKey: 'k',
      transport,
      clock: answeredOnce
    })
      .getOperation(PROJECT, op.id, answeredOnce.now() + 600_000)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeadlineError);
    expect(answeredOnce.elapsed).toBeGreaterThan(500_000);
  });

  it('gives up on a host that never answered even when its clock reads 0 at the first request', async () => {
    const refuse = async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    };
    const transport = { send: refuse, close: async () => undefined };
    const clock = new SimulatedClock(0);
    const error = await new NeonClient({ baseUrl: sim.url, apiKey: 'k', transport, clock })
      .getOperation(PROJECT, op.id, 600_000)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as Error).message).toMatch(/never answered/);
  });

  it('gives up at once when Retry-After lies beyond the deadline', async () => {
    sim.inject({ kind: 'status', status: 429, retryAfter: '120' }, { times: 1 });
    const error = await client()
      .getOperation(PROJECT, op.id, soon(3000))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeadlineError);
    expect(sim.requests).toHaveLength(1);
  });

  it.each([
    [400, 'bad request'],
    [403, 'forbidden'],
    [404, 'not found'],
    [422, 'unprocessable']
  ])('does not retry HTTP %d and shows the API message and request id', async (status, message) => {
    sim.inject({ kind: 'status', status, message }, { times: 1 });
    const error = await client()
      .getOperation(PROJECT, op.id, soon())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toContain(`HTTP ${status}: ${message}`);
    // The id the service sent in X-Neon-Ret-Request-Id (error bodies carry none).
    expect((error as ApiError).message).toContain(`(request_id ${sim.requests[0]?.requestId})`);
    expect(sim.requests[0]?.requestId).toMatch(/^[0-9a-f]{32}$/);
    expect(sim.requests).toHaveLength(1);
  });

  it('says the key is missing, invalid or revoked on 401, without retrying', async () => {
    const error = await client({ apiKey: 'not-a-key' })
      .getOperation(PROJECT, op.id, soon())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toMatch(/missing, invalid or revoked/);
    expect((error as ApiError).message).not.toContain('not-a-key');
    expect(sim.requests).toHaveLength(1);
  });

  it('does not follow a redirect to another host', async () => {
    sim.inject({ kind: 'redirect', location: 'http://127.0.0.2:1/steal' }, { times: 1 });
    const error = await client()
      .getOperation(PROJECT, op.id, soon())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toContain('127.0.0.2:1');
    expect(sim.requests).toHaveLength(1);
  });

  it('stops at once when cancelled, also during a backoff', async () => {
    sim.inject({ kind: 'status', status: 503 }, { times: Infinity });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const error = await client({
      signal: controller.signal,
      backoffBaseMs: 5000,
      backoffMaxMs: 5000
    })
      .getOperation(PROJECT, op.id, soon(20_000))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CancelledError);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('lists the projects the key can see', async () => {
    const page = await client().listProjects({ limit: 10 }, soon());
    expect(page.projects.map((p) => p.id)).toEqual([PROJECT]);
    expect(sim.requests[0]?.query).toEqual({ limit: '10' });
  });
});

describe('retry delays', () => {
  it('wait at least Retry-After and spread up to a second more, so jobs do not return together', async () => {
    for (const [random, expected] of [
      [0, 1000],
      [1, 2000]
    ] as const) {
      sim.inject({ kind: 'status', status: 429, retryAfter: '1' }, { times: 1 });
      const delays: number[] = [];
      await client({ random: () => random, onRetry: (e) => delays.push(e.delayMs) }).getOperation(
        PROJECT,
        op.id,
        soon(10_000)
      );
      expect(delays).toEqual([expected]);
    }
  });

  it('back off exponentially, half fixed and half random', async () => {
    for (const [random, expected] of [
      [0, [10, 20, 40]],
      [1, [20, 40, 80]]
    ] as const) {
      sim.inject({ kind: 'status', status: 503 }, { times: 3 });
      const delays: number[] = [];
      await client({ random: () => random, onRetry: (e) => delays.push(e.delayMs) }).getOperation(
        PROJECT,
        op.id,
        soon()
      );
      expect(delays).toEqual(expected);
    }
  });
});

describe('retryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    expect(retryAfter('3', 0)).toBe(3000);
    expect(
      retryAfter('Wed, 21 Oct 2015 07:28:05 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))
    ).toBe(5000);
    expect(retryAfter('soon', 0)).toBeUndefined();
    expect(retryAfter(undefined, 0)).toBeUndefined();
  });
});
