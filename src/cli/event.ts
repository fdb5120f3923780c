import { readFileSync } from 'node:fs';
import type { PullRequestRef } from '../requests/kind.js';

// The pull request a run is for, when the command runs in a GitHub Actions job: the event's, as the
// runner describes it (GITHUB_EVENT_NAME, the payload at GITHUB_EVENT_PATH, GITHUB_REPOSITORY),
// the same the action reads through `@actions/github`. Elsewhere, none: a create is not annotated.

/** The events whose payload names a pull request (an issue comment only when on one). */
const PULL_REQUEST_EVENTS = ['pull_request', 'pull_request_target'];

/** Files larger than this are not read: a payload is a few tens of kB. */
const MAX_EVENT_BYTES = 4 * 1024 * 1024;

export function pullRequestOfEnv(env: NodeJS.ProcessEnv): PullRequestRef | undefined {
  const { GITHUB_EVENT_NAME: event, GITHUB_EVENT_PATH: path, GITHUB_REPOSITORY: repository } = env;
  if (!event || !path || !repository) return undefined;
  let payload: unknown;
  try {
    const text = readFileSync(path, 'utf8');
    if (text.length > MAX_EVENT_BYTES) return undefined;
    payload = JSON.parse(text);
  } catch {
    return undefined; // no payload to read: the branch is made without the annotation
  }
  const number = numberOf(event, payload);
  return number === undefined ? undefined : { number, repository };
}

function numberOf(event: string, payload: unknown): number | undefined {
  if (!payload || typeof payload !== 'object') return undefined;
  const about = PULL_REQUEST_EVENTS.includes(event)
    ? 'pull_request' in payload && payload.pull_request
    : event === 'issue_comment' &&
      'issue' in payload &&
      payload.issue &&
      typeof payload.issue === 'object' &&
      'pull_request' in payload.issue &&
      payload.issue;
  const number = about && typeof about === 'object' && 'number' in about && about.number;
  return typeof number === 'number' && Number.isSafeInteger(number) && number > 0
    ? number
    : undefined;
}
