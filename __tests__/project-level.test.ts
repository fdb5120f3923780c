/**
 * Operations on the project as a whole (no `branch_id`: the `epc_sync` a branch creation answers
 * since 2026), as each mode treats them, in-process on simulated time (see `helpers/in-process.ts`):
 * - operation ids: awaited like any other id given, whatever `branch_id` says;
 * - branch: part of the branch's place, followed and judged (they hold the project's lock, the
 *   branch's with it);
 * - compute: not the compute's own, so not followed;
 * - `watch_job` with `branch_id`: the job's own when created after its mark.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { operation, type OperationScript } from '../simulator/scenario.js';
import { InProcess } from './helpers/in-process.js';
import { PROJECT } from './helpers/sim.js';

let t: InProcess | undefined;
afterEach(async () => {
  await t?.dispose();
  t = undefined;
});

async function start(operations: OperationScript[]): Promise<InProcess> {
  t = await InProcess.start(operations);
  return t;
}

const base = { project_id: PROJECT, interval: '1s', timeout: '30s', summary_limit: '0' };
const BRANCH = 'br-new-a1b2c3d4';
const COMPUTE = 'ep-new-123456';

/**
 * A branch creation as the service answers it: the branch, its protection settings and its
 * compute end by 1.5 s; the project-level `epc_sync` runs on until `syncEnds`, ending `syncStatus`.
 */
function creation(syncEnds: number, syncStatus = 'finished', at = 0): OperationScript[] {
  const ofBranch = (action: string, ends: number, endpoint?: string) =>
    operation(
      PROJECT,
      action,
      [
        [at - 100, 'running'],
        [at + ends, 'finished']
      ],
      { branch_id: BRANCH, ...(endpoint && { endpoint_id: endpoint }) }
    );
  const sync = operation(PROJECT, 'epc_sync', [
    [at - 100, 'scheduling'],
    [at + 1500, 'running'],
    [at + syncEnds, syncStatus, syncStatus === 'error' ? { error: 'sync failed' } : {}]
  ]);
  return [
    ofBranch('create_branch', 1000),
    ofBranch('timeline_update_protected_config', 1200),
    ofBranch('start_compute', 1500, COMPUTE),
    sync
  ];
}

const actions = (ops: Array<{ action?: string }>): Array<string | undefined> =>
  ops.map((op) => op.action).sort();

describe('a project-level operation (no branch_id), mode by mode', () => {
  it('branch mode waits for it too: the branch is not ready while the project is locked', async () => {
    const s = await start(creation(6000));
    const { result } = await s.wait({ ...base, branch_id: BRANCH });
    expect(result).toMatchObject({ kind: 'project', status: 'idle' });
    expect(actions(result.operations)).toContain('epc_sync');
    expect(s.sim.requests.at(-1)?.at).toBeGreaterThanOrEqual(6000);
  });

  it('branch mode reads `branch_id: null` as no branch (not a branch called "null")', async () => {
    const ops = creation(6000);
    const sync = ops.find((op) => op.action === 'epc_sync') as OperationScript;
    sync.extra = { branch_id: null };
    const s = await start(ops);
    const { result } = await s.wait({ ...base, branch_id: BRANCH });
    expect(result.operations.find((op) => op.id === sync.id)).not.toHaveProperty('branch_id');
    expect(s.sim.requests.at(-1)?.at).toBeGreaterThanOrEqual(6000);
  });

  it('branch mode fails when it ends in error, naming it', async () => {
    const s = await start(creation(3000, 'error'));
    const { result } = await s.wait({ ...base, branch_id: BRANCH });
    expect(result.status).toBe('error');
    expect(result.failure).toMatch(
      new RegExp(
        `^Operation\\(s\\) of branch ${BRANCH} .* did not succeed: epc_sync .* is error .*sync failed`
      )
    );
  });

  it("branch mode still ignores another branch's operations", async () => {
    const other = operation(PROJECT, 'create_branch', [[-100, 'running']], {
      branch_id: 'br-other-00000000'
    });
    const s = await start([...creation(2000), other]);
    const { result } = await s.wait({ ...base, branch_id: BRANCH });
    expect(result.status).toBe('idle');
    expect(result.operations.map((op) => op.branch_id)).not.toContain('br-other-00000000');
  });

  it("compute mode leaves it out: it is not the compute's own", async () => {
    const s = await start(creation(20_000));
    const { result } = await s.wait({ ...base, endpoint_id: COMPUTE });
    expect(result).toMatchObject({ kind: 'endpoint', status: 'idle' });
    expect(actions(result.operations)).toEqual(['start_compute']);
    expect(result.finishedAt - s.time.epoch).toBeLessThan(5000);
  });

  it('operation ids await it when given, even with branch_id', async () => {
    const ops = creation(6000);
    const sync = ops.find((op) => op.action === 'epc_sync') as OperationScript;
    const s = await start(ops);
    const { result } = await s.wait({
      ...base,
      branch_id: BRANCH,
      operation_id: ops.map((op) => op.id).join(',')
    });
    expect(result).toMatchObject({ kind: 'operations', status: 'finished' });
    expect(result.operations.find((op) => op.id === sync.id)?.status).toBe('finished');
    expect(s.sim.requests.at(-1)?.at).toBeGreaterThanOrEqual(6000);
  });

  it("watch_job with branch_id follows the job's project-level operation in its post step", async () => {
    // The branch exists before the job (its id is known only then); the main step checks it.
    const made = operation(
      PROJECT,
      'create_branch',
      [
        [-60_000, 'running'],
        [-59_000, 'finished']
      ],
      {
        branch_id: BRANCH
      }
    );
    const s = await start([made]);
    const main = await s.wait({ ...base, branch_id: BRANCH, watch_job: 'true' });
    expect(main.result.status).toBe('watching');
    // The job's work on the branch starts 5 s later; another branch is busy all along.
    for (const op of creation(9000, 'error', 5000)) s.sim.addOperation(op);
    s.sim.addOperation(
      operation(PROJECT, 'create_branch', [[4900, 'running']], { branch_id: 'br-other-00000000' })
    );
    await s.time.run([s.time.clock.sleep(6000)], 10_000);
    const post = await s.post(main.jobMark!, { ...base, branch_id: BRANCH }, 2);
    expect(post.result.kind).toBe('job');
    expect(post.result.status).toBe('error');
    expect(post.result.failure).toMatch(/epc_sync .* is error .*sync failed/);
    expect(actions(post.result.operations)).toEqual([
      'create_branch',
      'epc_sync',
      'start_compute',
      'timeline_update_protected_config'
    ]);
  });
});
