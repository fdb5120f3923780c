import { describe, expect, it } from '@jest/globals';
import { inputErrorOf as inputErrorIn, settingsOf as settingsIn } from './helpers/settings.js';

// The request kinds' inputs (src/requests/): `request`'s path as the URL parser resolves it, and
// the preview-branch inputs read into one typed request, refused before anything is sent.

const PROJECT = 'spring-example-302709';

// Every case here names its project, as a step that sends a request does.
const settingsOf = (values: Record<string, string>) =>
  settingsIn({ project_id: PROJECT, ...values });
const inputErrorOf = (values: Record<string, string>) =>
  inputErrorIn({ project_id: PROJECT, ...values });

describe('request: the path as the URL parser resolves it (issue 36 class 2)', () => {
  it.each(['GET /..#', 'POST /..#x', 'GET /projects#/x'])("'%s' is refused: '#'", (request) => {
    const error = inputErrorOf({ request });
    expect(error.input).toBe('request');
    expect(error.message).toMatch(/holds '#'/);
  });

  it('a path under the base passes as a typed request', () => {
    expect(settingsOf({ request: 'GET /projects/{project_id}/branches?search=a' }).request).toEqual(
      {
        kind: 'request',
        method: 'GET',
        path: `/projects/${PROJECT}/branches?search=a`
      }
    );
  });
});

describe('create_branch with what names other work to wait for (issue 44 item 10)', () => {
  it.each([
    ['operation_id', '0c1f4b2a-3e5d-4f6a-8b7c-9d0e1f2a3b4c'],
    [
      'operations',
      JSON.stringify([
        {
          id: '0c1f4b2a-3e5d-4f6a-8b7c-9d0e1f2a3b4c',
          project_id: PROJECT,
          action: 'create_branch',
          status: 'running',
          failures_count: 0,
          created_at: '2024-01-01T00:00:00Z',
          updated_at: '2024-01-01T00:00:00Z'
        }
      ])
    ],
    ['endpoint_id', 'ep-cool-darkness-123456']
  ])('%s is refused before anything is sent: the step waits for the branch', (name, value) => {
    const error = inputErrorOf({ create_branch: 'preview/pr-1', [name]: value });
    expect(error.input).toBe(name);
    expect(error.message).toBe(
      `Input '${name}' cannot be used with input 'create_branch': the step waits for the branch it creates. ` +
        'Wait for other work in a step of its own.'
    );
  });

  it('watch_job and an empty operation_id pass', () => {
    const request = settingsOf({
      create_branch: 'preview/pr-1',
      watch_job: 'true',
      operation_id: ''
    });
    expect(request.request).toMatchObject({ kind: 'create_branch' });
  });
});

describe('create_branch and delete_branch: one typed request', () => {
  it('create_branch with its inputs', () => {
    const request = settingsOf({
      create_branch: ' preview/pr-42 ',
      parent: 'dev',
      expires_in: '7d',
      role_name: 'app',
      database_name: 'appdb'
    }).request;
    expect(request).toEqual({
      kind: 'create_branch',
      name: 'preview/pr-42',
      parent: 'dev',
      expiresInMs: 7 * 86_400_000,
      roleName: 'app',
      databaseName: 'appdb'
    });
  });

  it('a name is counted in characters (code points), as the OpenAPI maxLength of 256 counts it', () => {
    const emoji = '🌿'.repeat(200); // 400 UTF-16 units
    expect(settingsOf({ create_branch: emoji }).request).toMatchObject({ name: emoji });
    expect(settingsOf({ delete_branch: '🌿'.repeat(256) }).request).toMatchObject({
      branch: '🌿'.repeat(256)
    });
    const error = inputErrorOf({ create_branch: '🌿'.repeat(257) });
    expect(error.input).toBe('create_branch');
    expect(error.message).toMatch(/of 1 to 256 characters.*; it has 257 characters\./);
  });

  it('delete_branch by name or id', () => {
    expect(settingsOf({ delete_branch: 'preview/pr-42' }).request).toEqual({
      kind: 'delete_branch',
      branch: 'preview/pr-42'
    });
  });

  it.each<[Record<string, string>, string, RegExp]>([
    [{ create_branch: '   ' }, 'create_branch', /must be a branch name .*empty/],
    [{ delete_branch: ' ' }, 'delete_branch', /must be a branch name .*empty/],
    [{ create_branch: 'a\nb' }, 'create_branch', /control character or a newline/],
    [
      { create_branch: 'x', expires_in: 'soon' },
      'expires_in',
      /must be a duration .*'soon' is not a duration/
    ],
    [{ create_branch: 'x', expires_in: '1s' }, 'expires_in', /too short/],
    [
      { request: 'GET /projects', create_branch: 'x' },
      'request',
      /and input 'create_branch' cannot both be set/
    ],
    [
      { create_branch: 'x', delete_branch: 'x' },
      'create_branch',
      /and input 'delete_branch' cannot both be set/
    ],
    [{ parent: 'main' }, 'parent', /is an input of input 'create_branch', which is not set/],
    [{ delete_branch: 'x', expires_in: '7d' }, 'expires_in', /input of input 'create_branch'/],
    [{ create_branch: 'x', body: '{}' }, 'body', /writes its own/],
    [
      { delete_branch: 'x', body: '{}' },
      'body',
      /is the body of input 'request'; input 'delete_branch' writes its own request/
    ],
    [
      { database_url: 'response', delete_branch: 'x' },
      'database_url',
      /needs input 'request', input 'create_branch' or input 'reset_branch'/
    ]
  ])('%j: an error naming %s', (values, input, why) => {
    const error = inputErrorOf(values);
    expect(error.input).toBe(input);
    expect(error.message).toMatch(why);
  });
});
