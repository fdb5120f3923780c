/**
 * "The URL belongs to the branch", end to end: the action given `branch_id` and the URL of
 * another branch's compute (the mix-up of create-branch-action #27), written with a compute
 * group's host in its fully qualified form (a trailing dot), refuses it before connecting.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { operation, project } from '../../simulator/scenario.js';
import type { Simulator } from '../../simulator/server.js';
import { runAction } from '../helpers/run-action.js';
import { DEFAULT_KEY, PROJECT, simulate } from '../helpers/sim.js';

const MAIN = 'br-main-11111111';
const PREVIEW = 'br-calm-river-a1b2c3d4';
const MAIN_EP = 'ep-bold-sun-111111';
const PASSWORD = 'npg_e2eSecret42';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe('database_url and branch_id', () => {
  it("refuses another branch's compute URL as database_error, naming both branches, without connecting", async () => {
    sim = await simulate({
      keys: { [DEFAULT_KEY]: { kind: 'personal', user: 'user-1' } },
      projects: [project(PROJECT)],
      operations: [
        operation(
          PROJECT,
          'create_branch',
          [
            [-5000, 'running'],
            [-3000, 'finished']
          ],
          { branch_id: PREVIEW }
        )
      ],
      branches: [
        { id: MAIN, project_id: PROJECT, name: 'main', default: true, created: -60_000 },
        { id: PREVIEW, project_id: PROJECT, name: 'preview', parent_id: MAIN, created: -5000 }
      ],
      endpoints: [
        { id: MAIN_EP, project_id: PROJECT, branch_id: MAIN, created: -60_000, bindings: ['ffk'] }
      ]
    });
    const run = await runAction({
      inputs: {
        api_key: DEFAULT_KEY,
        api_host: sim.url,
        project_id: PROJECT,
        branch_id: PREVIEW,
        summary_limit: '0',
        timeout: '20s',
        database_url: `postgresql://neondb_owner:${PASSWORD}@${MAIN_EP}-ffk.c-5.us-east-2.aws.neon.tech./neondb?sslmode=require`
      }
    });
    expect(run.code).toBe(1);
    expect(run.outputs).toMatchObject({ status: 'database_error', database_ready: 'false' });
    expect(run.stdout).toContain(
      `input 'database_url' names endpoint ${MAIN_EP}, which belongs to branch ${MAIN}, not to input 'branch_id' ${PREVIEW}`
    );
    expect(run.stdout).not.toContain('Connecting to the database');
    expect(run.everything).not.toContain(PASSWORD);
    expect(sim.requests.map((r) => r.path)).toContain(`/api/v2/projects/${PROJECT}/endpoints`);
  });
});
