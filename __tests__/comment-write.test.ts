/**
 * writeComment in-process, with `@actions/core` mocked, against the fake GitHub on 127.0.0.1: how
 * it finds its comment among many pages, and what it does when GraphQL will not say who the token
 * is. `__tests__/e2e/comment.test.ts` shows the same through the built action.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import * as core from '../__fixtures__/core.js';
import { type FakeGitHub, startFakeGitHub, type TokenScript } from '../simulator/github.js';
import { pullRequestEnv } from './helpers/run-action.js';

jest.unstable_mockModule('@actions/core', () => core);

type CommentModule = typeof import('../src/action/comment.js');
type ModelModule = typeof import('../src/report/model.js');

const AUTHOR = 'github-actions[bot]';
const TOKEN = 'ghs_job_token';
const tokens: Record<string, TokenScript> = { [TOKEN]: { author: AUTHOR } };
const savedEnv = { ...process.env };
// Started in beforeAll, not on import: a run that filters out every test here runs no hook, and a
// server started on import would then be left open and keep the worker from exiting.
let gh: FakeGitHub;
let dir: string;
let digestOf: CommentModule['digestOf'];
let marker: CommentModule['marker'];
let writeComment: CommentModule['writeComment'];
let inputErrorReport: ModelModule['inputErrorReport'];
let report: ReturnType<ModelModule['inputErrorReport']>;

beforeAll(async () => {
  gh = await startFakeGitHub(tokens);
  dir = mkdtempSync(join(tmpdir(), 'comment-write-'));
  // Read when `@actions/github` is first loaded, by writeComment.
  Object.assign(process.env, pullRequestEnv(dir, gh.url));
  ({ digestOf, marker, writeComment } = await import('../src/action/comment.js'));
  ({ inputErrorReport } = await import('../src/report/model.js'));
  report = inputErrorReport('what this run says', 0, 1);
});
afterAll(async () => {
  process.env = savedEnv;
  await gh?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  core.reset();
  gh.comments.length = 0;
  gh.requests.length = 0;
});

/** A comment of ours from an earlier run (another digest: this run's report differs). */
const oursBefore = () => gh.addComment(`${marker('', digestOf('an earlier report'))}\nold`, AUTHOR);
const others = (count: number) => {
  for (let i = 0; i < count; i++) gh.addComment(`comment ${i}`, i % 2 ? 'alice' : 'bob');
};
const pagesRead = () =>
  gh.requests
    .filter((r) => r.method === 'GET' && r.path.includes('/comments'))
    .map((r) => Number(new URL(r.path, gh.url).searchParams.get('page') ?? 1));
const posts = () => gh.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/comments'));
const patched = () =>
  gh.requests.filter((r) => r.method === 'PATCH').map((r) => Number(r.path.split('/').pop()));
const warnings = () => core.warning.mock.calls.map(([message]) => String(message)).join('\n');

describe('writeComment: which account the token writes as', () => {
  it.each([
    ['viewer: null', { data: { viewer: null } }],
    ['data: null without errors', { data: null }],
    ['no data at all', {}],
    ['a viewer without a login', { data: { viewer: {} } }],
    ['a login that is a number', { data: { viewer: { login: 42 } } }],
    ['an empty login', { data: { viewer: { login: '' } } }],
    ['data that is a list', { data: [] }],
    ['a body that is a string', 'Service Unavailable'],
    ['a body that is null', null],
    ['an error beside the data', { data: { viewer: null }, errors: [{ message: 'x' }] }]
  ])('writes a new comment, and says why, when GraphQL answers %s', async (_name, answer) => {
    tokens.ghs_odd = { author: AUTHOR, graphql: answer };
    const old = oursBefore();
    const url = await writeComment({ githubToken: 'ghs_odd', commentTag: '' }, report);
    expect(patched()).toEqual([]);
    expect(posts()).toHaveLength(1);
    expect(gh.comments).toHaveLength(2);
    expect(url).toBe(gh.comments[1]?.html_url);
    expect(old.body).toContain('\nold');
    expect(warnings()).toMatch(
      /^Could not tell which account github_token writes as \(GraphQL viewer: [^]+\); a new PR comment is written/
    );
  });

  it('updates its comment when GraphQL names the viewer', async () => {
    const old = oursBefore();
    const url = await writeComment({ githubToken: TOKEN }, report);
    expect(patched()).toEqual([old.id]);
    expect(url).toBe(old.html_url);
    expect(warnings()).toBe('');
  });
});

describe('writeComment: finding its comment among many pages', () => {
  /** Ours among `before` and `after` comments of others, then one run: pages read, and the result. */
  async function runWith(before: number, after: number) {
    others(before);
    const old = oursBefore();
    others(after);
    const url = await writeComment({ githubToken: TOKEN }, report);
    return { old, url, pages: pagesRead() };
  }

  it('reads one page when all comments fit on it', async () => {
    const { old, url, pages } = await runWith(40, 59);
    expect(pages).toEqual([1]);
    expect(patched()).toEqual([old.id]);
    expect(url).toBe(old.html_url);
  });

  it('finds a comment on page 1 without reading further', async () => {
    const { old, pages } = await runWith(10, 3_500);
    expect(pages).toEqual([1]);
    expect(patched()).toEqual([old.id]);
  });

  it('finds a comment on the newest page of 3,000 and more: page 1, then the last', async () => {
    const { old, url, pages } = await runWith(3_050, 0);
    expect(pages).toEqual([1, 31]);
    expect(patched()).toEqual([old.id]);
    expect(posts()).toEqual([]);
    expect(url).toBe(old.html_url);
  });

  it('reads the newest pages backwards, 30 pages in all at most', async () => {
    // Ours is the first comment of page 3 of 31: the 30th page read.
    const { old, pages } = await runWith(200, 2_800);
    expect(pages).toEqual([1, ...Array.from({ length: 29 }, (_, i) => 31 - i)]);
    expect(patched()).toEqual([old.id]);
  });

  it('stops after 30 pages, writes a new comment at the end and says why, then finds that one', async () => {
    // Ours is on page 2 of 32, past the cap.
    const { url, pages } = await runWith(100, 3_000);
    expect(pages).toHaveLength(30);
    expect(pages).not.toContain(2);
    expect(patched()).toEqual([]);
    expect(posts()).toHaveLength(1);
    expect(url).toBe(gh.comments.at(-1)?.html_url);
    const said = core.info.mock.calls.map(([message]) => String(message)).join('\n');
    expect(said).toMatch(/searched 30 of 32 pages/);

    gh.requests.length = 0;
    const again = await writeComment({ githubToken: TOKEN }, inputErrorReport('changed', 0, 1));
    expect(again).toBe(url);
    expect(pagesRead()).toEqual([1, 32]);
    expect(posts()).toEqual([]);
    expect(patched()).toEqual([gh.comments.at(-1)?.id]);
  });
});
