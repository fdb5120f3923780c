import { describe, expect, it } from '@jest/globals';
import { inputErrorOf, settingsOf } from './helpers/settings.js';

// The free-form request (src/requests/api-request.ts): `request`'s method, path and placeholders, and `body`.

const PROJECT = 'spring-example-302709';

describe('request and body', () => {
  it("database_url 'response' needs a request; with one, the URL comes from the answer", () => {
    expect(inputErrorOf({ database_url: 'response' }).message).toBe(
      "Input 'database_url' is 'response', which needs input 'request', input 'create_branch' or input 'reset_branch'."
    );
    const settings = settingsOf({
      project_id: PROJECT,
      request: 'POST /projects/{project_id}/branches',
      database_url: 'response'
    });
    expect(settings).toMatchObject({ databaseFromResponse: true, databaseUrl: undefined });
  });

  it('fills {project_id} and {branch_id} from the inputs, the method in upper case, the body as written', () => {
    const settings = settingsOf({
      project_id: PROJECT,
      branch_id: 'br-wispy-meadow-118737',
      request: 'post /projects/{project_id}/branches/{branch_id}/restore',
      body: '{"source_branch_id":"br-main"}'
    });
    expect(settings.request).toEqual({
      kind: 'request',
      method: 'POST',
      path: `/projects/${PROJECT}/branches/br-wispy-meadow-118737/restore`,
      body: '{"source_branch_id":"br-main"}'
    });
  });

  it.each([
    ['https://evil.example/api/v2/projects', /not a path relative to the API base/],
    ['//evil.example/projects', /not a path relative to the API base/],
    ['/projects/../../v1/x', /dot segment/],
    ['/projects/%2E%2e/x', /dot segment or an encoded dot or slash/],
    ['/projects/a%2Fb', /encoded dot or slash/],
    ['/projects/{project_id/branches', /unclosed placeholder/]
  ])('POST %s is refused', (path, why) => {
    const error = inputErrorOf({ project_id: PROJECT, request: `POST ${path}` });
    expect(error.input).toBe('request');
    expect(error.message).toMatch(/^Input 'request' must be a method/);
    expect(error.message).toMatch(why);
  });

  it('a method other than GET POST PATCH PUT DELETE is refused', () => {
    expect(inputErrorOf({ request: 'HEAD /projects' }).message).toMatch(
      /^Input 'request' must be a method .*'HEAD' is not one of these methods/
    );
    expect(inputErrorOf({ request: 'POST' }).message).toMatch(/Input 'request' must be/);
  });

  it('an unknown placeholder, or one whose input is not set, is refused', () => {
    expect(inputErrorOf({ request: 'GET /projects/{project_id}' }).message).toBe(
      "Input 'request' uses {project_id}, but input 'project_id' is not set."
    );
    expect(inputErrorOf({ project_id: PROJECT, request: 'GET /projects/{org}' }).message).toMatch(
      /uses \{org\}, which is not a placeholder/
    );
  });

  it('a body that is not JSON, with GET, or without a request is refused, never echoed', () => {
    const base = { project_id: PROJECT, request: 'POST /projects/{project_id}/branches' };
    const notJson = inputErrorOf({ ...base, body: '{"password": hunter2-secret}' });
    expect(notJson.input).toBe('body');
    expect(notJson.message).toBe(
      "Input 'body' must be JSON; it is not valid JSON, from line 1, column 14."
    );
    const withGet = inputErrorOf({ ...base, request: 'GET /projects/{project_id}', body: '{}' });
    expect(withGet.message).toBe("Input 'body' must be empty with a GET input 'request'.");
    expect(inputErrorOf({ body: '{}' }).message).toBe(
      "Input 'body' needs input 'request': it is the body of that request."
    );
  });
});
