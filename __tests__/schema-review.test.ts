/**
 * The schema review end to end in-process (issue 45): `run()` of the main and the post step with
 * `@actions/core` mocked, against the simulator's `compare_schema` and the fake GitHub's comments
 * on 127.0.0.1. What the review says, where it sits in the one sticky comment, the outputs that
 * gate later steps, `fail_on_destructive`, and `watch_job` taking the diff at the end of the job.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  afterAll,
  afterEach,
  beforeAll,
  beforeEach,
  describe,
  expect,
  it,
  jest
} from '@jest/globals';
import * as core from '../__fixtures__/core.js';
import { type FakeGitHub, startFakeGitHub } from '../simulator/github.js';
import { DEFAULT_KEY, project, seededBranches } from '../simulator/scenario.js';
import {
  ADD_TABLE_AND_INDEX,
  DROP_COLUMN_AND_TABLE,
  DROPPED_OBJECTS,
  schemaDiffOf
} from '../simulator/schema-diffs.js';
import type { Simulator } from '../simulator/server.js';
import { actionDefaults, pullRequestEnv } from './helpers/run-action.js';
import { PROJECT, simulate } from './helpers/sim.js';

jest.unstable_mockModule('@actions/core', () => core);

const TOKEN = 'ghs_job_token';
const AUTHOR = 'github-actions[bot]';
const BRANCH = 'preview/pr-7';
const savedEnv = { ...process.env };
let gh: FakeGitHub;
let dir: string;
let sim: Simulator | undefined;
let runMain: (signal?: AbortSignal) => Promise<void>;
let runPost: (signal?: AbortSignal) => Promise<void>;
let clearSecrets: () => void;

beforeAll(async () => {
  gh = await startFakeGitHub({ [TOKEN]: { author: AUTHOR } });
  dir = mkdtempSync(join(tmpdir(), 'schema-review-'));
  // Read when `@actions/github` is first loaded, by the comment's writer.
  Object.assign(process.env, pullRequestEnv(dir, gh.url), { GITHUB_STEP_SUMMARY: '/dev/null' });
  ({ run: runMain } = await import('../src/action/main.js'));
  ({ run: runPost } = await import('../src/action/post.js'));
  ({ clearSecrets } = await import('../src/util/redact.js'));
});
afterAll(async () => {
  process.env = savedEnv;
  await gh?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  gh.comments.length = 0;
  gh.requests.length = 0;
  process.exitCode = undefined;
});
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  process.exitCode = undefined;
  clearSecrets();
});

/** A project with `main` and the pull request's branch, whose schema differs by `diff`. */
async function withBranch(diff?: string): Promise<Simulator> {
  // Operations of 100 ms: the create and the compute's start take half a second, not seconds.
  const scenario = {
    keys: { [DEFAULT_KEY]: { kind: 'personal' as const, user: 'user-1' } },
    projects: [project(PROJECT, { owner_id: 'user-1' })],
    operations: [],
    ...seededBranches(PROJECT, [{ name: 'main' }]),
    ...(diff !== undefined && { schemaDiffs: { [BRANCH]: diff } })
  };
  sim = await simulate(scenario, { operationMs: 100 });
  return sim;
}

const inputs = (s: Simulator, more: Record<string, string> = {}) => ({
  ...actionDefaults(),
  api_key: DEFAULT_KEY,
  api_host: s.url,
  project_id: PROJECT,
  summary_limit: '0',
  timeout: '30s',
  interval: '1s',
  create_branch: BRANCH,
  compare_schema: 'true',
  comment_on_pr: 'true',
  github_token: TOKEN,
  ...more
});

/** One step as the runner runs it: its inputs, then what it said. */
async function step(given: Record<string, string>, post = false) {
  core.reset(given);
  await (post ? runPost() : runMain());
  return {
    outputs: core.outputs(),
    summary: core.summaryText.join(''),
    failed: core.setFailed.mock.calls.map(([message]) => String(message))
  };
}

/** The comment's part above every fold: what a reviewer sees without a click. */
const aboveFold = (body: string): string => body.split('<details')[0] ?? '';
const patches = () => gh.requests.filter((r) => r.method === 'PATCH');

describe('the schema review in the pull request', () => {
  it('a migration that adds a table and an index: "no destructive change", one comment, updated in place on the next push and kept on a rerun', async () => {
    const s = await withBranch(ADD_TABLE_AND_INDEX);
    const first = await step(inputs(s));
    expect(first.outputs).toMatchObject({
      schema_changed: 'true',
      schema_destructive: 'false',
      destructive_changes: '[]'
    });
    expect(first.failed).toEqual([]);
    expect(gh.comments).toHaveLength(1);
    const comment = gh.comments[0]!;
    expect(aboveFold(comment.body)).toMatch(
      /Schema review of <code>neondb<\/code> on branch <code>br-.+<\/code>.*: no destructive change\./
    );
    expect(aboveFold(comment.body)).toMatch(/1 table added .* 1 index added/);
    expect(comment.body).toContain('```diff\n--- a/neondb');
    expect(first.summary).toContain('No destructive change.');

    // The next push migrates again: the same comment says the new diff.
    s.setSchemaDiff(
      BRANCH,
      `${ADD_TABLE_AND_INDEX}${schemaDiffOf(['+-- one more line'], 400).split('\n').slice(2).join('\n')}`
    );
    const next = await step(inputs(s));
    expect(gh.comments).toHaveLength(1);
    expect(patches()).toHaveLength(1);
    expect(next.outputs.comment_url).toBe(first.outputs.comment_url);
    expect(gh.comments[0]!.body).toContain('+-- one more line');

    // A rerun of the job with the same schema: the same one comment, left as it is.
    const rerun = await step(inputs(s));
    expect(gh.comments).toHaveLength(1);
    expect(patches()).toHaveLength(1);
    expect(rerun.outputs.comment_url).toBe(first.outputs.comment_url);
  });

  it('a migration that drops a column and a table: both named above the fold, schema_destructive true, the step not failed unless asked', async () => {
    const s = await withBranch(DROP_COLUMN_AND_TABLE);
    const run = await step(inputs(s));
    expect(run.outputs.schema_destructive).toBe('true');
    expect(JSON.parse(run.outputs.destructive_changes ?? '')).toEqual([
      { action: 'drops', kind: 'table', name: 'posts' },
      { action: 'drops', kind: 'column', name: 'users.name' }
    ]);
    expect(run.failed).toEqual([]);
    const top = aboveFold(gh.comments[0]!.body);
    expect(top).toContain('⚠ 2 destructive changes');
    expect(top).toContain('⚠ drops table <code>posts</code>');
    expect(top).toContain('⚠ drops column <code>users.name</code>');

    const gated = await step(inputs(s, { fail_on_destructive: 'true' }));
    expect(gated.outputs.status).toBe('schema_destructive');
    expect(gated.failed).toEqual([
      expect.stringMatching(
        /2 destructive schema change.*drops table posts; drops column users\.name/
      )
    ]);
  });

  it('a 200 kB diff: the comment stays under 65,536 characters, says what was cut, and names every destructive change', async () => {
    const added = Array.from(
      { length: 4000 },
      (_, i) => `+    column_${i} character varying(255) NOT NULL,`
    );
    const huge = `${DROPPED_OBJECTS}${schemaDiffOf(added, 900).split('\n').slice(2).join('\n')}`;
    expect(huge.length).toBeGreaterThan(200_000);
    const s = await withBranch(huge);
    const run = await step(inputs(s));
    const body = gh.comments[0]!.body;
    expect(body.length).toBeLessThan(65_536);
    expect(body).toMatch(
      /lines of [\d,]+ shown: [\d,]+ left out to keep this within GitHub's size limit/
    );
    const named = JSON.parse(run.outputs.destructive_changes ?? '[]') as unknown[];
    expect(named.length).toBeGreaterThan(3);
    const listed = aboveFold(body).match(/^- ⚠ /gm) ?? [];
    expect(listed).toHaveLength(named.length);
    // The summary has room for it all.
    expect(run.summary).not.toContain('left out');
  });

  it('a branch without a parent, or a database the API does not know: a line saying so, not a failure (unless fail_on_destructive)', async () => {
    const s = await withBranch();
    const root = seededBranches(PROJECT, [{ name: 'main' }]).branches[0]!.id;
    const alone = await step(
      inputs(s, { create_branch: '', branch_id: root, comment_on_pr: 'false' })
    );
    expect(alone.failed).toEqual([]);
    expect(alone.summary).toContain(
      `Schema review not taken: branch ${root} has no parent to compare with.`
    );
    expect(alone.outputs.schema_changed).toBe('');

    const unknown = await step(inputs(s, { database_name: 'nodb', comment_on_pr: 'false' }));
    expect(unknown.failed).toEqual([]);
    expect(unknown.outputs.status).toBe('finished');
    expect(unknown.summary).toMatch(
      /Schema review not taken: the API did not answer compare&#95;schema&#58; .*database nodb was not found/
    );
    const gated = await step(
      inputs(s, { database_name: 'nodb', fail_on_destructive: 'true', comment_on_pr: 'false' })
    );
    expect(gated.outputs.status).toBe('api_error');
    expect(gated.failed).toEqual([
      expect.stringMatching(/schema review was not taken \(fail_on_destructive is true\)/)
    ]);
  });

  it('watch_job: the main step creates the branch, the post step compares it after the migrations and updates the comment, writing nothing to Neon', async () => {
    const s = await withBranch();
    const asked = inputs(s, { watch_job: 'true' });
    const main = await step(asked);
    // What the main step left in GITHUB_STATE, as the runner hands it to the post step.
    const saved = new Map(core.saveState.mock.calls.map(([name, value]) => [name, String(value)]));
    expect(main.outputs.schema_changed).toBe('');
    expect(main.summary).toContain('taken at the end of the job by the post step');
    expect(saved.get('schema_target')).toBeDefined();
    const before = gh.comments[0]?.body;

    // A later step of the job migrates the branch.
    s.setSchemaDiff(BRANCH, DROP_COLUMN_AND_TABLE);
    const sent = s.requests.length;
    core.getState.mockImplementation((name) => saved.get(name) ?? '');
    const post = await step(asked, true);
    core.getState.mockImplementation(() => '');
    expect(s.requests.slice(sent).filter((r) => r.method !== 'GET')).toEqual([]);
    expect(s.requests.slice(sent).some((r) => r.route?.endsWith('/compare_schema'))).toBe(true);
    expect(post.outputs.schema_destructive).toBe('true');
    expect(gh.comments).toHaveLength(1);
    expect(gh.comments[0]!.body).not.toBe(before);
    expect(aboveFold(gh.comments[0]!.body)).toContain('⚠ drops column <code>users.name</code>');
    expect(post.summary).toContain('⚠ drops table <code>posts</code>');
  });
});
