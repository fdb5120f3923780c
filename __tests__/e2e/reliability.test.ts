import { afterEach, describe, expect, it } from '@jest/globals';
import { operation } from '../../simulator/scenario.js';
import type { Simulator } from '../../simulator/server.js';
import { runAction, workflowCommands } from '../helpers/run-action.js';
import { countedInputs, PROJECT, simulate } from '../helpers/sim.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const inputs = (s: Simulator, more: Record<string, string>) =>
  countedInputs(s, { project_id: PROJECT, timeout: '30s', ...more });

// The faults, bad input, the key and hostile data run in-process, with the same assertions:
// __tests__/in-process/reliability.test.ts. Here what only a spawned run shows.
describe('cancellation', () => {
  it('stops polling on SIGINT, sets the outputs, writes the summary and exits quickly', async () => {
    const op = operation(PROJECT, 'create_branch', [[0, 'running']]);
    sim = await simulate([op]);
    const s = sim;
    // interval 1m: after its third check (0, 0.6, 1.5 s) the action sleeps until 3 s.
    let requestsAtSignal = 0;
    const run = await runAction({
      ...inputs(sim, { operation_id: op.id, timeout: '5m', interval: '1m' }),
      signalWhen: {
        signal: 'SIGINT',
        when: () => {
          requestsAtSignal = s.requests.length;
          return requestsAtSignal >= 3;
        }
      }
    });
    expect(run.signal).toBeNull();
    expect(run.signalToExitMs).toBeLessThan(2000);
    expect(run.outputs.status).toBe('aborted');
    expect(run.outputs.timed_out).toBe('false');
    expect(JSON.parse(run.outputs.operations as string)[0].status).toBe('running');
    expect(run.summary).toContain('interrupted');
    expect(run.summary).toContain(op.id.slice(0, 8));
    expect(sim.requests).toHaveLength(requestsAtSignal);
  });

  it('also stops on SIGTERM', async () => {
    const op = operation(PROJECT, 'create_branch', [[0, 'running']]);
    sim = await simulate([op]);
    const run = await runAction({
      ...inputs(sim, { operation_id: op.id, timeout: '5m' }),
      // After the action's first log line.
      signalWhen: { signal: 'SIGTERM', when: (stdout) => stdout.includes('\n') }
    });
    expect(run.signalToExitMs).toBeLessThan(2000);
    expect(run.outputs.status).toBe('aborted');
  });
});

describe("the runner's files", () => {
  it('still states the verdict, and fails the step, when the outputs file cannot be written', async () => {
    const op = operation(PROJECT, 'start_compute', [[-100, 'error', { error: 'no capacity' }]]);
    sim = await simulate([op]);
    // A directory where the runner's output file should be: every write fails (EISDIR).
    const run = await runAction({
      ...inputs(sim, { operation_id: op.id }),
      env: { GITHUB_OUTPUT: '/', GITHUB_STEP_SUMMARY: '/' }
    });
    expect(run.code).toBe(1);
    const commands = workflowCommands(run.stdout);
    expect(commands.some((l) => /^::warning.*Could not set the outputs/.test(l))).toBe(true);
    expect(commands.some((l) => /^::warning.*Could not write the job summary/.test(l))).toBe(true);
    expect(commands.filter((l) => l.startsWith('::error'))).toEqual([
      expect.stringMatching(/start_compute .* is error .*no capacity/)
    ]);
    expect(run.stdout).not.toMatch(/Unexpected failure/);
  });
});
