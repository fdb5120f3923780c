import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import {
  type BranchSeed,
  DEFAULT_KEY,
  project,
  seededBranches,
  sweepProject
} from '../simulator/scenario.js';
import { type FakeGitHub, startFakeGitHub } from '../simulator/github.js';
import { renderJunit } from '../src/cli/junit.js';
import { resultFields } from '../src/outputs.js';
import { buildReport, type Report } from '../src/report/model.js';
import { code, escapeText } from '../src/report/markdown.js';
import { renderSummary } from '../src/report/summary.js';
import { InProcess, type Waited } from './helpers/in-process.js';
import { PROJECT } from './helpers/sim.js';

// sweep_branches through the kind's module and `performAndWait`, against the simulator's branches
// and the GitHub stand-in's pull requests, on simulated time.

const DAY = 86_400_000;
const TOKEN = 'ghs_sweep_token';
const REPOSITORY = 'octo-org/octo-repo';

const { seeds, pulls, stale } = sweepProject();
let gh: FakeGitHub;
let run: InProcess | undefined;
beforeAll(async () => {
  gh = await startFakeGitHub({ [TOKEN]: { author: 'github-actions[bot]' } }, pulls);
});
afterAll(() => gh.close());
afterEach(async () => {
  await run?.dispose();
  run = undefined;
});

async function start(branchSeeds: BranchSeed[] = seeds): Promise<InProcess> {
  const started = await InProcess.start({
    keys: { [DEFAULT_KEY]: { kind: 'personal', user: 'user-1' } },
    projects: [project(PROJECT)],
    operations: [],
    ...seededBranches(PROJECT, branchSeeds)
  });
  started.githubUrl = gh.url;
  return started;
}

const SWEEP = {
  project_id: PROJECT,
  sweep_branches: 'preview/pr-{pr}',
  older_than: '14d',
  github_token: TOKEN,
  repository: REPOSITORY
};

/** A branch's line in the summary: its name, what was done and why. */
const item = (name: string, done: string, why: string) =>
  `- ${code(name)}: ${escapeText(done)}: ${escapeText(why)}`;
const names = () => run!.sim.branches(PROJECT).map((b) => b.name);
const reportOf = (waited: Waited): Report =>
  buildReport(waited.result, { waited: true, timeoutMs: 600_000, requests: waited.requests });

/** The simulator's requests from `from` on, by route. */
function routes(from: number) {
  const requests = run!.sim.requests.slice(from);
  const of = (route: string) => requests.filter((r) => r.route === route).length;
  return {
    all: requests.length,
    pages: of('GET /projects/{project_id}/branches'),
    project: of('GET /projects/{project_id}'),
    deletes: of('DELETE /projects/{project_id}/branches/{branch_id}')
  };
}

describe('sweep_branches', () => {
  it('deletes the 40 stale branches of 100 and no other, in about one request each', async () => {
    run = await start();
    const pullReads = gh.requests.length;
    const waited = await run.wait({ ...SWEEP, sweep_max: '50' });
    expect(waited.result.status).toBe('finished');
    // The 40, and no other.
    const left = names();
    expect(left).toHaveLength(60);
    for (const name of stale) expect(left).not.toContain(name);
    expect(seeds.map((s) => s.name).filter((name) => !left.includes(name))).toEqual(stale);
    // The budget: the list pages, the project, one read of each pull request, ≤ 2 a deletion.
    const sent = routes(0);
    expect(sent.deletes).toBeGreaterThanOrEqual(40);
    expect(sent.all - sent.pages - sent.project).toBeLessThanOrEqual(2 * 40);
    const reads = gh.requests.slice(pullReads).map((r) => r.path);
    expect(new Set(reads).size).toBe(reads.length);
    // Pull requests of the matching branches that may be deleted: 1 to 96 but the protected 86–90
    // and 91, which has a child.
    expect(reads).toHaveLength(90);

    const report = reportOf(waited);
    const fields = resultFields(report);
    expect(fields.branches_count).toBe(60);
    expect(fields.branches_limit).toBe(25);
    const swept = fields.swept as Array<{ name: string; reason: string }>;
    expect(swept.map((s) => s.name).sort()).toEqual([...stale].sort());
    expect(swept).toContainEqual(
      expect.objectContaining({ name: 'preview/pr-1', reason: 'pull request #1 merged' })
    );
    expect(swept).toContainEqual(
      expect.objectContaining({ name: 'preview/pr-2', reason: 'pull request #2 closed' })
    );
    const summary = renderSummary(report);
    expect(summary).toContain(
      'Swept <code>preview/pr-{pr}</code> · 40 deleted, 56 kept · 60 branches now of 25 allowed'
    );
    expect(summary).toContain(item('preview/pr-12', 'deleted', 'pull request #12 closed'));
    expect(summary).toContain(item('preview/pr-41', 'kept', 'open pull request #41'));
    expect(summary).toContain(item('preview/pr-86', 'kept', 'protected'));
    expect(summary).toContain(item('preview/pr-91', 'kept', 'has child branches'));
    expect(summary).toMatch(
      /- <code>preview\/pr-30<\/code>: deleted: older than 14d \(created 20d ago\)/
    );
    expect(summary).toMatch(
      /- <code>preview\/pr-92<\/code>: kept: newer than 14d \(created 1d ago\)/
    );
    const junit = renderJunit(report);
    expect(junit).toContain('name="sweep preview/pr-12"');
    expect(junit).toContain('preview/pr-12: deleted: pull request #12 closed');
  });

  it('run again at once: nothing deleted, green, no DELETE sent', async () => {
    run = await start();
    await run.wait({ ...SWEEP, sweep_max: '50' });
    const from = run.sim.requests.length;
    const again = await run.wait({ ...SWEEP, sweep_max: '50' });
    expect(again.result.status).toBe('idle');
    expect(routes(from).deletes).toBe(0);
    expect(names()).toHaveLength(60);
    const fields = resultFields(reportOf(again));
    expect(fields.swept).toEqual([]);
    expect(fields.branches_count).toBe(60);
  });

  it('dry run: deletes nothing, and reports the same list', async () => {
    run = await start();
    const dry = await run.wait({ ...SWEEP, sweep_max: '50', dry_run: 'true' });
    expect(dry.result.status).toBe('idle');
    expect(routes(0).deletes).toBe(0);
    expect(names()).toHaveLength(100);
    const report = reportOf(dry);
    const swept = resultFields(report).swept as Array<{ name: string }>;
    expect(swept.map((s) => s.name).sort()).toEqual([...stale].sort());
    expect(renderSummary(report)).toContain(
      item('preview/pr-1', 'would delete (dry run)', 'pull request #1 merged')
    );
    expect(resultFields(report).branches_count).toBe(100);
  });

  it('sweep_max: the oldest 20 first, the rest left for the next run, which takes them', async () => {
    run = await start();
    const first = await run.wait(SWEEP);
    expect(names()).toHaveLength(80);
    // The 15 twenty days old first, then 5 of the three days old.
    const firstSwept = resultFields(reportOf(first)).swept as Array<{ name: string }>;
    expect(firstSwept).toHaveLength(20);
    for (let pr = 26; pr <= 40; pr++)
      expect(firstSwept.map((s) => s.name)).toContain(`preview/pr-${pr}`);
    const summary = renderSummary(reportOf(first));
    expect(summary).toContain(
      '20 deleted, 20 left for the next run (sweep&#95;max reached), 56 kept'
    );
    const second = await run.wait(SWEEP);
    expect(second.result.status).toBe('finished');
    expect(names()).toHaveLength(60);
    for (const name of stale) expect(names()).not.toContain(name);
  });

  it('never deletes the default, a protected branch or one with children, even when old and matching', async () => {
    run = await start([
      { name: 'main', created: -90 * DAY },
      { name: 'keep', protected: true, created: -90 * DAY },
      { name: 'parent', created: -90 * DAY },
      { name: 'child-of-parent', parent: 'parent', created: -90 * DAY },
      { name: 'old', created: -90 * DAY }
    ]);
    const waited = await run.wait({ project_id: PROJECT, sweep_branches: '*', older_than: '7d' });
    expect(waited.result.status).toBe('finished');
    // The child is old and matches: deleted; its parent waits for the next run.
    expect(names().sort()).toEqual(['keep', 'main', 'parent']);
    const summary = renderSummary(reportOf(waited));
    expect(summary).toContain(item('main', 'kept', 'default branch'));
    expect(summary).toContain(item('keep', 'kept', 'protected'));
    expect(summary).toContain(item('parent', 'kept', 'has child branches'));
  });

  it('a pull request that cannot be read is a warning, and older_than decides', async () => {
    run = await start([
      { name: 'main' },
      { name: 'preview/pr-1', created: -20 * DAY },
      { name: 'preview/pr-2', created: -DAY }
    ]);
    const waited = await run.wait({ ...SWEEP, github_token: 'ghs_revoked' });
    expect(
      waited.log.some((line) => /^warning: 2 of 2 pull request\(s\) could not be read/.test(line))
    ).toBe(true);
    expect(names()).toEqual(['main', 'preview/pr-2']);
    expect(JSON.stringify(waited.log)).not.toContain('ghs_revoked');
  });

  it.each([
    [
      'an empty pattern',
      { sweep_branches: ' ' },
      /^Input 'sweep_branches' must be a branch name pattern/
    ],
    ['older_than: soon', { older_than: 'soon' }, /^Input 'older_than' must be a duration/],
    [
      'sweep_max: 0',
      { sweep_max: '0' },
      /^Input 'sweep_max' must be a whole number from 1 to 1000/
    ],
    [
      'a sweep with request',
      { request: 'GET /projects' },
      /^Input 'request' and input 'sweep_branches' cannot both be set/
    ],
    [
      'neither older_than nor a token',
      { older_than: '', github_token: '' },
      /^Input 'sweep_branches' needs input 'older_than' or a token that can read pull requests/
    ],
    [
      'a repository not owner/name',
      { repository: 'octo' },
      /^Input 'repository' must be a repository as owner\/name/
    ]
  ])('%s: an error naming the input, nothing sent', async (_, more, message) => {
    run = await start();
    await expect(run.wait({ ...SWEEP, ...more })).rejects.toThrow(message);
    expect(run.sim.requests).toHaveLength(0);
  });
});
