/**
 * Faults, bad input, the key and hostile data through the action's step as the runner sees it,
 * run in-process (`runInProcess`): moved from `__tests__/e2e/reliability.test.ts` with the same
 * assertions. Signals and the runner's files that cannot be written stay there as spawned runs.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { escapeText } from '../../src/report/markdown.js';
import { operation } from '../../simulator/scenario.js';
import type { Simulator } from '../../simulator/server.js';
import { runInProcess as runAction } from '../helpers/in-process-action.js';
import { workflowCommands } from '../helpers/run-action.js';
import { countedInputs, DEFAULT_KEY, PROJECT, simulate, uuid } from '../helpers/sim.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const inputs = (s: Simulator, more: Record<string, string>) =>
  countedInputs(s, { project_id: PROJECT, timeout: '30s', ...more });

/*
 * The decisions under faults (each kind of fault, the 429 throttle base, a storm of 503s, a key
 * revoked mid-wait, unknown project or operation, redirects, project-mode gating, many jobs under one
 * rate limit, statuses named like prototype members) are tested in-process on simulated time in
 * `__tests__/decisions.test.ts`, and every input's validation in `__tests__/settings.test.ts`.
 * Here: one spawned run of each kind.
 */
describe('faults, as the runner runs the action', () => {
  it('retries a transient fault and still ends right, the key nowhere in what it wrote', async () => {
    const op = operation(PROJECT, 'create_branch', [
      [0, 'running'],
      [500, 'finished']
    ]);
    sim = await simulate([op]);
    sim.inject({ kind: 'html', status: 503 }, { times: 1, skip: 1 });
    const run = await runAction(inputs(sim, { operation_id: op.id }));
    expect(run.code).toBe(0);
    expect(run.outputs.status).toBe('finished');
    expect(sim.requests.map((r) => r.status)).toEqual([200, 503, 200]);
    expect(run.stdout.match(/retrying in .* after HTTP 503/g)).toHaveLength(1);
    expect(run.everything).not.toContain(DEFAULT_KEY);
  });

  it('a request that never answers is cut by the deadline and reported as a timeout', async () => {
    const op = operation(PROJECT, 'create_branch', [
      [0, 'running'],
      [1000, 'finished']
    ]);
    sim = await simulate([op]);
    sim.inject({ kind: 'hang' }, { times: Infinity, skip: 1 });
    const run = await runAction(inputs(sim, { operation_id: op.id, timeout: '1s' }));
    expect(sim.requests.map((r) => r.status)).toEqual([200, -2]);
    expect(run.outputs.status).toBe('timeout');
    expect(run.outputs.timed_out).toBe('true');
    expect(run.stdout).toMatch(
      /::error::Still waiting for .*: the 1s timeout left no time to retry .*Last error: no answer before the deadline/
    );
    // The second counts from before the first request: the end comes before a second after it,
    // plus time to write the report.
    expect(run.endedAt - (sim.requests[0]?.wallAt ?? 0)).toBeLessThan(2500);
    expect(run.summary).toContain('timed out');
  });
});

describe('bad input is refused before any request', () => {
  it('names the input and the expected form, without a stack trace, every output set', async () => {
    sim = await simulate([]);
    const run = await runAction(inputs(sim, { operation_id: uuid(), timeout: 'soon' }));
    expect(run.code).toBe(1);
    expect(workflowCommands(run.stdout)).toEqual([
      expect.stringMatching(/^::error::Input 'timeout' must be a duration from 1s to 6h/)
    ]);
    expect(run.stdout + run.stderr).not.toMatch(/\n\s+at /);
    expect(run.stderr).toBe('');
    expect(sim.requests).toHaveLength(0);
    // Still reported: every output set, and a summary that says what is wrong.
    expect(run.outputs.status).toBe('input_error');
    expect(run.outputs.timed_out).toBe('false');
    expect(run.outputs.operations).toBe('[]');
    expect(run.summary).toContain('Neon operations: input error');
    expect(run.summary).toContain(escapeText("Input 'timeout'"));
  });
});

describe('the API key never appears', () => {
  it('not in debug logs, outputs, summary or errors, even when the API echoes it back', async () => {
    const key = `napi_${uuid().replace(/-/g, '')}`;
    const op = operation(PROJECT, 'create_branch', [
      [0, 'running'],
      [500, 'finished']
    ]);
    sim = await simulate({
      keys: { [key]: { kind: 'personal', user: 'user-1' } },
      projects: [{ id: PROJECT, name: 'p', owner_id: 'user-1' }],
      operations: [op]
    });
    sim.inject({ kind: 'echo-key', status: 500 }, { times: 1 });
    const echoed = await runAction({
      ...inputs(sim, { api_key: key, operation_id: op.id, summary_limit: '5' }),
      env: { RUNNER_DEBUG: '1' }
    });
    expect(echoed.stdout).toMatch(/::debug::GET \/projects\//);
    expect(echoed.stdout).toMatch(
      /retrying in .* after HTTP 500: invalid request: header was "Bearer \*\*\*"/
    );
    expect(echoed.masked).toEqual([key]);
    expect(echoed.everything).not.toContain(key);

    // Every request: a refused first List only costs a look by id (the operation's own answer decides).
    sim.inject({ kind: 'echo-key', status: 400 }, { times: Infinity });
    const failed = await runAction({
      ...inputs(sim, { api_key: key, operation_id: op.id }),
      env: { RUNNER_DEBUG: '1' }
    });
    expect(failed.code).toBe(1);
    expect(failed.everything).toContain('Bearer ***');
    expect(failed.everything).not.toContain(key);
  });
});

describe('hostile or odd data from the API', () => {
  it('keeps the key out of the summary even in escaped or shortened form', async () => {
    const key = `napi_${uuid().replace(/-/g, '')}_x:y$z`;
    const op = operation(PROJECT, 'create_branch', [[-100, 'finished']]);
    sim = await simulate({
      keys: { [key]: { kind: 'personal', user: 'user-1' } },
      projects: [{ id: PROJECT, name: 'p', owner_id: 'user-1' }],
      operations: [op]
    });
    // Every request: a refused first List only costs a look by id (the operation's own answer decides).
    sim.inject({ kind: 'echo-key', status: 400 }, { times: Infinity });
    const run = await runAction(
      inputs(sim, { api_key: key, operation_id: op.id, summary_limit: '5' })
    );
    expect(run.code).toBe(1);
    expect(run.summary).toContain('Bearer &#42;&#42;&#42;');
    for (const form of [key, escapeText(key), key.slice(0, 20), key.slice(-20)]) {
      expect(run.everything).not.toContain(form);
    }
  });

  it('breaks a legacy ##[command] anywhere in a line of API text', async () => {
    const op = operation(PROJECT, 'apply_config', [
      [-100, 'error', { error: 'db x ##[stop-commands]tok1 and ##[add-mask]abc' }]
    ]);
    sim = await simulate([op]);
    const run = await runAction(inputs(sim, { operation_id: op.id }));
    expect(run.stdout).not.toContain('##[');
    expect(run.stdout).toContain('## [stop-commands]tok1');
    expect(workflowCommands(run.stdout).filter((l) => l.startsWith('::error::'))).toHaveLength(1);
  });

  it('survives impossible dates, durations and an error that is not a string', async () => {
    const op = operation(PROJECT, 'create_branch', [[-100, 'finished']], {
      extra: { created_at: '+275760-09-13T00:00:00Z', total_duration_ms: 1e16, error: { code: 7 } }
    });
    sim = await simulate([op]);
    const run = await runAction(inputs(sim, { operation_id: op.id, summary_limit: '5' }));
    expect(run.code).toBe(0);
    expect(run.outputs.status).toBe('finished');
    expect(run.summary).toContain('Neon operations: finished');
    expect(run.summary).toContain('{&quot;code&quot;&#58;7}');
  });

  it('refuses a proxy variable it cannot read, with every output set', async () => {
    sim = await simulate([]);
    const run = await runAction({
      ...inputs(sim, { operation_id: uuid() }),
      env: { HTTPS_PROXY: 'not a url' }
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /::error::HTTPS_PROXY \/ HTTP_PROXY does not hold a usable proxy URL/
    );
    expect(run.outputs.status).toBe('input_error');
    expect(sim.requests).toHaveLength(0);
  });
});

describe('hardening: what an attacker or a broken runner could do to the bytes the step writes', () => {
  it('keeps every line, annotation and output bounded and on one line when the API sends 5 MB', async () => {
    const huge = `${'x'.repeat(2_500_000)}\n::error::forged\n${'y'.repeat(2_500_000)}`;
    const op = operation(PROJECT, 'apply_config', [[-100, 'error', { error: huge }]]);
    sim = await simulate([op]);
    const run = await runAction(inputs(sim, { operation_id: op.id, summary_limit: '5' }));
    // The same, from an error answer of the API (its `message`).
    sim.inject({ kind: 'status', status: 400, message: huge }, { times: Infinity });
    const refused = await runAction(inputs(sim, { operation_id: op.id, summary_limit: '5' }));
    expect(refused.outputs.status).toBe('api_error');
    for (const each of [run, refused]) {
      expect(each.code).toBe(1);
      const longest = Math.max(...each.stdout.split('\n').map((line) => line.length));
      expect(longest).toBeLessThan(20_000);
      expect(workflowCommands(each.stdout).filter((l) => l.includes('forged'))).toEqual([]);
      expect(each.outputs.operations?.length).toBeLessThan(20_000);
      expect(Buffer.byteLength(each.summary)).toBeLessThan(100_000);
    }
  });

  it('folds bidirectional controls and line separators out of the log, summary and outputs', async () => {
    const tricky = 'safe\u202Edesrever\u2066iso\u2069 line\u2028sep\u2029para';
    const op = operation(PROJECT, 'apply_config', [[-100, 'error', { error: tricky }]]);
    sim = await simulate([op]);
    const run = await runAction(inputs(sim, { operation_id: op.id, summary_limit: '5' }));
    const written = [run.stdout, run.summary].join('\n');
    expect(written).toContain('safe desrever iso');
    expect(written).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u2028\u2029]/);
  });
});
