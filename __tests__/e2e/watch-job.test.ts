/**
 * `watch_job` end to end: the main step and then the post step, each run as the runner runs them
 * (the same inputs; the post step gets what the main step saved in GITHUB_STATE as STATE_*), with
 * operations started between them, as a job's other steps would. Spawned from dist/ for what only
 * that shows (dist/post.js, a GITHUB_STATE that cannot be written); the other cases run the steps
 * in-process (`runInProcess`, which reads each run's pull request event), with the same assertions.
 */
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it } from '@jest/globals';
import { startFakeGitHub, type FakeGitHub } from '../../simulator/github.js';
import { DEFAULT_KEY, operation, project, seededBranches } from '../../simulator/scenario.js';
import type { Simulator } from '../../simulator/server.js';
import { DROP_COLUMN_AND_TABLE } from '../../simulator/schema-diffs.js';
import { runInProcess } from '../helpers/in-process-action.js';
import { runAction, workflowCommands } from '../helpers/run-action.js';
import { PROJECT, simulate } from '../helpers/sim.js';

let sim: Simulator | undefined;
let github: FakeGitHub | undefined;
afterEach(async () => {
  await sim?.close();
  await github?.close();
  sim = github = undefined;
});

const inputs = (s: Simulator, more: Record<string, string> = {}) => ({
  api_key: DEFAULT_KEY,
  api_host: s.url,
  project_id: PROJECT,
  watch_job: 'true',
  timeout: '30s',
  summary_limit: '5',
  ...more
});

/**
 * An operation the job starts now (on the simulator's clock), running for `ms`, then `end`. Not
 * later, even by 5 ms: an in-process post step can ask within that, and would not see it yet.
 */
function startedNow(s: Simulator, action: string, ms: number, end = 'finished', more = {}) {
  const at = s.now();
  return operation(PROJECT, action, [
    [at, 'running'],
    [at + ms, end, more]
  ]);
}

describe('watch_job', () => {
  it('returns at once, then the post step waits for what the job started and reports it', async () => {
    const before = operation(PROJECT, 'start_compute', [[-60_000, 'running']]);
    sim = await simulate([
      operation(PROJECT, 'create_branch', [
        [-5000, 'running'],
        [-4000, 'finished']
      ]),
      before
    ]);
    const main = await runAction({ inputs: inputs(sim) });
    expect(main.code).toBe(0);
    expect(main.outputs.status).toBe('watching');
    expect(main.summary).toBe('');
    expect(JSON.parse(main.state.job_mark ?? '{}')).toMatchObject({ projectId: PROJECT });
    expect(sim.requests).toHaveLength(1); // the newest page, for the mark

    // The job's next steps start work.
    const branch = startedNow(sim, 'create_branch', 1500);
    const compute = startedNow(sim, 'start_compute', 2500);
    sim.addOperation(branch);
    sim.addOperation(compute);

    const post = await runAction({ inputs: inputs(sim), state: main.state, step: 'post' });
    expect(post.code).toBe(0);
    expect(post.durationMs).toBeGreaterThan(2000);
    expect(post.summary).toContain('operations during this job');
    const section = post.summary.split('#### Operations during this job')[1] ?? '';
    expect(section).toContain(branch.id.slice(0, 8));
    expect(section).toContain(compute.id.slice(0, 8));
    // What was there before the job is not the job's, even while still running.
    expect(post.summary).not.toContain(before.id.slice(0, 8));
    expect(post.stdout).toMatch(/Following every operation this job started/);
  });

  it('fails the job, naming each operation of the job that did not succeed', async () => {
    sim = await simulate([]);
    const main = await runInProcess({ inputs: inputs(sim) });
    const ok = startedNow(sim, 'create_branch', 300);
    const bad = startedNow(sim, 'apply_config', 600, 'error', { error: 'role exists' });
    sim.addOperation(ok);
    sim.addOperation(bad);
    const post = await runInProcess({ inputs: inputs(sim), state: main.state, step: 'post' });
    expect(post.code).toBe(1);
    const [error] = workflowCommands(post.stdout).filter((l) => l.startsWith('::error'));
    expect(error).toMatch(new RegExp(`apply_config ${bad.id} is error .*role exists`));
    expect(error).not.toContain(ok.id);
  });

  it('waits for the given ids in the main step, and the post step covers the rest of the job', async () => {
    const awaited = operation(PROJECT, 'create_branch', [
      [0, 'running'],
      [400, 'finished']
    ]);
    sim = await simulate([awaited]);
    const main = await runInProcess({ inputs: inputs(sim, { operation_id: awaited.id }) });
    expect(main.outputs.status).toBe('finished');
    const later = startedNow(sim, 'apply_config', 500);
    sim.addOperation(later);
    const post = await runInProcess({
      inputs: inputs(sim, { operation_id: awaited.id }),
      state: main.state,
      step: 'post'
    });
    expect(post.code).toBe(0);
    const section = post.summary.split('#### Operations during this job')[1] ?? '';
    expect(section).toContain(later.id.slice(0, 8));
    expect(section).not.toContain(awaited.id.slice(0, 8));
  });

  it('scopes the job to branch_id', async () => {
    // The branch exists before the job (the main step checks it): it was made an hour ago.
    const made = operation(
      PROJECT,
      'create_branch',
      [
        [-3_600_000, 'running'],
        [-3_599_000, 'finished']
      ],
      {
        branch_id: 'br-mine'
      }
    );
    sim = await simulate([made]);
    const main = await runInProcess({ inputs: inputs(sim, { branch_id: 'br-mine' }) });
    const mine = { ...startedNow(sim, 'create_branch', 300), branch_id: 'br-mine' };
    const other = { ...startedNow(sim, 'create_branch', 300), branch_id: 'br-other' };
    sim.addOperation(mine);
    sim.addOperation(other);
    const post = await runInProcess({
      inputs: inputs(sim, { branch_id: 'br-mine' }),
      state: main.state,
      step: 'post'
    });
    expect(post.summary).toContain(mine.id.slice(0, 8));
    expect(post.summary).not.toContain(other.id.slice(0, 8));
  });

  it('updates the PR comment from the post step', async () => {
    github = await startFakeGitHub({ ghs_token: { author: 'github-actions[bot]' } });
    sim = await simulate([]);
    const pr = { name: 'pull_request', payload: { number: 7, pull_request: { number: 7 } } };
    const more = { comment_on_pr: 'true', github_token: 'ghs_token' };
    const env = { GITHUB_API_URL: github.url };
    const main = await runInProcess({ inputs: inputs(sim, more), event: pr, env });
    expect(github.comments).toHaveLength(0);
    const op = startedNow(sim, 'create_branch', 300);
    sim.addOperation(op);
    const post = await runInProcess({
      inputs: inputs(sim, more),
      event: pr,
      env,
      state: main.state,
      step: 'post'
    });
    expect(post.outputs.comment_url).toBe(github.comments[0]?.html_url);
    expect(github.comments[0]?.body).toContain(op.id.slice(0, 8));
  });

  it('shows the whole job in the PR comment: the main step failed, the post step saw nothing more', async () => {
    github = await startFakeGitHub({ ghs_token: { author: 'github-actions[bot]' } });
    const awaited = operation(PROJECT, 'apply_config', [
      [0, 'running'],
      [300, 'error', { error: 'role exists' }]
    ]);
    sim = await simulate([awaited]);
    const pr = { name: 'pull_request', payload: { number: 7, pull_request: { number: 7 } } };
    const more = { comment_on_pr: 'true', github_token: 'ghs_token', operation_id: awaited.id };
    const env = { GITHUB_API_URL: github.url };
    const main = await runInProcess({ inputs: inputs(sim, more), event: pr, env });
    expect(main.code).toBe(1);
    expect(github.comments[0]?.body).toMatch(/### ❌ .*: error/);

    const post = await runInProcess({
      inputs: inputs(sim, more),
      event: pr,
      env,
      state: main.state,
      step: 'post'
    });
    // The post step saw nothing wrong itself: it does not fail the job a second time…
    expect(post.code).toBe(0);
    expect(workflowCommands(post.stdout).filter((l) => l.startsWith('::error'))).toEqual([]);
    // …but the comment and the summary keep the main step's verdict beside what it saw.
    expect(github.comments).toHaveLength(1);
    for (const text of [github.comments[0]?.body ?? '', post.summary]) {
      expect(text).toMatch(/### ❌ .*: error/);
      expect(text).toMatch(/Main step: ❌ error · .*role exists/);
      expect(text).toContain('This job started no operation.');
      expect(text).not.toMatch(/✅ .*idle/);
    }
  });

  it.each<[string, { env?: Record<string, string>; inputs?: Record<string, string> }, RegExp]>([
    [
      'a later step set an unusable HTTPS_PROXY',
      { env: { HTTPS_PROXY: 'not a url' } },
      /::error::HTTPS_PROXY \/ HTTP_PROXY does not hold a usable proxy URL/
    ],
    [
      'since went out of bounds during the job',
      { inputs: { since: '2001-01-01T00:00:00Z' } },
      /::error::Input 'since' must be an ISO 8601 time/
    ]
  ])('is not silent when it cannot watch: %s', async (_name, change, error) => {
    sim = await simulate([]);
    const main = await runInProcess({ inputs: inputs(sim) });
    expect(main.outputs.status).toBe('watching');
    const requests = sim.requests.length;
    const post = await runInProcess({
      inputs: inputs(sim, change.inputs),
      env: change.env,
      state: main.state,
      step: 'post'
    });
    expect(post.code).toBe(1);
    expect(post.stdout).toMatch(error);
    expect(post.outputs.status).toBe('input_error');
    expect(post.summary).toMatch(/input error/i);
    expect(sim.requests).toHaveLength(requests);
  });

  it('says the project was deleted during the job, not that project_id is wrong', async () => {
    sim = await simulate([]);
    const main = await runInProcess({ inputs: inputs(sim) });
    sim.deleteProject(PROJECT);
    const post = await runInProcess({ inputs: inputs(sim), state: main.state, step: 'post' });
    expect(post.code).toBe(1);
    const [error] = workflowCommands(post.stdout).filter((l) => l.startsWith('::error'));
    expect(error).toMatch(
      new RegExp(`Project ${PROJECT} is gone: the main step of this job saw it, so it was deleted`)
    );
    expect(error).not.toMatch(/Check project_id/);
    expect(post.outputs.status).toBe('api_error');
  });

  it('reports the real verdict when GITHUB_STATE cannot be written; only watch_job is lost, with a warning', async () => {
    const op = operation(PROJECT, 'create_branch', [
      [0, 'running'],
      [300, 'finished']
    ]);
    sim = await simulate([op]);
    const run = await runAction({
      inputs: inputs(sim, { operation_id: op.id }),
      // A directory where the runner's state file should be.
      env: { GITHUB_STATE: tmpdir() }
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.outputs.status).toBe('finished');
    expect(run.summary).toContain(op.id.slice(0, 8));
    const warnings = workflowCommands(run.stdout).filter((l) => l.startsWith('::warning'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/title=watch_job unavailable::GITHUB_STATE cannot be written/);
    // The post step knows it is the post step without the state file, and says it has nothing to
    // watch (watch_job is true): one warning, no summary, no request.
    const requests = sim.requests.length;
    const post = await runAction({ inputs: inputs(sim, { operation_id: op.id }), step: 'post' });
    expect([post.code, post.summary]).toEqual([0, '']);
    expect(workflowCommands(post.stdout)).toEqual([
      expect.stringMatching(
        /^::warning title=watch_job has nothing to watch::watch_job is true, but the main step left no mark/
      )
    ]);
    expect(sim.requests).toHaveLength(requests);
  });

  it("the post step never sends the step's request again: a branch a later step deleted stays deleted", async () => {
    sim = await simulate({
      keys: { [DEFAULT_KEY]: { kind: 'personal', user: 'user-1' } },
      projects: [project(PROJECT)],
      operations: [],
      ...seededBranches(PROJECT, [{ name: 'main' }])
    });
    const asked = inputs(sim, { create_branch: 'preview/pr-7' });
    const main = await runInProcess({ inputs: asked });
    expect(main.outputs.branch_outcome ?? main.outputs.created).toMatch(/^(created|true)$/);
    // A later step of the job deletes the branch.
    const branch = sim.branches(PROJECT).find((b) => b.name === 'preview/pr-7');
    expect(branch).toBeDefined();
    const deleted = await fetch(`${sim.url}/projects/${PROJECT}/branches/${branch?.id ?? ''}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${DEFAULT_KEY}` }
    });
    expect(deleted.status).toBe(200);
    const before = sim.requests.length;
    const post = await runInProcess({ inputs: asked, state: main.state, step: 'post' });
    expect(post.code).toBe(0);
    const sent = sim.requests.slice(before).map((r) => r.method);
    expect(sent.length).toBeGreaterThan(0); // it watched the job
    expect(sent.filter((method) => method !== 'GET')).toEqual([]);
    expect(sim.branches(PROJECT).filter((b) => b.name === 'preview/pr-7')).toEqual([]);
  });

  it('compare_schema: the main step hands the branch it made to the post step (GITHUB_STATE), which compares it after the migrations and updates the one comment', async () => {
    github = await startFakeGitHub({ ghs_token: { author: 'github-actions[bot]' } });
    const scenario = {
      keys: { [DEFAULT_KEY]: { kind: 'personal' as const, user: 'user-1' } },
      projects: [project(PROJECT)],
      operations: [],
      ...seededBranches(PROJECT, [{ name: 'main' }])
    };
    sim = await simulate(scenario, { operationMs: 100 });
    const pr = { name: 'pull_request', payload: { number: 7, pull_request: { number: 7 } } };
    const more = { create_branch: 'preview/pr-7', compare_schema: 'true', comment_on_pr: 'true' };
    const asked = inputs(sim, { ...more, github_token: 'ghs_token', summary_limit: '0' });
    const env = { GITHUB_API_URL: github.url };
    const main = await runInProcess({ inputs: asked, event: pr, env });
    expect(main.code).toBe(0);
    expect(main.summary).toContain('taken at the end of the job by the post step');
    // A later step of the job migrates the branch.
    sim.setSchemaDiff('preview/pr-7', DROP_COLUMN_AND_TABLE);
    const before = sim.requests.length;
    const post = await runInProcess({
      inputs: asked,
      event: pr,
      env,
      state: main.state,
      step: 'post'
    });
    expect(post.code).toBe(0);
    expect(sim.requests.slice(before).filter((r) => r.method !== 'GET')).toEqual([]);
    expect(post.summary).toContain('- ⚠ drops column <code>users.name</code>');
    expect(github.comments).toHaveLength(1);
    const top = github.comments[0]?.body.split('<details')[0] ?? '';
    expect(top).toContain('- ⚠ drops table <code>posts</code>');
    expect(post.outputs.comment_url).toBe(github.comments[0]?.html_url);
  });

  it('without watch_job, the post step prints nothing, writes nothing and sends no request', async () => {
    sim = await simulate([operation(PROJECT, 'create_branch', [[-1000, 'finished']])]);
    const main = await runInProcess({ inputs: inputs(sim, { watch_job: 'false' }) });
    expect(main.state).toEqual({});
    const requests = sim.requests.length;
    const post = await runInProcess({
      inputs: inputs(sim, { watch_job: 'false' }),
      state: main.state,
      step: 'post'
    });
    expect(post.code).toBe(0);
    expect(post.stdout).toBe('');
    expect(post.stderr).toBe('');
    expect(post.summary).toBe('');
    expect(post.outputs).toEqual({});
    expect(sim.requests).toHaveLength(requests);
  });
});
