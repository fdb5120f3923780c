/**
 * A pull request's state read through `@actions/github` (Octokit) from the GitHub stand-in, whose
 * answer has the types of GitHub's REST schema (`pulls.get`, as Octokit declares it).
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import type { GitHub } from '@actions/github/lib/utils';
import { readPullState, readPullStates } from '../src/requests/pull-state.js';
import { type PullBody, startFakeGitHub } from '../simulator/github.js';

const TOKEN = 'ghs_sweep_token';
const gh = await startFakeGitHub(
  { [TOKEN]: { author: 'github-actions[bot]' } },
  {
    1: { state: 'open' },
    2: { state: 'closed', closedAt: Date.parse('2026-11-20T10:00:00Z') },
    3: { state: 'merged', closedAt: Date.parse('2026-11-21T10:00:00Z') }
  }
);
afterAll(() => gh.close());
const reader = { token: TOKEN, repository: 'octo-org/octo-repo', baseUrl: gh.url };

/** What Octokit declares GitHub answers to Get a pull request. */
type GitHubPull = Awaited<ReturnType<InstanceType<typeof GitHub>['rest']['pulls']['get']>>['data'];
/** The stand-in's fields have GitHub's types: `tsc` fails on this line when one differs. */
const asGitHub = (body: PullBody): Pick<GitHubPull, Exclude<keyof PullBody, 'head'>> => body;

describe("the GitHub stand-in's Get a pull request", () => {
  it('answers open, closed and merged as GitHub does; 404 for an unknown number', async () => {
    const get = async (n: number) => {
      const res = await fetch(`${gh.url}/repos/octo-org/octo-repo/pulls/${n}`, {
        headers: { authorization: `token ${TOKEN}` }
      });
      return { status: res.status, body: (await res.json()) as PullBody };
    };
    const open = await get(1);
    expect(asGitHub(open.body)).toMatchObject({
      number: 1,
      state: 'open',
      merged: false,
      merged_at: null,
      closed_at: null
    });
    expect((await get(2)).body).toMatchObject({
      state: 'closed',
      merged: false,
      merged_at: null,
      closed_at: '2026-11-20T10:00:00Z'
    });
    expect((await get(3)).body).toMatchObject({
      state: 'closed',
      merged: true,
      merged_at: '2026-11-21T10:00:00Z',
      closed_at: '2026-11-21T10:00:00Z'
    });
    const missing = await get(99);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ message: 'Not Found' });
  });
});

describe('readPullState / readPullStates', () => {
  it('reads open, closed, merged and not-found', async () => {
    expect(await readPullState(reader, 1)).toBe('open');
    expect(await readPullState(reader, 2)).toBe('closed');
    expect(await readPullState(reader, 3)).toBe('merged');
    expect(await readPullState(reader, 99)).toBe('not-found');
  });

  it('reads each number once, and a state set later', async () => {
    gh.setPull(4, { state: 'open' });
    const before = gh.requests.length;
    const { states, error } = await readPullStates(reader, [4, 1, 4, 3, 1]);
    expect(error).toBeUndefined();
    expect([...states]).toEqual([
      [4, 'open'],
      [1, 'open'],
      [3, 'merged']
    ]);
    const reads = gh.requests.slice(before).map((r) => `${r.method} ${r.path}`);
    expect(reads).toEqual([
      'GET /repos/octo-org/octo-repo/pulls/4',
      'GET /repos/octo-org/octo-repo/pulls/1',
      'GET /repos/octo-org/octo-repo/pulls/3'
    ]);
  });

  it('a token GitHub refuses: the first 401 ends the reading, with the error; nothing read', async () => {
    const before = gh.requests.length;
    const { states, error } = await readPullStates({ ...reader, token: 'ghs_wrong' }, [1, 2, 3]);
    expect(states.size).toBe(0);
    expect(error).toMatchObject({ name: 'PullReadError', status: 401 });
    expect(error?.message).toMatch(/^pull request #1 of octo-org\/octo-repo: Bad credentials/);
    expect(error?.message).not.toContain('ghs_wrong');
    expect(gh.requests.length - before).toBe(1);
  });
});
