/**
 * The locked-case peers do what their sources do (bench/locked.ts cites them): counted in
 * requests and branches, never in time.
 */
import { describe, expect, it } from '@jest/globals';
import {
  actionRequestPeer,
  createBranchActionPeer,
  neonctlPeer,
  runLocked,
  terraformPeer
} from './locked.js';
import { TEST_OPERATION_MS } from '../__tests__/helpers/sim.js';

const forever: [number, number] = [0, Infinity];

describe('the locked-case peers', () => {
  it('neonctl sends 5 POSTs to a project locked for good, then gives up', async () => {
    const run = await runLocked({ peer: neonctlPeer, jobs: 1, lockMs: forever, limitMs: 600_000 });
    expect(run.jobs[0]).toMatchObject({ ending: 'error', detail: 'HTTP 423 after 5 tries' });
    expect([run.posts, run.locked, run.created]).toEqual([5, 5, 0]);
  });

  it('the Terraform provider sends 120 POSTs, then gives up', async () => {
    const run = await runLocked({
      peer: terraformPeer,
      jobs: 1,
      lockMs: forever,
      limitMs: 600_000
    });
    expect(run.jobs[0]?.ending).toBe('error');
    expect([run.posts, run.locked]).toEqual([120, 120]);
  });

  it('create-branch-action v6 fails on the first 423', async () => {
    const run = await runLocked({
      peer: createBranchActionPeer,
      jobs: 1,
      lockMs: forever,
      limitMs: 600_000
    });
    expect(run.jobs[0]).toMatchObject({ ending: 'error', detail: 'HTTP 423' });
    expect(run.posts).toBe(1);
  });

  it('a reset after the POST was applied: each sends it once, and one branch exists', async () => {
    for (const peer of [neonctlPeer, terraformPeer, createBranchActionPeer]) {
      const run = await runLocked({
        peer,
        jobs: 1,
        limitMs: 60_000,
        prepare: (sim) => sim.inject({ kind: 'reset-after-apply' }, { times: 1, method: 'POST' })
      });
      expect(run.jobs[0]?.ending).toBe('error');
      expect([run.posts, run.created]).toEqual([1, 1]);
    }
  });

  it('10 jobs at once: the Terraform provider creates all 10 once each', async () => {
    // Each job's operations lock the project for the next: short ones make the queue short, and
    // its 100 ms polls and 1 s retries fewer (requests are this test's CPU).
    const operationMs = TEST_OPERATION_MS;
    const run = await runLocked({ peer: terraformPeer, jobs: 10, limitMs: 600_000, operationMs });
    expect([run.created, run.names]).toEqual([10, 10]);
    expect(run.locked).toBeGreaterThan(0); // the jobs did meet each other's lock
  });

  it('this action: one POST after a reset (unconfirmed), and a timeout on an endless lock', async () => {
    const reset = await runLocked({
      peer: actionRequestPeer(60_000),
      jobs: 1,
      limitMs: 120_000,
      prepare: (sim) => sim.inject({ kind: 'reset-after-apply' }, { times: 1, method: 'POST' })
    });
    expect(reset.jobs[0]?.detail).toMatch(/^unconfirmed: /);
    expect([reset.posts, reset.created]).toEqual([1, 1]);
    const stuck = await runLocked({
      peer: actionRequestPeer(60_000),
      jobs: 1,
      lockMs: forever,
      limitMs: 600_000
    });
    expect(stuck.jobs[0]?.ending).toBe('timeout');
    expect(stuck.jobs[0]?.detail).toContain('locked by apply_config');
    expect(stuck.requests).toBeLessThanOrEqual(30);
  });
});
