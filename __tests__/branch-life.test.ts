import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import {
  DEFAULT_KEY,
  FREE_PLAN,
  project,
  type Scenario,
  seededBranches
} from '../simulator/scenario.js';
import { pullRequestOfEnv } from '../src/cli/event.js';
import { resultFields } from '../src/outputs.js';
import { buildReport } from '../src/report/model.js';
import { readSettings } from '../src/settings.js';
import { actionNaming } from '../src/util/errors.js';
import { InProcess } from './helpers/in-process.js';
import { PROJECT } from './helpers/sim.js';

// A preview branch's life (issue 43): `on_existing: reset`, `reset_branch`, the expiry renewed, the
// pull request's annotation, the branch limit; and issue 44's items 3 and 4 (the default or a
// protected branch never adopted; exactly one job says created). In-process, on simulated time.

let run: InProcess | undefined;
afterEach(async () => {
  await run?.dispose();
  run = undefined;
});

const DAY = 86_400_000;

/** main, dev, release (protected), preview/pr-1 (made from main 6 days ago, expiring tomorrow). */
function scenario(fields: Parameters<typeof project>[1] = {}, more: string[] = []): Scenario {
  const seeded = seededBranches(PROJECT, [
    { name: 'main' },
    { name: 'dev' },
    { name: 'release', protected: true },
    { name: 'preview/pr-1', created: -6 * DAY, expiresAt: DAY },
    ...more.map((name, i) => ({ name, created: -(30 - i) * DAY }))
  ]);
  return {
    keys: { [DEFAULT_KEY]: { kind: 'personal', user: 'user-1' } },
    projects: [project(PROJECT, fields)],
    operations: [],
    ...seeded
  };
}

const named = (name: string) => run!.sim.branches(PROJECT).filter((b) => b.name === name);
const routed = (route: string) => run!.sim.requests.filter((r) => r.route === route);
const RESTORE = 'POST /projects/{project_id}/branches/{branch_id}/restore';
const PATCH = 'PATCH /projects/{project_id}/branches/{branch_id}';
const CREATE = 'POST /projects/{project_id}/branches';
const fieldsOf = (waited: Awaited<ReturnType<InProcess['wait']>>) =>
  resultFields(buildReport(waited.result, { waited: true, timeoutMs: 600_000, requests: 0 }));

describe('create_branch with on_existing: reset', () => {
  it('restores the existing branch from its parent, waits for the restore, same id, URL given', async () => {
    run = await InProcess.start(scenario());
    const before = named('preview/pr-1')[0]!;
    const waited = await run.wait({
      project_id: PROJECT,
      create_branch: 'preview/pr-1',
      on_existing: 'reset'
    });
    const { result, log } = waited;
    expect(result.status).toBe('finished');
    expect(result.request?.branch).toMatchObject({ id: before.id, outcome: 'reset' });
    expect(result.request?.branch?.connection?.url).toMatch(/^postgresql:\/\//);
    expect(routed(RESTORE)).toHaveLength(1);
    const after = named('preview/pr-1')[0]!;
    expect(after.lastResetAt).toBe(routed(RESTORE)[0]!.at);
    // The wait followed what the restore started, to its end.
    expect(result.operations.map((op) => op.action)).toContain('create_timeline');
    expect(result.operations.every((op) => op.status === 'finished')).toBe(true);
    expect(fieldsOf(waited)).toMatchObject({ branch_outcome: 'reset', created: false });
    expect(
      log.some((l) => /Resetting branch preview\/pr-1 .* from its parent's head/.test(l))
    ).toBe(true);
  });

  it('a branch this step just created is not reset; reuse (the default) never restores', async () => {
    run = await InProcess.start(scenario());
    const fresh = await run.wait({
      project_id: PROJECT,
      create_branch: 'preview/pr-2',
      on_existing: 'reset'
    });
    expect(fresh.result.request?.branch?.outcome).toBe('created');
    const reused = await run.wait({ project_id: PROJECT, create_branch: 'preview/pr-1' });
    expect(reused.result.request?.branch?.outcome).toBe('reused');
    expect(routed(RESTORE)).toHaveLength(0);
  });

  it('on_existing: maybe is an input error naming it, nothing sent', async () => {
    run = await InProcess.start(scenario());
    expect(() =>
      readSettings(
        (name) =>
          ({
            api_key: DEFAULT_KEY,
            create_branch: 'preview/pr-1',
            on_existing: 'maybe'
          })[name] ?? '',
        () => undefined
      )
    ).toThrow(/^Input 'on_existing' must be reuse or reset; got 'maybe'/);
  });
});

describe('the expiry renewed on a reused or reset branch', () => {
  it.each(['reuse', 'reset'])(
    '%s with expires_in: PATCHed to now + expires_in, the output is the new time, the log says so',
    async (onExisting) => {
      run = await InProcess.start(scenario());
      const waited = await run.wait({
        project_id: PROJECT,
        create_branch: 'preview/pr-1',
        on_existing: onExisting,
        expires_in: '7d'
      });
      // A reused branch with nothing in progress is idle; a reset one waits for its restore.
      expect(waited.result.status).toBe(onExisting === 'reuse' ? 'idle' : 'finished');
      const patch = routed(PATCH);
      expect(patch).toHaveLength(1);
      const expected = Date.UTC(2026, 0, 1) + patch[0]!.at + 7 * DAY;
      const said = waited.result.request?.branch?.expiresAt ?? '';
      expect(Math.abs(Date.parse(said) - expected)).toBeLessThan(2000);
      expect(named('preview/pr-1')[0]?.expiresAt).toBe(Date.parse(said) - Date.UTC(2026, 0, 1));
      expect(fieldsOf(waited)).toMatchObject({ expires_at: said });
      expect(waited.log.some((l) => /^Renewed the expiry of branch preview\/pr-1/.test(l))).toBe(
        true
      );
    }
  );

  it('a branch made by this step is not PATCHed (its create set the expiry)', async () => {
    run = await InProcess.start(scenario());
    await run.wait({ project_id: PROJECT, create_branch: 'preview/pr-3', expires_in: '7d' });
    expect(routed(PATCH)).toHaveLength(0);
  });
});

describe('reset_branch', () => {
  it('resets it from its parent and gives the connection outputs', async () => {
    run = await InProcess.start(scenario());
    const waited = await run.wait({ project_id: PROJECT, reset_branch: 'preview/pr-1' });
    expect(waited.result.status).toBe('finished');
    expect(routed(RESTORE)).toHaveLength(1);
    expect(fieldsOf(waited)).toMatchObject({
      branch_outcome: 'reset',
      branch_name: 'preview/pr-1',
      branch_id: named('preview/pr-1')[0]?.id
    });
    expect(waited.result.request?.databaseUrl).toMatch(/^postgresql:\/\//);
  });

  it.each([
    ['main', /default branch/],
    ['release', /protected branch/]
  ])('%s is refused, nothing sent', async (name, why) => {
    run = await InProcess.start(scenario());
    const { result } = await run.wait({ project_id: PROJECT, reset_branch: name });
    expect(result.status).toBe('input_error');
    expect(result.failure).toMatch(/^Input 'reset_branch' names /);
    expect(result.failure).toMatch(why);
    expect(run.sim.requests.filter((r) => r.method !== 'GET')).toHaveLength(0);
  });

  it('a name that does not exist: an error that says so, nothing created', async () => {
    run = await InProcess.start(scenario());
    const { result } = await run.wait({ project_id: PROJECT, reset_branch: 'preview/pr-9' });
    expect(result.status).toBe('input_error');
    expect(result.failure).toMatch(/^Input 'reset_branch' names no branch .*'preview\/pr-9'/);
    expect(run.sim.requests.filter((r) => r.method !== 'GET')).toHaveLength(0);
  });

  it('with create_branch: refused, naming both', () => {
    const input = (name: string) =>
      ({ api_key: DEFAULT_KEY, create_branch: 'a', reset_branch: 'b' })[name] ?? '';
    expect(() => readSettings(input, () => undefined)).toThrow(
      /^Input 'create_branch' and input 'reset_branch' cannot both be set: a step sends one request/
    );
  });
});

describe('create_branch on a pull request: the annotation', () => {
  it('writes github-pr-number and github-commit-repo', async () => {
    run = await InProcess.start(scenario());
    await run.wait({ project_id: PROJECT, create_branch: 'preview/pr-7' }, 1, {
      pullRequest: { number: 7, repository: 'octo/app' }
    });
    expect(named('preview/pr-7')[0]?.annotations).toMatchObject({
      'github-pr-number': '7',
      'github-commit-repo': 'octo/app'
    });
  });
});

describe('the command: the pull request of a GitHub Actions run, from its event', () => {
  const eventFile = (payload: unknown) => {
    const path = join(mkdtempSync(join(tmpdir(), 'event-')), 'event.json');
    writeFileSync(path, JSON.stringify(payload));
    return path;
  };
  const env = (name: string, payload: unknown) => ({
    GITHUB_EVENT_NAME: name,
    GITHUB_EVENT_PATH: eventFile(payload),
    GITHUB_REPOSITORY: 'octo/app'
  });

  it('pull_request, pull_request_target, a comment on a pull request: its number and the repository', () => {
    const pr = { pull_request: { number: 12 } };
    expect(pullRequestOfEnv(env('pull_request', pr))).toEqual({
      number: 12,
      repository: 'octo/app'
    });
    expect(pullRequestOfEnv(env('pull_request_target', pr))?.number).toBe(12);
    const comment = { issue: { number: 13, pull_request: { url: 'x' } } };
    expect(pullRequestOfEnv(env('issue_comment', comment))?.number).toBe(13);
  });

  it('a push, a comment on an issue, no event file, another CI: none', () => {
    expect(pullRequestOfEnv(env('push', { ref: 'refs/heads/main' }))).toBeUndefined();
    expect(pullRequestOfEnv(env('issue_comment', { issue: { number: 4 } }))).toBeUndefined();
    const missing = { ...env('pull_request', {}), GITHUB_EVENT_PATH: '/nonexistent/event.json' };
    expect(pullRequestOfEnv(missing)).toBeUndefined();
    expect(pullRequestOfEnv({ CI: 'true', CI_MERGE_REQUEST_IID: '3' })).toBeUndefined();
  });
});

describe('create_branch at the branch limit', () => {
  it('names the count, the limit, the oldest candidates and the sweep; nothing deleted', async () => {
    const previews = Array.from({ length: 6 }, (_, i) => `preview/pr-${i + 20}`);
    run = await InProcess.start(scenario({ plan: FREE_PLAN }, previews));
    const { result } = await run.wait({ project_id: PROJECT, create_branch: 'preview/pr-31' });
    expect(result.status).toBe('api_error');
    expect(result.failure).toMatch(
      /^Neon refused to create branch 'preview\/pr-31': the project has 10 branches and its plan allows 10\. Nothing was deleted\./
    );
    expect(result.failure).toMatch(
      /oldest branches a sweep could take: 'preview\/pr-20' \(created 30d ago\), 'preview\/pr-21'/
    );
    expect(result.failure).toMatch(/input 'sweep_branches' set to 'preview\/pr-\{pr\}'/);
    expect(result.failure).not.toMatch(/'main'|'release'/);
    expect(run.sim.requests.filter((r) => r.method === 'DELETE')).toHaveLength(0);
    expect(run.sim.branches(PROJECT)).toHaveLength(10);
    // Worded for the command too.
    expect(actionNaming('sweep_branches')).toBe("input 'sweep_branches'");
  });
});

describe('issue 44 item 3: create_branch never adopts the default or a protected branch', () => {
  it.each([
    ['main', /default branch/],
    ['release', /protected branch/]
  ])('create_branch: %s is an input error; nothing created, no URL', async (name, why) => {
    run = await InProcess.start(scenario());
    const { result } = await run.wait({ project_id: PROJECT, create_branch: name });
    expect(result.status).toBe('input_error');
    expect(result.failure).toMatch(/^Input 'create_branch' names /);
    expect(result.failure).toMatch(why);
    expect(result.request?.databaseUrl).toBeUndefined();
    expect(run.sim.branches(PROJECT)).toHaveLength(4);
    expect(run.sim.requests.filter((r) => r.method !== 'GET')).toHaveLength(0);
  });
});

describe('issue 44 item 4: exactly one job says created', () => {
  it('two jobs whose creates both lose their answers (one applied, one 409): one created, one reused', async () => {
    run = await InProcess.start(scenario());
    run.sim.gather(2, { method: 'POST', match: '/branches' });
    run.sim.inject({ kind: 'reset-after-apply' }, { method: 'POST', match: '/branches', times: 2 });
    const job = { project_id: PROJECT, create_branch: 'preview/pr-5' };
    const jobs = await run.waitAll([job, job]);
    expect(named('preview/pr-5')).toHaveLength(1);
    const outcomes = jobs.map((j) => j.result.request?.branch?.outcome).sort();
    expect(outcomes).toEqual(['created', 'reused']);
    expect(jobs.every((j) => j.result.request?.branch?.id === named('preview/pr-5')[0]?.id)).toBe(
      true
    );
    expect(routed(CREATE).length).toBeGreaterThanOrEqual(4);
  });

  it('one job lost its answer (applied), the other got 409: still one created', async () => {
    run = await InProcess.start(scenario());
    run.sim.inject({ kind: 'reset-after-apply' }, { method: 'POST', match: '/branches', times: 1 });
    run.sim.gather(2, { method: 'POST', match: '/branches' });
    const job = { project_id: PROJECT, create_branch: 'preview/pr-6' };
    const jobs = await run.waitAll([job, job]);
    const outcomes = jobs.map((j) => j.result.request?.branch?.outcome).sort();
    expect(outcomes).toEqual(['created', 'reused']);
  });
});
