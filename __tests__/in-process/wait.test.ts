/**
 * The wait's outcomes through the action's step as the runner sees it (log, outputs, summary),
 * run in-process (`runInProcess`): moved from `__tests__/e2e/wait.test.ts` with the same
 * assertions; the bundle's own run of a wait (a create-branch response's operations) stays there.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
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

const base = (s: Simulator, inputs: Record<string, string>) =>
  countedInputs(s, { timeout: '20s', ...inputs });

describe("waiting for operations (the action's step in-process)", () => {
  it('waits for one operation id with Get operation, after a first check that lists the history', async () => {
    const op = operation(
      PROJECT,
      'apply_config',
      [
        [0, 'running'],
        [500, 'finished']
      ],
      { branch_id: 'br-a' }
    );
    sim = await simulate([op]);
    const run = await runAction(base(sim, { operation_id: op.id, project_id: PROJECT }));
    expect(run.code).toBe(0);
    expect(run.outputs.status).toBe('finished');
    const [first, ...rest] = sim.requests;
    expect(first?.route).toBe('GET /projects/{project_id}/operations');
    expect(rest.length).toBeGreaterThan(0);
    expect(rest.every((r) => r.path === `/api/v2/projects/${PROJECT}/operations/${op.id}`)).toBe(
      true
    );
  });

  it('fails naming the operation that ended in error, with its failures and error text', async () => {
    const ok = operation(PROJECT, 'create_branch', [
      [0, 'running'],
      [500, 'finished']
    ]);
    const bad = operation(PROJECT, 'start_compute', [
      [0, 'scheduling'],
      [300, 'failed', { failures_count: 1, error: 'compute quota exceeded' }],
      [500, 'error', { failures_count: 3, error: 'compute quota exceeded' }]
    ]);
    sim = await simulate([ok, bad]);
    const run = await runAction(
      base(sim, { operation_id: `${ok.id}, ${bad.id}`, project_id: PROJECT })
    );
    expect(run.code).toBe(1);
    expect(run.outputs.status).toBe('error');
    expect(run.outputs.failures_count).toBe('3');
    const [error] = workflowCommands(run.stdout).filter((l) => l.startsWith('::error::'));
    expect(error).toContain(
      `start_compute ${bad.id} is error (failures_count 3): compute quota exceeded`
    );
    expect(run.stdout + run.stderr).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/); // no stack trace
  });

  it('ends as failed at once with fail_fast', async () => {
    // Without fail_fast the wait goes on through failed: see decisions.test.ts.
    const op = operation(PROJECT, 'apply_config', [
      [0, 'running'],
      [300, 'failed', { failures_count: 1, error: 'transient' }],
      [60_000, 'finished', { failures_count: 1 }]
    ]);
    sim = await simulate([op]);
    const fast = await runAction(
      base(sim, { operation_id: op.id, project_id: PROJECT, fail_fast: 'true' })
    );
    expect(fast.outputs.status).toBe('failed');
    expect(fast.code).toBe(1);
    expect(fast.stdout).toMatch(/running → failed \(failures: 1\) — .*error: transient/);
  });

  it.each([
    ['cancelled', 1],
    ['skipped', 0]
  ])('ends on %s', async (status, code) => {
    const op = operation(PROJECT, 'suspend_compute', [
      [0, 'running'],
      [300, status]
    ]);
    sim = await simulate([op]);
    const run = await runAction(base(sim, { operation_id: op.id, project_id: PROJECT }));
    expect(run.outputs.status).toBe(status);
    expect(run.code).toBe(code);
  });

  it('times out at the deadline naming what is still pending and its last status', async () => {
    const op = operation(PROJECT, 'create_branch', [[0, 'running']]);
    sim = await simulate([op]);
    const run = await runAction(
      base(sim, { operation_id: op.id, project_id: PROJECT, timeout: '1s' })
    );
    expect(run.code).toBe(1);
    expect(run.outputs.status).toBe('timeout');
    expect(run.outputs.timed_out).toBe('true');
    expect(run.stdout).toContain(
      `Still waiting for create_branch ${op.id} (last status running): the 1s timeout`
    );
    expect(Number(run.outputs.elapsed_seconds)).toBeLessThanOrEqual(1.3);
    expect(run.summary).toContain('Neon operations: timed out');
  });

  it('warns once about an unknown status and keeps waiting', async () => {
    const op = operation(PROJECT, 'promote_replica', [
      [0, 'warming_up'],
      [500, 'finished']
    ]);
    sim = await simulate([op]);
    const run = await runAction(base(sim, { operation_id: op.id, project_id: PROJECT }));
    expect(run.outputs.status).toBe('finished');
    expect(
      workflowCommands(run.stdout).filter(
        (l) => l.startsWith('::warning') && l.includes('warming_up')
      )
    ).toHaveLength(1);
  });

  it('with wait: false reports the current state and succeeds', async () => {
    const op = operation(PROJECT, 'create_branch', [
      [0, 'running'],
      [60_000, 'finished']
    ]);
    sim = await simulate([op]);
    const run = await runAction(
      base(sim, { operation_id: op.id, project_id: PROJECT, wait: 'false' })
    );
    expect(run.code).toBe(0);
    expect(run.outputs.status).toBe('running');
    expect(sim.requests).toHaveLength(1);
  });
});

describe('project mode', () => {
  it('waits until no operation of the project is in progress', async () => {
    const a = operation(
      PROJECT,
      'create_branch',
      [
        [-500, 'running'],
        [800, 'finished']
      ],
      { branch_id: 'br-a' }
    );
    const b = operation(
      PROJECT,
      'start_compute',
      [
        [-500, 'scheduling'],
        [1000, 'finished']
      ],
      { branch_id: 'br-a' }
    );
    const old = operation(PROJECT, 'check_availability', [
      [-60_000, 'running'],
      [-59_000, 'finished']
    ]);
    sim = await simulate([a, b, old]);
    const run = await runAction(base(sim, { project_id: PROJECT }));
    expect(run.code).toBe(0);
    expect(run.outputs.status).toBe('idle');
    expect(
      JSON.parse(run.outputs.operations as string)
        .map((o: { id: string }) => o.id)
        .sort()
    ).toEqual([a.id, b.id].sort());
    // It kept looking until the later one ended (1 s on the simulator's clock).
    expect(sim.requests.at(-1)?.at).toBeGreaterThanOrEqual(1000);
  });

  it('with branch_id waits only for that branch', async () => {
    const mine = operation(
      PROJECT,
      'start_compute',
      [
        [-100, 'running'],
        [500, 'finished']
      ],
      { branch_id: 'br-mine' }
    );
    const theirs = operation(PROJECT, 'create_branch', [[-100, 'running']], {
      branch_id: 'br-theirs'
    });
    sim = await simulate([mine, theirs]);
    const run = await runAction(base(sim, { project_id: PROJECT, branch_id: 'br-mine' }));
    expect(run.code).toBe(0);
    expect(run.outputs.status).toBe('idle');
    expect(Number(run.outputs.elapsed_seconds)).toBeLessThan(5);
  });

  it('reports busy with wait: false', async () => {
    const op = operation(PROJECT, 'create_branch', [[-100, 'running']]);
    sim = await simulate([op]);
    const run = await runAction(base(sim, { project_id: PROJECT, wait: 'false' }));
    expect(run.code).toBe(0);
    expect(run.outputs.status).toBe('busy');
  });

  it('finds the only project the key can see', async () => {
    sim = await simulate([]);
    const run = await runAction(base(sim, {}));
    expect(run.code).toBe(0);
    expect(run.outputs.project_id).toBe(PROJECT);
    expect(run.outputs.status).toBe('idle');
    expect(sim.requests[0]?.path).toBe('/api/v2/projects');
  });

  it('lists the visible projects when the key sees several', async () => {
    sim = await simulate({
      keys: { [DEFAULT_KEY]: { kind: 'organization', org: 'org-a' } },
      projects: ['alpha-1', 'beta-2', 'gamma-3'].map((id) => ({
        id,
        name: id,
        owner_id: 'u',
        org_id: 'org-a'
      })),
      operations: []
    });
    const run = await runAction(base(sim, {}));
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /::error::Input 'project_id' is empty and the API key sees 3 projects: alpha-1 \(alpha-1\), beta-2/
    );
  });

  it('uses org_id to find the project with a personal key', async () => {
    sim = await simulate({
      keys: { [DEFAULT_KEY]: { kind: 'personal', user: 'u1', orgs: ['org-team'] } },
      projects: [{ id: 'team-proj-1', name: 'team', owner_id: 'u2', org_id: 'org-team' }],
      operations: []
    });
    const run = await runAction(base(sim, { org_id: 'org-team' }));
    expect(run.outputs.project_id).toBe('team-proj-1');
    expect(sim.requests[0]?.query.org_id).toBe('org-team');
  });
});

describe('errors', () => {
  it('stops at once on a refused key and never prints it', async () => {
    sim = await simulate([]);
    const key = `napi_${uuid().replace(/-/g, '')}`;
    const run = await runAction(base(sim, { api_key: key, project_id: PROJECT }));
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /::error::The API refused the key \(HTTP 401\): it is missing, invalid or revoked/
    );
    expect(sim.requests).toHaveLength(1);
    expect(run.everything).not.toContain(key);
    expect(run.outputs.status).toBe('api_error');
  });

  it('never lets API text become a workflow command', async () => {
    const op = operation(PROJECT, 'apply_config', [
      [-100, 'error', { error: 'boom\n::set-output name=status::finished\n::error::injected' }]
    ]);
    sim = await simulate([op]);
    const run = await runAction(base(sim, { operation_id: op.id, project_id: PROJECT }));
    const commands = workflowCommands(run.stdout);
    expect(commands.some((l) => l.startsWith('::set-output'))).toBe(false);
    expect(commands.filter((l) => l.startsWith('::error::'))).toHaveLength(1);
    expect(run.outputs.status).toBe('error');
  });
});
