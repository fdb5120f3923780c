/**
 * The sticky PR comment's decisions, through the action's step in-process (`runInProcess`, which
 * reads each run's pull request event as a spawned step does); they ran spawned before issue 46,
 * with the same assertions. `__tests__/e2e/comment.test.ts` keeps the comment through dist/, its
 * event read from the runner's environment, with the token's identity.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from '@jest/globals';
import { startFakeGitHub, type FakeGitHub } from '../../simulator/github.js';
import { operation, type OperationScript } from '../../simulator/scenario.js';
import type { Simulator } from '../../simulator/server.js';
import { runInProcess as runAction } from '../helpers/in-process-action.js';
import { workflowCommands } from '../helpers/run-action.js';
import { DEFAULT_KEY, history, PROJECT, simulate } from '../helpers/sim.js';

let sim: Simulator | undefined;
let github: FakeGitHub | undefined;
afterEach(async () => {
  await sim?.close();
  await github?.close();
  sim = undefined;
  github = undefined;
});

const PR_EVENT = { name: 'pull_request', payload: { number: 7, pull_request: { number: 7 } } };
const BOT_TOKEN = 'ghs_actions_token';
const USER_TOKEN = 'ghp_user_token';
const READ_ONLY_TOKEN = 'ghs_fork_token';
/** An installation token from actions/create-github-app-token: GET /user answers 403. */
const APP_TOKEN = 'ghs_app_installation_token';
/** Tokens GraphQL will not say the identity of: an error, and `viewer: null`. */
const SHY_TOKEN = 'ghs_shy_token';
const NULL_VIEWER_TOKEN = 'ghs_null_viewer_token';

async function fakeGitHub(): Promise<FakeGitHub> {
  return startFakeGitHub({
    [BOT_TOKEN]: { author: 'github-actions[bot]' },
    [USER_TOKEN]: { login: 'octocat', author: 'octocat' },
    [READ_ONLY_TOKEN]: { author: 'github-actions[bot]', readOnly: true },
    [APP_TOKEN]: { author: 'neon-preview[bot]' },
    [SHY_TOKEN]: {
      author: 'github-actions[bot]',
      graphql: { data: null, errors: [{ message: 'Something went wrong' }] }
    },
    [NULL_VIEWER_TOKEN]: { author: 'github-actions[bot]', graphql: { data: { viewer: null } } }
  });
}

/** The fake GitHub and a simulator whose one operation has finished: what most cases start from. */
async function start(): Promise<{ gh: FakeGitHub; s: Simulator; op: OperationScript }> {
  github = await fakeGitHub();
  const op = operation(PROJECT, 'create_branch', [[-100, 'finished']]);
  sim = await simulate([op]);
  return { gh: github, s: sim, op };
}

function inputs(s: Simulator, more: Record<string, string>): { inputs: Record<string, string> } {
  return {
    inputs: { api_key: DEFAULT_KEY, api_host: s.url, interval: '1s', timeout: '20s', ...more }
  };
}

describe('sticky PR comment', () => {
  const commentInputs = (s: Simulator, op: OperationScript, more: Record<string, string> = {}) => ({
    ...inputs(s, {
      operation_id: op.id,
      project_id: PROJECT,
      comment_on_pr: 'true',
      github_token: BOT_TOKEN,
      ...more
    }),
    event: PR_EVENT,
    env: { GITHUB_API_URL: github?.url as string }
  });

  it('creates one comment, updates it when the content changes, and leaves it when it does not', async () => {
    const { gh, s, op } = await start();
    const first = await runAction(commentInputs(s, op));
    expect(first.code).toBe(0);
    expect(gh.comments).toHaveLength(1);
    expect(first.outputs.comment_url).toBe(gh.comments[0]?.html_url);
    expect(gh.comments[0]?.user.login).toBe('github-actions[bot]');
    expect(gh.comments[0]?.body).toMatch(
      /^<!-- neon-operations-wait-action tag="" digest="[0-9a-f]{16}" -->/
    );
    // Short on top (the summary's verdict and facts), the tables folded.
    const body = gh.comments[0]?.body ?? '';
    const top = first.summary.slice(0, first.summary.indexOf('#### Awaited operations'));
    expect(body).toContain(
      `-->\n${top}<details><summary>Operations: 1 awaited · timeline</summary>`
    );
    expect(body.indexOf('| --- |')).toBeGreaterThan(body.indexOf('<details>'));

    const same = await runAction(commentInputs(s, op));
    expect(same.stdout).toContain('The PR comment is up to date');
    expect(gh.requests.filter((r) => r.method === 'PATCH')).toHaveLength(0);

    const firstDigest = /digest="([0-9a-f]{16})"/.exec(gh.comments[0]?.body ?? '')?.[1];
    const added = operation(PROJECT, 'start_compute', [[s.now() - 50, 'finished']]);
    s.addOperation(added);
    const changed = await runAction(commentInputs(s, op));
    expect(changed.outputs.comment_url).toBe(first.outputs.comment_url);
    expect(gh.requests.filter((r) => r.method === 'PATCH')).toHaveLength(1);
    expect(gh.comments).toHaveLength(1);
    // The comment now shows the new operation, under a new digest.
    expect(gh.comments[0]?.body).toContain(added.id.slice(0, 8));
    expect(gh.comments[0]?.body).not.toContain(`digest="${firstDigest}"`);
  });

  it('finds its comment among many pages and never edits a copied marker in someone else’s comment', async () => {
    const { gh, s, op } = await start();
    const first = await runAction(commentInputs(s, op));
    const ours = gh.comments[0];
    const copied = `${ours?.body.split('\n')[0]}\nI copied your marker`;
    for (let i = 0; i < 250; i++)
      gh.addComment(i === 120 ? copied : `comment ${i}`, i % 2 ? 'alice' : 'bob');
    // Move ours to the end (page 3), after the copy.
    gh.comments.push(gh.comments.shift() as never);
    s.addOperation(operation(PROJECT, 'apply_config', [[s.now() - 50, 'finished']]));
    gh.requests.length = 0;
    const second = await runAction(commentInputs(s, op));
    expect(second.outputs.comment_url).toBe(first.outputs.comment_url);
    // Page 1, which names the last page, then the last page.
    expect(
      gh.requests
        .filter((r) => r.method === 'GET' && r.path.includes('/comments'))
        .map((r) => new URL(r.path, gh.url).searchParams.get('page'))
    ).toEqual(['1', '3']);
    expect(gh.comments.find((c) => c.body.includes('I copied your marker'))?.body).toBe(copied);
    expect(gh.comments.filter((c) => c.user.login === 'github-actions[bot]')).toHaveLength(1);
  });

  it('updates its one comment on a pull request with thousands, reading a bounded number of pages', async () => {
    const { gh, s, op } = await start();
    const listed = () =>
      (gh.requests ?? []).filter((r) => r.method === 'GET' && r.path.includes('/comments'));
    for (let i = 0; i < 3_050; i++) gh.addComment(`comment ${i}`, i % 2 ? 'alice' : 'bob');
    // The first run reads page 1 and the newest pages, at most 30 in all, and writes a comment.
    const first = await runAction(commentInputs(s, op));
    expect(first.code).toBe(0);
    expect(gh.comments.length).toBe(3_051);
    expect(listed().length).toBeLessThanOrEqual(30);
    expect(first.stdout).toMatch(/searched 30 of 31 pages/);

    gh.requests.length = 0;
    s.addOperation(operation(PROJECT, 'start_compute', [[s.now() - 50, 'finished']]));
    const second = await runAction(commentInputs(s, op));
    expect(second.code).toBe(0);
    expect(gh.comments.length).toBe(3_051);
    expect(second.outputs.comment_url).toBe(first.outputs.comment_url);
    expect(gh.requests.filter((r) => r.method === 'PATCH').map((r) => r.path)).toEqual([
      expect.stringMatching(new RegExp(`/comments/${gh.comments[3_050]?.id}$`))
    ]);
    // Page 1 (which names the last page), then the last page, where ours is.
    expect(listed().map((r) => new URL(r.path, gh.url).searchParams.get('page'))).toEqual([
      '1',
      '31'
    ]);
  });

  it.each([
    ['answers with an error', SHY_TOKEN],
    ['answers `viewer: null`', NULL_VIEWER_TOKEN]
  ])(
    'edits nothing when GraphQL %s: a new comment, with a warning saying why',
    async (_name, token) => {
      const { gh, s, op } = await start();
      await runAction(commentInputs(s, op));
      expect(gh.comments).toHaveLength(1);
      s.addOperation(operation(PROJECT, 'start_compute', [[s.now() - 50, 'finished']]));
      const shy = await runAction(commentInputs(s, op, { github_token: token }));
      expect(shy.code).toBe(0);
      expect(gh.requests.filter((r) => r.method === 'PATCH')).toEqual([]);
      expect(gh.comments).toHaveLength(2);
      expect(shy.outputs.comment_url).toBe(gh.comments[1]?.html_url);
      const warnings = workflowCommands(shy.stdout).filter((l) => l.startsWith('::warning'));
      expect(warnings.join('\n')).toMatch(/Could not tell which account github_token writes as/);
    }
  );

  it('keeps separate comments per comment_tag and asks GraphQL viewer who a personal token is', async () => {
    const { gh, s, op } = await start();
    await runAction(commentInputs(s, op, { comment_tag: 'preview', github_token: USER_TOKEN }));
    await runAction(commentInputs(s, op, { comment_tag: 'staging', github_token: USER_TOKEN }));
    await runAction(commentInputs(s, op, { comment_tag: 'preview', github_token: USER_TOKEN }));
    expect(gh.comments).toHaveLength(2);
    expect(gh.comments.every((c) => c.user.login === 'octocat')).toBe(true);
    expect(gh.requests.some((r) => r.path === '/graphql' && r.status === 200)).toBe(true);
  });

  it('updates its one comment with a GitHub App token, and never edits a person’s or another bot’s', async () => {
    const { gh, s, op } = await start();
    const first = await runAction(commentInputs(s, op, { github_token: APP_TOKEN }));
    expect(first.code).toBe(0);
    expect(gh.comments.map((c) => c.user.login)).toEqual(['neon-preview[bot]']);
    const marker = gh.comments[0]?.body.split('\n')[0] as string;
    // Copies of the marker by a person and by another bot, listed before ours.
    gh.addComment(`${marker}\nby a person`, 'alice');
    gh.addComment(`${marker}\nby another bot`, 'other-app[bot]');
    gh.comments.push(gh.comments.shift() as never);
    for (let run = 0; run < 2; run++) {
      s.addOperation(operation(PROJECT, 'apply_config', [[s.now() - 50, 'finished']]));
      const again = await runAction(commentInputs(s, op, { github_token: APP_TOKEN }));
      expect(again.code).toBe(0);
      expect(again.outputs.comment_url).toBe(first.outputs.comment_url);
    }
    expect(gh.comments).toHaveLength(3);
    expect(gh.comments.filter((c) => c.user.login === 'neon-preview[bot]')).toHaveLength(1);
    expect(gh.comments.find((c) => c.user.login === 'alice')?.body).toContain('by a person');
    expect(gh.comments.find((c) => c.user.login === 'other-app[bot]')?.body).toContain(
      'by another bot'
    );
    // The person's comment was never even tried.
    const alice = gh.comments.find((c) => c.user.login === 'alice');
    expect(gh.requests.some((r) => r.method === 'PATCH' && r.path.endsWith(`/${alice?.id}`))).toBe(
      false
    );
  });

  it('keeps a key that the API echoes out of every byte, after labels, cells and charts reshape it', async () => {
    github = await fakeGitHub();
    const hex = randomUUID().replace(/-/g, '');
    const key = `napi_${hex}`;
    const op = operation(
      PROJECT,
      key,
      [[-100, 'error', { error: `key ${key} refused; @octocat see #12`, failures_count: 1 }]],
      { branch_id: key.slice(0, 60).toLowerCase() }
    );
    sim = await simulate({
      keys: { [key]: { kind: 'personal', user: 'user-1' } },
      projects: [{ id: PROJECT, name: 'p', owner_id: 'user-1' }],
      operations: [op]
    });
    const run = await runAction(
      commentInputs(sim, op, { api_key: key, summary_limit: '5', github_token: BOT_TOKEN })
    );
    expect(run.code).toBe(1);
    expect(github.comments).toHaveLength(1);
    const written = [run.everything, github.comments[0]?.body ?? ''].join('\n');
    expect(written).toContain('***');
    // No 12 characters in a row of the key's random part, in any case, anywhere.
    for (let i = 0; i + 12 <= hex.length; i++) {
      expect(written.toLowerCase()).not.toContain(hex.slice(i, i + 12));
    }
    // Mentions and references in API text reach neither the summary nor the comment as such.
    for (const text of [run.summary, github.comments[0]?.body ?? '']) {
      expect(text).toContain('&#64;\u200boctocat');
      expect(text).toContain('&#35;\u200b12');
    }
  });

  it('warns, without failing, when the token is read-only (a fork PR)', async () => {
    const { s, op } = await start();
    const run = await runAction(commentInputs(s, op, { github_token: READ_ONLY_TOKEN }));
    expect(run.code).toBe(0);
    const warnings = workflowCommands(run.stdout).filter((l) => l.startsWith('::warning'));
    expect(warnings.join('\n')).toMatch(/pull-requests: write.*pull_request_target/);
    expect(run.outputs.comment_url).toBe('');
  });

  it('writes a notice and no comment when the event has no pull request', async () => {
    const { gh, s, op } = await start();
    const run = await runAction({
      ...commentInputs(s, op),
      event: { name: 'push', payload: {} }
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /::notice::comment_on_pr is true, but the 'push' event is not about a pull request/
    );
    expect(gh.requests).toHaveLength(0);
  });

  it('shortens a long report to fit a comment', async () => {
    github = await fakeGitHub();
    const op = operation(PROJECT, 'create_branch', [[-100, 'finished']]);
    sim = await simulate([op, ...history(1000, {}, 'x'.repeat(200))]);
    const run = await runAction(commentInputs(sim, op, { summary_limit: '1000' }));
    expect(run.code).toBe(0);
    expect(github.comments).toHaveLength(1);
    expect(github.comments[0]?.body.length).toBeLessThanOrEqual(65_536);
    expect(github.comments[0]?.body).toMatch(/older rows were left out/);
  });
});
