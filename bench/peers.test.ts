/**
 * The peer harness against the simulator: what `@neon/sdk`'s real code does when it waits (its
 * `operations.waitFor` gives up on `failed`, and on the first 503 of a poll although the client
 * retries 503 elsewhere), and that simulated time gives the figures real time gives.
 */
import { describe, expect, it } from '@jest/globals';
import { lifeRows } from './branch-life.js';
import { createNeonClient } from '@neon/sdk';
import { DEFAULT_KEY, operation, singleProject } from '../simulator/scenario.js';
import { startSimulator } from '../simulator/server.js';
import {
  actionPeer,
  createBranchActionV6,
  type JobResult,
  neonCliPeer,
  type JobSpec,
  runPeer,
  sdkPeer,
  smithyPeer,
  terraformLoopPeer
} from './peers.js';
import type { Simulator } from '../simulator/server.js';
import { VirtualTime } from '../simulator/virtual-time.js';
import { OUR_SIDE, PREVIEW_NAME, runPreview } from './preview.js';

const PROJECT = 'peer-project-1';
const job = (...timeline: Parameters<typeof operation>[2]): JobSpec[] => [
  {
    key: DEFAULT_KEY,
    projectId: PROJECT,
    startAt: 0,
    operations: [operation(PROJECT, 'apply_config', timeline)]
  }
];
const FAILED_THEN_RETRIED = job(
  [-100, 'running'],
  [4000, 'failed', { failures_count: 1, error: 'compute did not respond in time' }],
  [10_000, 'running', { failures_count: 1 }],
  [16_000, 'finished', { failures_count: 1 }]
);

describe('@neon/sdk operations.waitFor against the simulator', () => {
  it('gives up on `failed` at once, though the control plane retries and finishes it', async () => {
    const run = await runPeer({ peer: sdkPeer, jobs: FAILED_THEN_RETRIED, limitMs: 60_000 });
    const result = run.jobs[0] as JobResult;
    expect(result).toMatchObject({
      ending: 'failure',
      detail: 'NeonOperationError failed',
      waitedMs: 4000,
      statusesAtEnd: ['failed']
    });
    // One Get a second, the first after a second.
    expect(run.requests).toBe(4);
    // The action keeps waiting and sees it finish.
    const ours = await runPeer({ peer: actionPeer(), jobs: FAILED_THEN_RETRIED, limitMs: 60_000 });
    expect(ours.jobs[0]?.ending).toBe('success');
    expect(ours.jobs[0]?.statusesAtEnd).toEqual(['finished']);
    // And the Terraform loop calls it done while it is still failed.
    const loop = await runPeer({
      peer: terraformLoopPeer,
      jobs: FAILED_THEN_RETRIED,
      limitMs: 60_000
    });
    expect(loop.jobs[0]).toMatchObject({ ending: 'success', statusesAtEnd: ['failed'] });
  });

  it('ends the wait on the first 503 of a poll, while its client retries 503 on a plain get', async () => {
    const operations = job([-100, 'running'], [10_000, 'finished']);
    const run = await runPeer({
      peer: sdkPeer,
      jobs: operations,
      prepare: (sim) => sim.inject({ kind: 'status', status: 503 }, { times: 1, skip: 1 }),
      limitMs: 60_000
    });
    expect(run.jobs[0]).toMatchObject({
      ending: 'error',
      detail: 'NeonApiError 503',
      waitedMs: 2000
    });
    expect(run.requests).toBe(2);

    // The same client's `operations.get` goes through withRetries: two 503s, then the answer.
    const op = operations[0]?.operations[0];
    const time = new VirtualTime(Date.UTC(2026, 0, 1));
    const sim = await startSimulator({
      scenario: singleProject(PROJECT, op ? [op] : []),
      clock: () => time.elapsed(),
      epoch: time.epoch
    });
    try {
      sim.inject({ kind: 'status', status: 503 }, { times: 2 });
      const neon = createNeonClient({ apiKey: DEFAULT_KEY, baseUrl: sim.url, fetch: time.fetch });
      const [got] = await time.run(
        [neon.operations.get({ projectId: PROJECT, operationId: String(op?.id) })],
        60_000
      );
      expect(got?.error).toBeUndefined();
      expect(got?.data?.id).toBe(op?.id);
      expect(sim.requests.map((r) => r.status)).toEqual([503, 503, 200]);
    } finally {
      await sim.close();
      time.dispose();
    }
  });
});

describe('the Smithy-style waiter (waiters.rst, "Waiter retries")', () => {
  it('calls at once, then after random(2, 2·2^(attempt−1)) whole seconds, and succeeds on finished', async () => {
    let sim: Simulator | undefined;
    const run = await runPeer({
      peer: smithyPeer,
      jobs: job([-100, 'running'], [40_000, 'finished']),
      prepare: (s) => (sim = s),
      limitMs: 600_000
    });
    expect(run.jobs[0]?.ending).toBe('success');
    const times = (sim as Simulator | undefined)?.requests.map((r) => r.at) ?? [];
    expect(times[0]).toBe(0);
    expect(times[1]).toBe(2000);
    times.slice(1).forEach((at, i) => {
      const gap = at - (times[i] as number);
      expect(gap % 1000).toBe(0);
      expect(gap).toBeGreaterThanOrEqual(2000);
      expect(gap).toBeLessThanOrEqual(Math.min(120, 2 * 2 ** i) * 1000);
    });
  });

  it('ends on an error no acceptor matches (step 4 of the workflow)', async () => {
    const run = await runPeer({
      peer: smithyPeer,
      jobs: job([-100, 'running'], [10_000, 'finished']),
      prepare: (s) => s.inject({ kind: 'status', status: 503 }, { times: 1, skip: 1 }),
      limitMs: 60_000
    });
    expect(run.jobs[0]).toMatchObject({ ending: 'error', detail: 'HTTP 503', waitedMs: 2000 });
  });
});

describe('simulated time', () => {
  it('gives the SDK the requests and timing real time gives', async () => {
    const real = await startSimulator({
      scenario: singleProject(PROJECT, []),
      epoch: Date.UTC(2026, 0, 1)
    });
    try {
      const op = operation(PROJECT, 'create_branch', [
        [real.now() - 100, 'running'],
        [real.now() + 1500, 'finished']
      ]);
      real.addOperation(op);
      const neon = createNeonClient({ apiKey: DEFAULT_KEY, baseUrl: real.url });
      const started = Date.now();
      const { error } = await neon.operations.waitFor({
        operations: [real.render(op) as never]
      });
      expect(error).toBeUndefined();
      const gaps = real.requests.map((r) => r.at - (real.requests[0]?.at ?? 0));
      // Real time: polls at about 1 s and 2 s. Only the floors are asserted here (a timer never
      // fires early; how late it fires depends on how busy the machine is: 1560 ms once); the
      // exact timing is the simulated run's below.
      expect(real.requests).toHaveLength(2);
      expect(gaps[1]).toBeGreaterThanOrEqual(990);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1990);

      const simulated = await runPeer({
        peer: sdkPeer,
        jobs: job([-100, 'running'], [1500, 'finished']),
        limitMs: 60_000
      });
      expect(simulated.requests).toBe(2);
      expect(simulated.jobs[0]?.waitedMs).toBe(2000);
    } finally {
      await real.close();
    }
  });
});

/**
 * The preview-branch peers do what their sources do (bench/peers.ts cites them), counted in
 * endings and branches: found by name on a rerun, no retry of a lost answer or a 409, neonctl's
 * 423 retries, and a closing job that fails once the branch is gone.
 */
describe('the preview-branch peers', () => {
  it('a PR run 3 times then closed twice: both reuse the branch; the second close fails', async () => {
    for (const peer of [createBranchActionV6, neonCliPeer]) {
      const run = await runPreview(peer, 'workflow');
      expect(run.creates.map((job) => [job?.ending, job?.created])).toEqual([
        ['success', true],
        ['success', false],
        ['success', false]
      ]);
      expect(new Set(run.creates.map((job) => job?.branchId)).size).toBe(1);
      expect([run.branches, run.left]).toEqual([1, 0]);
      expect(run.closes.map((job) => job?.ending)).toEqual(['success', 'error']);
      expect(run.closes[1]?.detail).toBe(`Branch ${PREVIEW_NAME} not found`);
    }
  });

  it('the answer lost after the create was applied: the job fails, the branch exists', async () => {
    for (const peer of [createBranchActionV6, neonCliPeer]) {
      const run = await runPreview(peer, 'lost answer');
      expect(run.creates[0]?.ending).toBe('error');
      expect(run.branches).toBe(1);
    }
  });

  it('10 jobs at once: one creates the branch, the nine others fail on 409', async () => {
    for (const peer of [createBranchActionV6, neonCliPeer]) {
      const run = await runPreview(peer, 'ten at once');
      expect(run.branches).toBe(1);
      expect(run.creates.filter((job) => job?.ending === 'success')).toHaveLength(1);
      expect(run.creates.filter((job) => job?.detail === 'create: HTTP 409')).toHaveLength(9);
    }
  });

  it('locked 6 s: create-branch-action fails on the 423; neon retries 3 s apart, accepted at 6 s', async () => {
    const action = await runPreview(createBranchActionV6, 'locked');
    expect(action.creates[0]).toMatchObject({ ending: 'error', detail: 'create: HTTP 423' });
    expect(action.branches).toBe(0);
    const cli = await runPreview(neonCliPeer, 'locked');
    expect(cli.creates[0]).toMatchObject({ ending: 'success', created: true });
    // POSTs at 0, 3 and 6 s; the lock ends at 6 s.
    expect(cli.createdAt).toBe(6000);
  });
});

describe("this action's side of the preview-branch cases meets issue 35's goals", () => {
  it('the workflow: 3 green runs, 1 branch, deleted at close, the closing job green twice', async () => {
    const run = await runPreview(OUR_SIDE, 'workflow');
    expect(run.creates.map((job) => [job?.ending, job?.created])).toEqual([
      ['success', true],
      ['success', false],
      ['success', false]
    ]);
    expect([run.branches, run.left]).toEqual([1, 0]);
    expect(run.closes.map((job) => job?.ending)).toEqual(['success', 'success']);
  });

  it('the answer lost: green, created: true, 1 branch; 10 at once: 10 green with one id', async () => {
    const lost = await runPreview(OUR_SIDE, 'lost answer');
    expect(lost.creates[0]).toMatchObject({ ending: 'success', created: true });
    expect(lost.branches).toBe(1);
    const ten = await runPreview(OUR_SIDE, 'ten at once');
    expect(ten.creates.filter((job) => job?.ending === 'success')).toHaveLength(10);
    expect(new Set(ten.creates.map((job) => job?.branchId)).size).toBe(1);
    expect(ten.creates.filter((job) => job?.created === true)).toHaveLength(1);
    expect(ten.branches).toBe(1);
  });

  it('locked 6 s: accepted within 1 s after the lock', async () => {
    const run = await runPreview(OUR_SIDE, 'locked');
    expect(run.creates[0]?.ending).toBe('success');
    expect(run.createdAt).toBeGreaterThanOrEqual(6000);
    expect(run.createdAt).toBeLessThanOrEqual(7000);
  });
});

describe("a preview branch's life (bench/branch-life.ts): reset on a push, the branch limit", () => {
  it('reset-branch-action resets without waiting and hands on the default branch URL; this action waits, same id, its URL', async () => {
    const rows = await lifeRows();
    const [ours, firstReset, peer, ourLimit, peerLimit] = rows.map((row) => row[2] ?? '');
    expect(ours).toMatch(
      /^success; reset from the parent's head; ended \d+\.\d s after the restore's operations; same id; the URL is the branch's$/
    );
    expect(firstReset).toMatch(/^success; reset from the parent's head; ended .* after/);
    expect(peer).toMatch(
      /before the restore's operations \(not waited\); same id; the URL is main's$/
    );
    expect(ourLimit).toMatch(
      /plan allows 10\. Nothing was deleted.*names the limit and the candidates; 10 → 10 branches, 0 DELETE$/
    );
    expect(peerLimit).toMatch(/^error: "create: HTTP 422"; names neither/);
  });
});
