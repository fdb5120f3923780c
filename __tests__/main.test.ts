/**
 * The decisions of `run()` (which status, which outputs, when the step fails, what is asked of the
 * API) with `@actions/core` mocked, against the simulator on 127.0.0.1. The end-to-end suites check
 * the same paths through the built dist/ as the runner runs it; these are quicker and say exactly
 * which call the action made.
 */
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import * as core from '../__fixtures__/core.js';
import type { Simulator } from '../simulator/server.js';
import { actionDefaults, actionOutputs } from './helpers/run-action.js';
import { DEFAULT_KEY, PROJECT, simulate, uuid } from './helpers/sim.js';
import { operation } from '../simulator/scenario.js';

jest.unstable_mockModule('@actions/core', () => core);
const { run } = await import('../src/action/main.js');
const { clearSecrets } = await import('../src/util/redact.js');

let sim: Simulator | undefined;
const savedEnv = { ...process.env };

function inputs(overrides: Record<string, string>): Record<string, string> {
  return {
    ...actionDefaults(),
    api_key: DEFAULT_KEY,
    api_host: sim?.url ?? 'http://127.0.0.1:9',
    project_id: PROJECT,
    summary_limit: '0',
    timeout: '20s',
    interval: '1s',
    ...overrides
  };
}

beforeEach(() => {
  process.env.GITHUB_STEP_SUMMARY = '/dev/null';
  process.exitCode = undefined;
});
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  process.env = { ...savedEnv };
  process.exitCode = undefined;
  clearSecrets();
});

describe('run()', () => {
  it('sets status finished and does not fail when every awaited operation finished', async () => {
    const op = operation(PROJECT, 'create_branch', [
      [0, 'running'],
      [300, 'finished']
    ]);
    sim = await simulate([op]);
    core.reset(inputs({ operation_id: op.id }));
    await run();
    expect(core.outputs()).toMatchObject({
      status: 'finished',
      timed_out: 'false',
      project_id: PROJECT
    });
    expect(core.error).not.toHaveBeenCalled();
    expect(process.exitCode).toBeUndefined();
    expect(core.setSecret).toHaveBeenCalledWith(DEFAULT_KEY);
    expect(core.summaryText.join('')).toContain('Neon operations');
  });

  it('fails with the failing operation named, and status error', async () => {
    const op = operation(PROJECT, 'start_compute', [
      [0, 'running'],
      [200, 'error', { error: 'no capacity' }]
    ]);
    sim = await simulate([op]);
    core.reset(inputs({ operation_id: op.id }));
    await run();
    expect(core.outputs().status).toBe('error');
    expect(process.exitCode).toBe(1);
    expect(core.error).toHaveBeenCalledTimes(1);
    expect(String(core.error.mock.calls[0]?.[0])).toMatch(
      new RegExp(`start_compute ${op.id} is error .*no capacity`)
    );
  });

  it('treats a bad input as input_error: no request, every output set, a summary written', async () => {
    sim = await simulate([]);
    core.reset(inputs({ timeout: 'soon' }));
    await run();
    expect(sim.requests).toHaveLength(0);
    expect(core.outputs()).toMatchObject({
      status: 'input_error',
      timed_out: 'false',
      operations: '[]'
    });
    expect(Object.keys(core.outputs()).sort()).toEqual(Object.keys(actionOutputs()).sort());
    expect(String(core.error.mock.calls[0]?.[0])).toMatch(/^Input 'timeout' must be a duration/);
    expect(core.summaryText.join('')).toContain('input error');
    expect(process.exitCode).toBe(1);
  });

  it('writes no summary for a bad input when summary is off', async () => {
    core.reset(inputs({ timeout: 'soon', summary: 'false' }));
    await run();
    expect(core.summary.write).not.toHaveBeenCalled();
    expect(core.outputs().summary).toBe('');
  });

  it('does not ask for recent operations after the API refused the key', async () => {
    sim = await simulate([]);
    core.reset(inputs({ api_key: 'napi_revoked_key_000000', summary_limit: '20' }));
    await run();
    expect(core.outputs().status).toBe('api_error');
    expect(sim.requests).toHaveLength(1);
    expect(String(core.error.mock.calls[0]?.[0])).toMatch(/HTTP 401/);
  });

  it('reuses the last check page for the summary instead of asking again', async () => {
    const ops = [0, 1].map(() =>
      operation(PROJECT, 'create_branch', [
        [0, 'running'],
        [200, 'finished']
      ])
    );
    sim = await simulate(ops);
    core.reset(inputs({ operation_id: ops.map((o) => o.id).join(','), summary_limit: '20' }));
    await run();
    expect(core.outputs().status).toBe('finished');
    const lists = sim.requests.filter((r) => r.path.endsWith('/operations'));
    const checks = core.info.mock.calls.filter(([m]) => /finished/.test(String(m))).length;
    expect(checks).toBeGreaterThan(0);
    // Every List request was a check: none was made for the summary alone.
    expect(lists.every((r) => r.query.limit === '100')).toBe(true);
    expect(core.summaryText.join('')).toContain('#### Recent operations');
  });

  it('ends on the deadline as timeout, naming what was still open', async () => {
    const op = operation(PROJECT, 'create_branch', [[0, 'running']]);
    sim = await simulate([op]);
    core.reset(inputs({ operation_id: op.id, timeout: '2s' }));
    await run();
    expect(core.outputs()).toMatchObject({ status: 'timeout', timed_out: 'true' });
    expect(String(core.error.mock.calls[0]?.[0])).toMatch(
      new RegExp(
        `Still waiting for create_branch ${op.id} \\(last status running\\): the 2s timeout`
      )
    );
  });

  it('stops at once, with an honest message, when Retry-After asks for more than the time left', async () => {
    const op = operation(PROJECT, 'create_branch', [[0, 'running']]);
    sim = await simulate([op]);
    sim.inject({ kind: 'status', status: 429, retryAfter: '86400' }, { times: Infinity });
    core.reset(inputs({ operation_id: op.id, timeout: '1m' }));
    const started = Date.now();
    await run();
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(core.outputs()).toMatchObject({ status: 'timeout', timed_out: 'true' });
    expect(String(core.error.mock.calls[0]?.[0])).toMatch(
      /The API asked to wait 24h before the next request \(Retry-After\), more than the time left before the 1m timeout/
    );
  });

  it('confirms a copied `finished` with the API before the gate passes', async () => {
    const op = operation(PROJECT, 'create_branch', [[0, 'running']]);
    sim = await simulate([op]);
    const copied = { ...sim.render(op), status: 'finished' };
    core.reset(inputs({ operations: JSON.stringify({ operations: [copied] }), timeout: '2s' }));
    await run();
    expect(sim.requests.length).toBeGreaterThan(0);
    expect(core.outputs().status).toBe('timeout');
  });

  it('still states the verdict when the outputs file cannot be written', async () => {
    const op = operation(PROJECT, 'start_compute', [
      [0, 'running'],
      [100, 'error', { error: 'boom' }]
    ]);
    sim = await simulate([op]);
    core.reset(inputs({ operation_id: op.id }));
    core.setOutput.mockImplementation(() => {
      throw new Error('EIO: i/o error, write');
    });
    await run();
    expect(core.warning.mock.calls.map(([m]) => String(m))).toContainEqual(
      expect.stringMatching(/Could not set the outputs: EIO/)
    );
    expect(String(core.error.mock.calls[0]?.[0])).toMatch(/start_compute .* is error/);
    expect(process.exitCode).toBe(1);
  });

  it('fails project mode once idle when an operation it followed ended in error', async () => {
    const op = operation(PROJECT, 'apply_config', [
      [0, 'running'],
      [300, 'error', { error: 'bad config' }]
    ]);
    sim = await simulate([op]);
    core.reset(inputs({}));
    await run();
    expect(core.outputs().status).toBe('error');
    expect(String(core.error.mock.calls[0]?.[0])).toMatch(
      /did not succeed: apply_config .* is error/
    );
  });

  it('reports busy without failing for a project with work in progress and wait false', async () => {
    sim = await simulate([operation(PROJECT, 'create_branch', [[0, 'running']])]);
    core.reset(inputs({ wait: 'false' }));
    await run();
    expect(core.outputs().status).toBe('busy');
    expect(process.exitCode).toBeUndefined();
  });

  it('keeps an unknown id of a project apart: 404 is an API error naming it', async () => {
    sim = await simulate([]);
    const id = uuid();
    core.reset(inputs({ operation_id: id }));
    await run();
    expect(core.outputs().status).toBe('api_error');
    expect(String(core.error.mock.calls[0]?.[0])).toContain(`Operation ${id} was not found`);
  });
});

describe('run() when what it follows is deleted', () => {
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  it('stops at the first 404 after successful checks, saying it was deleted, without retrying', async () => {
    const op = operation(PROJECT, 'create_branch', [[0, 'running']]);
    sim = await simulate([op]);
    sim.deleteProject(PROJECT, 1500);
    core.reset(inputs({ operation_id: op.id, timeout: '30s' }));
    const started = Date.now();
    await run();
    expect(Date.now() - started).toBeLessThan(6000);
    expect(core.outputs().status).toBe('api_error');
    expect(String(core.error.mock.calls[0]?.[0])).toMatch(
      /disappeared after \d+ successful check\(s\): the project, the branch or the operation was deleted during the wait.*HTTP 404/
    );
    expect(sim.requests.filter((r) => r.status === 404)).toHaveLength(1);
  });

  it('with watch_job, leaves the post step the mark and then its verdict, bounded', async () => {
    const ops = Array.from({ length: 10 }, () =>
      operation(PROJECT, 'apply_config', [
        [0, 'running'],
        [200, 'error', { error: `role exists ${'x'.repeat(10_000)}` }]
      ])
    );
    sim = await simulate(ops);
    const given = JSON.stringify(
      ops.map((op) => ({ id: op.id, project_id: PROJECT, action: op.action, status: 'running' }))
    );
    core.reset(inputs({ operations: given, watch_job: 'true' }));
    await run();
    expect(core.outputs().status).toBe('error');
    const saved = Object.fromEntries(core.saveState.mock.calls.map(([k, v]) => [k, String(v)]));
    expect(Object.keys(saved)).toEqual(['job_mark', 'main_verdict']);
    const verdict = JSON.parse(saved.main_verdict as string) as { status: string; failure: string };
    expect(verdict.status).toBe('error');
    // Ten failures of 300 characters each are more than the post step needs to show.
    expect(String(core.error.mock.calls[0]?.[0]).length).toBeGreaterThan(3000);
    expect(verdict.failure).toMatch(
      /^Operation\(s\) did not succeed: apply_config .*role exists x+/
    );
    expect(verdict.failure.length).toBe(2000);
  });
});
