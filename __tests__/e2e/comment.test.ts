/**
 * The sticky PR comment through dist/, its pull request read from the event file the runner names:
 * whose comment the action edits, only one written by the token's own identity, which GraphQL
 * `viewer { login }` gives for every kind of token. The fake GitHub lets any token edit any
 * comment (as a token with admin rights may), so these runs show the action's own restraint, not
 * GitHub's refusal. The comment's other decisions (a token GraphQL will not name, thousands of
 * comments, tags, forks) run in-process: `__tests__/in-process/comment.test.ts`.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { type FakeGitHub, startFakeGitHub } from '../../simulator/github.js';
import { operation } from '../../simulator/scenario.js';
import type { Simulator } from '../../simulator/server.js';
import { runAction } from '../helpers/run-action.js';
import { DEFAULT_KEY, PROJECT, simulate } from '../helpers/sim.js';

let sim: Simulator | undefined;
let github: FakeGitHub | undefined;
afterEach(async () => {
  await sim?.close();
  await github?.close();
  sim = github = undefined;
});

const JOB_TOKEN = 'ghs_job_token';

async function setUp(): Promise<{ s: Simulator; gh: FakeGitHub; opId: string }> {
  github = await startFakeGitHub({ [JOB_TOKEN]: { author: 'github-actions[bot]' } });
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
});
