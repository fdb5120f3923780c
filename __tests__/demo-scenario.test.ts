import { afterEach, describe, expect, it } from '@jest/globals';
import { branchCreation } from '../simulator/scenario.js';
import { InProcess } from './helpers/in-process.js';

// The demo's scenario (`npm run demo`, `npm run simulator`), waited for on simulated time.
let run: InProcess | undefined;
afterEach(async () => {
  await run?.dispose();
  run = undefined;
});

async function waitFor(fail: boolean) {
  const { scenario, createBranch, startCompute } = branchCreation(undefined, { fail });
  run = await InProcess.start(scenario);
  const { result } = await run.wait({
    project_id: createBranch.project_id,
    operation_id: `${createBranch.id},${startCompute.id}`
  });
  return result;
}

describe('the demo scenario', () => {
  it('finishes by default', async () => {
    expect((await waitFor(false)).status).toBe('finished');
  });

  it('with --fail, start_compute ends in error, and so does the wait', async () => {
    const result = await waitFor(true);
    expect(result.status).toBe('error');
    expect(result.operations.map((op) => [op.action, op.status])).toEqual(
      expect.arrayContaining([
        ['create_branch', 'finished'],
        ['start_compute', 'error']
      ])
    );
  });
});

describe('the simulator a newcomer tries (issue 44, item 20)', () => {
  it('creates preview/pr-42, the name the docs give, instead of reusing a branch of its own', async () => {
    const { scenario, createBranch } = branchCreation();
    run = await InProcess.start(scenario);
    const { result } = await run.wait({
      project_id: createBranch.project_id,
      create_branch: 'preview/pr-42'
    });
    expect(result.status).toBe('finished');
    expect(result.request?.branch).toMatchObject({ name: 'preview/pr-42', outcome: 'created' });
  });
});
