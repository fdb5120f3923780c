import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { context } from '@actions/github';
import {
  digestOf,
  type GitHubContext,
  isAuthor,
  marker,
  pullRequestOf,
  readMarker
} from '../src/action/comment.js';

const dir = mkdtempSync(join(tmpdir(), 'comment-test-'));
const savedEnv = { ...process.env };
// Read by `context.repo` (and so `context.issue`) when asked, not when the context is made.
process.env.GITHUB_REPOSITORY = 'octo-org/octo-repo';
afterAll(() => {
  process.env = savedEnv;
  rmSync(dir, { recursive: true, force: true });
});

/** `@actions/github`'s own Context, read from an event as the runner passes it. */
function contextOf(eventName: string, payload: unknown): GitHubContext {
  const path = join(dir, 'event.json');
  writeFileSync(path, JSON.stringify(payload));
  const saved = { ...process.env };
  Object.assign(process.env, { GITHUB_EVENT_PATH: path, GITHUB_EVENT_NAME: eventName });
  try {
    return new (context.constructor as new () => GitHubContext)();
  } finally {
    process.env = saved;
  }
}

const prOf = (eventName: string, payload: unknown) => pullRequestOf(contextOf(eventName, payload));

describe('pullRequestOf', () => {
  it.each(['pull_request', 'pull_request_target'])('reads the PR number of a %s event', (event) => {
    expect(prOf(event, { number: 42, pull_request: { number: 42 } })).toBe(42);
  });

  it.each(['pull_request', 'pull_request_target'])(
    'falls back to the top-level number of a %s event',
    (event) => {
      expect(prOf(event, { number: 7 })).toBe(7);
    }
  );

  it('prefers pull_request.number over the top-level number', () => {
    expect(prOf('pull_request', { number: 1, pull_request: { number: 2 } })).toBe(2);
  });

  it.each([
    ['no number at all', {}],
    ['a string number', { number: '42' }],
    ['a string pull_request.number', { pull_request: { number: '42' } }]
  ])('gives undefined for a pull_request event with %s', (_name, payload) => {
    expect(prOf('pull_request', payload)).toBeUndefined();
  });

  it('reads an issue_comment on a pull request', () => {
    const payload = {
      issue: { number: 17, pull_request: { url: 'https://api.github.com/repos/o/r/pulls/17' } },
      comment: { body: 'hi' }
    };
    expect(prOf('issue_comment', payload)).toBe(17);
  });

  it('gives undefined for an issue_comment on a plain issue', () => {
    expect(prOf('issue_comment', { issue: { number: 17 } })).toBeUndefined();
    expect(prOf('issue_comment', { issue: { number: 17, pull_request: null } })).toBeUndefined();
  });

  it('gives undefined for an issue_comment without an issue', () => {
    expect(prOf('issue_comment', {})).toBeUndefined();
  });

  it.each(['push', 'schedule', 'workflow_dispatch', 'issues', ''])(
    'gives undefined for a %j event, even with a number in the payload',
    (event) => {
      expect(
        prOf(event, { number: 3, pull_request: { number: 3 }, issue: { number: 3 } })
      ).toBeUndefined();
    }
  );
});

describe('marker and readMarker', () => {
  const digest = digestOf('what the report says');

  it.each(['', 'a', 'staging db', 'v1.2/@me+x_y'])('round-trips the tag %j', (tag) => {
    const body = `${marker(tag, digest)}\n### Neon operations: finished\n`;
    expect(readMarker(body, tag)).toEqual({ digest });
  });

  it('is an HTML comment on its own', () => {
    const line = marker('a', digest);
    expect(line.startsWith('<!--')).toBe(true);
    expect(line.endsWith('-->')).toBe(true);
    expect(line).not.toContain('\n');
  });

  it('does not read the marker of tag "a" for tag "b"', () => {
    const body = `${marker('a', digest)}\nbody`;
    expect(readMarker(body, 'b')).toBeUndefined();
  });

  it('does not read the marker of the default tag for another tag, or the reverse', () => {
    expect(readMarker(marker('', digest), 'x')).toBeUndefined();
    expect(readMarker(marker('x', digest), '')).toBeUndefined();
  });

  it('tells a tag from a longer tag that starts with it', () => {
    expect(readMarker(marker('ab', digest), 'a')).toBeUndefined();
    expect(readMarker(marker('a', digest), 'ab')).toBeUndefined();
  });

  it('reads the marker for its own tag when a body has markers of several tags', () => {
    const other = digestOf('another report');
    const body = `${marker('a', digest)}\n${marker('b', other)}\n`;
    expect(readMarker(body, 'a')).toEqual({ digest });
    expect(readMarker(body, 'b')).toEqual({ digest: other });
  });

  it.each([
    ['a digest with upper-case hex', (d: string) => d.toUpperCase()],
    ['a digest one character short', (d: string) => d.slice(1)],
    ['a digest one character long', (d: string) => `${d}0`],
    ['a digest with a non-hex character', (d: string) => `g${d.slice(1)}`],
    ['an empty digest', () => '']
  ])('does not read a marker with %s', (_name, tamper) => {
    const body = `${marker('a', tamper(digest))}\nbody`;
    expect(readMarker(body, 'a')).toBeUndefined();
  });

  it('does not read a marker whose ending was changed', () => {
    const body = marker('a', digest).replace(' -->', '-->');
    expect(readMarker(body, 'a')).toBeUndefined();
  });

  it('does not read a body without a marker', () => {
    expect(readMarker('### Neon operations: finished', 'a')).toBeUndefined();
    expect(readMarker('', '')).toBeUndefined();
  });
});

describe('digestOf', () => {
  it('is 16 lower-case hex characters', () => {
    for (const body of ['', 'x', 'a longer body\nwith lines', '✅ ünïcödé'])
      expect(digestOf(body)).toMatch(/^[0-9a-f]{16}$/);
  });

  it('is stable', () => {
    expect(digestOf('same text')).toBe(digestOf('same text'));
    // The first 16 hex characters of SHA-256("abc").
    expect(digestOf('abc')).toBe('ba7816bf8f01cfea');
  });

  it('differs for different bodies', () => {
    expect(digestOf('a')).not.toBe(digestOf('b'));
    expect(digestOf('report')).not.toBe(digestOf('report '));
  });
});

describe('isAuthor', () => {
  const bot = (login: string) => ({ login, type: 'Bot' });
  const user = (login: string) => ({ login, type: 'User' });

  it('matches the viewer itself, and a bot named with or without [bot]', () => {
    expect(isAuthor(bot('github-actions[bot]'), 'github-actions[bot]')).toBe(true);
    expect(isAuthor(bot('github-actions[bot]'), 'github-actions')).toBe(true);
    expect(isAuthor(user('octocat'), 'octocat')).toBe(true);
  });

  it('never matches another account, nor a person named like the bot', () => {
    expect(isAuthor(user('github-actions'), 'github-actions[bot]')).toBe(false);
    expect(isAuthor(bot('other-app[bot]'), 'github-actions[bot]')).toBe(false);
    expect(isAuthor(null, 'github-actions[bot]')).toBe(false);
  });
});
