import { afterEach, describe, expect, it } from '@jest/globals';
import { lock } from '../simulator/scenario.js';
import { resultFields } from '../src/outputs.js';
import { buildReport } from '../src/report/model.js';
import { renderSummary } from '../src/report/summary.js';
import { InProcess } from './helpers/in-process.js';
import { PROJECT } from './helpers/sim.js';

// The request input through `waitFor`, against the simulator's mutations, on simulated time.
const CREATE = {
  project_id: PROJECT,
  request: 'POST /projects/{project_id}/branches',
  body: '{"endpoints":[{"type":"read_write"}]}'
};

let run: InProcess | undefined;
afterEach(async () => {
  await run?.dispose();
  run = undefined;
});

const posts = (sim: InProcess['sim']) => sim.requests.filter((r) => r.method === 'POST');

describe('request: send, ride out 423, wait for what it started', () => {
  it("a timeout after a lock names the step's timeout, and is measured from the step's start", async () => {
    // Locked 10 s of a 30 s timeout, then operations of a minute: the wait ends at the step's
    // deadline, and says "the 30s timeout", not the 20 s the request left of it.
    run = await InProcess.start([lock(PROJECT, -1000, 11_000)], { operationMs: 60_000 });
    const { result, log } = await run.wait({ ...CREATE, timeout: '30s' });
    expect(result.status).toBe('timeout');
    expect(result.failure).toMatch(
      /the 30s timeout left no time for another check after the one at 2\d(\.\d)?s\./
    );
    expect(result.finishedAt - result.startedAt).toBeGreaterThan(28_000);
    expect(result.finishedAt - result.startedAt).toBeLessThanOrEqual(30_000);
    // The wait's first line says what the request left.
    expect(log.some((l) => /\(1\d(\.\d)?s left\)/.test(l))).toBe(true);
  });

  it('a 6 s lock: created once soon after the lock ends, then its operations awaited to the end', async () => {
    run = await InProcess.start([lock(PROJECT, -1000, 7000)]);
    const { result, log } = await run.wait(CREATE);
    expect(result.status).toBe('finished');
    expect(result.request).toMatchObject({
      status: 201,
      holders: [expect.stringMatching(/^apply_config .* since /)]
    });
    expect(result.request?.lockedMs).toBeGreaterThan(5000);
    const accepted = posts(run.sim).filter((r) => r.status === 201);
    expect(accepted).toHaveLength(1);
    expect(accepted[0]!.at).toBeLessThanOrEqual(6000 + 1000);
    expect(posts(run.sim).filter((r) => r.status === 423).length).toBeLessThanOrEqual(4);
    // The main branch and the one created: no duplicate.
    expect(run.sim.branches(PROJECT)).toHaveLength(2);
    expect(result.operations.length).toBeGreaterThan(0);
    expect(log.some((l) => /locked by apply_config/.test(l))).toBe(true);
    // The report says why too: the summary's line and the command's JSON.
    const report = buildReport(result, { waited: true, timeoutMs: 600_000, requests: 0 });
    expect(renderSummary(report)).toMatch(
      /Request <code>POST \/projects\/.*\/branches<\/code>: HTTP 201 after \d attempts · locked \d+(\.\d)?s by apply&#95;config .* since /
    );
    expect(resultFields(report).request_lock).toMatchObject({
      held_by: [expect.stringMatching(/^apply_config /)]
    });
    // The answer's passwords and URIs: `***` in the response, nowhere in the log.
    const uri = result.request?.databaseUrl ?? '';
    expect(uri).toMatch(/^postgres(ql)?:\/\//);
    const password = new URL(uri).password;
    expect(JSON.stringify(result.request?.response)).not.toContain(password);
    expect(result.request?.response).toMatchObject({
      connection_uris: [{ connection_uri: '***', connection_parameters: { password: '***' } }]
    });
    expect(log.join('\n')).not.toContain(password);
  });

  it('10 jobs create a branch each in one project at once: each created once, a bounded pace', async () => {
    run = await InProcess.start([]);
    const waited = await run.waitAll(Array.from({ length: 10 }, () => CREATE));
    expect(waited.map((w) => w.result.status)).toEqual(Array(10).fill('finished'));
    expect(run.sim.branches(PROJECT)).toHaveLength(11);
    const minutes = Math.max(1, run.sim.now() / 60_000);
    expect(run.sim.requests.length / minutes).toBeLessThanOrEqual(700);
  });

  it('a lock that never ends: timeout at the deadline naming the holder, at most 30 requests', async () => {
    run = await InProcess.start([lock(PROJECT, -1000, Infinity)]);
    const { result, requests } = await run.wait({ ...CREATE, timeout: '1m' });
    expect(result.status).toBe('timeout');
    expect(result.failure).toMatch(/locked by apply_config/);
    // What happened to the request is reported although none was accepted.
    expect(result.request).toMatchObject({ holders: [expect.any(String)] });
    expect(result.request?.status).toBeUndefined();
    expect(result.request?.attempts).toBeGreaterThan(0);
    expect(requests).toBeLessThanOrEqual(30);
  });

  it('a lock that ends 4 s before the deadline: not sent, no branch left behind, a timeout saying why', async () => {
    run = await InProcess.start([lock(PROJECT, -1000, 17_000)]);
    const before = run.sim.branches(PROJECT).length;
    const { result } = await run.wait({ ...CREATE, timeout: '20s' });
    expect(result.status).toBe('timeout');
    expect(result.failure).toMatch(
      /POST \/projects\/.*\/branches not sent: \d(\.\d)?s left, a create_branch needs at least 5s to be waited for\. Give it more time with input .timeout.\.$/
    );
    expect(posts(run.sim).filter((r) => r.status === 201)).toHaveLength(0);
    expect(run.sim.branches(PROJECT)).toHaveLength(before);
  });

  it('a reset after the POST was applied: never sent again, status unconfirmed', async () => {
    run = await InProcess.start([]);
    run.sim.inject({ kind: 'reset-after-apply' }, { method: 'POST', times: 1 });
    const before = run.sim.branches(PROJECT).length;
    const { result } = await run.wait(CREATE);
    expect(result.status).toBe('unconfirmed');
    expect(result.request).toMatchObject({ attempts: 1 });
    expect(result.request?.status).toBeUndefined();
    expect(result.failure).toMatch(/may have been applied, so it is not sent again/);
    expect(posts(run.sim)).toHaveLength(1);
    expect(run.sim.branches(PROJECT)).toHaveLength(before + 1);
  });

  it('another error: no retry, the method and path named', async () => {
    run = await InProcess.start([]);
    run.sim.inject(
      { kind: 'status', status: 409, message: 'branch exists' },
      { method: 'POST', times: 1 }
    );
    const { result } = await run.wait(CREATE);
    expect(result.status).toBe('api_error');
    expect(result.failure).toMatch(
      /^The request POST \/projects\/.*\/branches was refused: HTTP 409/
    );
    expect(posts(run.sim)).toHaveLength(1);
  });
});
