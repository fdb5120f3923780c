import { afterEach, describe, expect, it } from '@jest/globals';
import { operation } from '../../simulator/scenario.js';
import type { Simulator } from '../../simulator/server.js';
import { runAction } from '../helpers/run-action.js';
import { countedInputs, PROJECT, simulate } from '../helpers/sim.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const base = (s: Simulator, inputs: Record<string, string>) =>
  countedInputs(s, { timeout: '20s', ...inputs });

// The wait's outcomes, project mode and the API's errors are tested on the same step in-process
// (__tests__/in-process/wait.test.ts, same assertions): this is the bundle's run of one wait.
describe('waiting for operations (dist/index.js as the runner runs it)', () => {
  it('waits for the operations of a create-branch response and reports them', async () => {
    // One step per answer: the action sees every status, however soon it starts.
    const create = operation(
      PROJECT,
      'create_branch',
      [
        [0, 'running'],
        [1, 'finished']
      ],
      { branch_id: 'br-new-1', stepPerAnswer: true }
    );
    const start = operation(
      PROJECT,
      'start_compute',
      [
        [0, 'scheduling'],
        [1, 'running'],
        [2, 'finished']
      ],
      {
        branch_id: 'br-new-1',
        endpoint_id: 'ep-new-1',
        extra: { future_field: { kept: true } },
        stepPerAnswer: true
      }
    );
    sim = await simulate([create, start]);
    const response = {
      branch: { id: 'br-new-1' },
      operations: [sim.render(create), sim.render(start)]
    };
    const run = await runAction(base(sim, { operations: JSON.stringify(response) }));

    expect(run.code).toBe(0);
    expect(run.outputs.status).toBe('finished');
    expect(run.outputs.timed_out).toBe('false');
    expect(run.outputs.project_id).toBe(PROJECT);
    expect(run.outputs.failures_count).toBe('0');
    // It waited: start_compute was seen in progress, then finished.
    expect(Number(run.outputs.elapsed_seconds)).toBeGreaterThan(0.5);
    const ops = JSON.parse(run.outputs.operations as string) as Array<Record<string, unknown>>;
    expect(ops.map((o) => [o.action, o.status])).toEqual([
      ['create_branch', 'finished'],
      ['start_compute', 'finished']
    ]);
    expect(ops[1]?.future_field).toEqual({ kept: true });
    expect(JSON.parse(run.outputs.operation as string).id).toBe(create.id);
    // One line per status change, with the short id.
    expect(run.stdout).toMatch(
      new RegExp(`start_compute ${start.id.slice(0, 8)} scheduling → running`)
    );
    expect(run.stdout).toMatch(
      new RegExp(`start_compute ${start.id.slice(0, 8)} running → finished`)
    );
    expect(run.stdout).toMatch(
      new RegExp(`create_branch ${create.id.slice(0, 8)} running → finished`)
    );
    // Two open operations of one project: one List request per check, not one Get each;
    // once only one is open, one Get. Either way, one request per check.
    expect(sim.requests[0]?.path).toBe(`/api/v2/projects/${PROJECT}/operations`);
    expect(sim.requests.length).toBeGreaterThanOrEqual(3);
    const gaps = sim.requests.slice(1).map((r, i) => r.at - (sim?.requests[i]?.at ?? 0));
    expect(Math.min(...gaps)).toBeGreaterThan(100);
    expect(run.summary).toContain('Neon operations: finished');
    expect(run.outputs.summary?.trim()).toBe(run.summary.trim());
    expect(run.summary).toContain(start.id.slice(0, 8));
  });
});
