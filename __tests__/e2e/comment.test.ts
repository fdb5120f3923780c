/**
 * Whose PR comment the action edits: only one written by the token's own identity, which GraphQL
 * `viewer { login }` gives for every kind of token. The fake GitHub lets any token edit any
 * comment (as a token with admin rights may), so these runs show the action's own restraint, not
 * GitHub's refusal. And how it finds that comment on a pull request with thousands of comments.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { type FakeGitHub, startFakeGitHub } from '../../simulator/github.js';
import { operation } from '../../simulator/scenario.js';
import type { Simulator } from '../../simulator/server.js';
import { runAction, workflowCommands } from '../helpers/run-action.js';
import { DEFAULT_KEY, PROJECT, simulate } from '../helpers/sim.js';

let sim: Simulator | undefined;
let github: FakeGitHub | undefined;
afterEach(async () => {
  await sim?.close();
  await github?.close();
  sim = github = undefined;
});

const JOB_TOKEN = 'ghs_job_token';
const SHY_TOKEN = 'ghs_shy_token';
const NULL_VIEWER_TOKEN = 'ghs_null_viewer_token';

async function setUp(): Promise<{ s: Simulator; gh: FakeGitHub; opId: string }> {
  github = await startFakeGitHub({
    [JOB_TOKEN]: { author: 'github-actions[bot]' },
    [SHY_TOKEN]: {
      author: 'github-actions[bot]',
      graphql: { data: null, errors: [{ message: 'Something went wrong' }] }
    },
    [NULL_VIEWER_TOKEN]: { author: 'github-actions[bot]', graphql: { data: { viewer: null } } }
  });
  const op = operation(PROJECT, 'create_branch', [[-100, 'finished']]);
  sim = await simulate([op]);
  return { s: sim, gh: github, opId: op.id };
}

const run = (s: Simulator, gh: FakeGitHub, opId: string, token: string) =>
  runAction({
    inputs: {
      api_key: DEFAULT_KEY,
      api_host: s.url,
      project_id: PROJECT,
      operation_id: opId,
      comment_on_pr: 'true',
      github_token: token
    },
    event: { name: 'pull_request', payload: { number: 7, pull_request: { number: 7 } } },
    env: { GITHUB_API_URL: gh.url }
  });

const patches = (gh: FakeGitHub) => gh.requests.filter((r) => r.method === 'PATCH');

describe('PR comment identity', () => {
  it("asks GraphQL who the job's token is, and never edits another bot's comment with our marker", async () => {
    const { s, gh, opId } = await setUp();
    const first = await run(s, gh, opId, JOB_TOKEN);
    const marker = gh.comments[0]?.body.split('\n')[0] as string;
    gh.comments.length = 0;
    const foreign = gh.addComment(`${marker}\nwritten by another app`, 'other-app[bot]');

    const second = await run(s, gh, opId, JOB_TOKEN);
    expect(second.code).toBe(0);
    expect(gh.requests.some((r) => r.path === '/graphql' && r.status === 200)).toBe(true);
    expect(gh.requests.some((r) => r.path === '/user')).toBe(false);
    expect(patches(gh)).toEqual([]);
    expect(foreign.body).toBe(`${marker}\nwritten by another app`);
    const ours = gh.comments.filter((c) => c.user.login === 'github-actions[bot]');
    expect(ours).toHaveLength(1);
    expect(second.outputs.comment_url).toBe(ours[0]?.html_url);
    expect(first.outputs.comment_url).not.toBe('');

    // Its own comment is the one it keeps up to date.
    sim?.addOperation(operation(PROJECT, 'start_compute', [[s.now() - 50, 'finished']]));
    const third = await run(s, gh, opId, JOB_TOKEN);
    expect(third.outputs.comment_url).toBe(ours[0]?.html_url);
    expect(patches(gh).map((r) => r.path)).toEqual([
      expect.stringMatching(new RegExp(`/comments/${ours[0]?.id}$`))
    ]);
    expect(foreign.body).toBe(`${marker}\nwritten by another app`);
  });

  it.each([
    ['answers with an error', SHY_TOKEN],
    ['answers `viewer: null`', NULL_VIEWER_TOKEN]
  ])(
    'edits nothing when GraphQL %s: a new comment, with a warning saying why',
    async (_name, token) => {
      const { s, gh, opId } = await setUp();
      await run(s, gh, opId, JOB_TOKEN);
      expect(gh.comments).toHaveLength(1);
      sim?.addOperation(operation(PROJECT, 'start_compute', [[s.now() - 50, 'finished']]));
      const shy = await run(s, gh, opId, token);
      expect(shy.code).toBe(0);
      expect(patches(gh)).toEqual([]);
      expect(gh.comments).toHaveLength(2);
      expect(shy.outputs.comment_url).toBe(gh.comments[1]?.html_url);
      const warnings = workflowCommands(shy.stdout).filter((l) => l.startsWith('::warning'));
      expect(warnings.join('\n')).toMatch(/Could not tell which account github_token writes as/);
    }
  );
});

describe('PR comment on a pull request with thousands of comments', () => {
  const listed = (gh: FakeGitHub) =>
    gh.requests.filter((r) => r.method === 'GET' && r.path.includes('/comments'));

  it('updates its one comment, found on the newest page, reading a bounded number of pages', async () => {
    const { s, gh, opId } = await setUp();
    for (let i = 0; i < 3_050; i++) gh.addComment(`comment ${i}`, i % 2 ? 'alice' : 'bob');
    // The first run reads page 1 and the newest pages, at most 30 in all, and writes a comment.
    const first = await run(s, gh, opId, JOB_TOKEN);
    expect(first.code).toBe(0);
    expect(gh.comments.length).toBe(3_051);
    expect(listed(gh).length).toBeLessThanOrEqual(30);
    expect(first.stdout).toMatch(/searched 30 of 31 pages/);

    gh.requests.length = 0;
    sim?.addOperation(operation(PROJECT, 'start_compute', [[s.now() - 50, 'finished']]));
    const second = await run(s, gh, opId, JOB_TOKEN);
    expect(second.code).toBe(0);
    expect(gh.comments.length).toBe(3_051);
    expect(second.outputs.comment_url).toBe(first.outputs.comment_url);
    expect(patches(gh).map((r) => r.path)).toEqual([
      expect.stringMatching(new RegExp(`/comments/${gh.comments[3_050]?.id}$`))
    ]);
    // Page 1 (which names the last page), then the last page, where ours is.
    expect(listed(gh).map((r) => new URL(r.path, gh.url).searchParams.get('page'))).toEqual([
      '1',
      '31'
    ]);
  });
});
