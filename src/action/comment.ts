import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as log from './log.js';
import { redact } from '../util/redact.js';

/** The hidden line that tells this action's comment apart: tag, then a digest of the content. */
const MARKER_PREFIX = '<!-- neon-operations-wait-action';
/** The default GITHUB_TOKEN cannot read GET /user; its comments are written by this user. */
export const ACTIONS_BOT = 'github-actions[bot]';
/** The PR comment is a report: it may not hold the step for longer than this. */
const COMMENT_BUDGET_MS = 20_000;

export interface CommentTarget {
  owner: string;
  repo: string;
  issueNumber: number;
}

export interface CommentResult {
  url: string;
  action: 'created' | 'updated' | 'unchanged' | 'skipped';
}

/** The PR this event is about, or undefined (a push, a schedule, an issue comment on an issue). */
export function pullRequestOf(
  eventName: string,
  payload: Record<string, unknown>
): number | undefined {
  if (eventName === 'pull_request' || eventName === 'pull_request_target') {
    const number =
      (payload.pull_request as { number?: unknown } | undefined)?.number ?? payload.number;
    return typeof number === 'number' ? number : undefined;
  }
  if (eventName === 'issue_comment') {
    const issue = payload.issue as { number?: unknown; pull_request?: unknown } | undefined;
    return issue?.pull_request && typeof issue.number === 'number' ? issue.number : undefined;
  }
  return undefined;
}

export function marker(tag: string, digest: string): string {
  return `${MARKER_PREFIX} tag="${tag}" digest="${digest}" -->`;
}

export function digestOf(body: string): string {
  return createHash('sha256').update(body).digest('hex').slice(0, 16);
}

/** Our marker for this tag, with its digest, if the body has one. */
export function readMarker(body: string, tag: string): { digest: string } | undefined {
  const start = `${MARKER_PREFIX} tag="${tag}" digest="`;
  const at = body.indexOf(start);
  if (at < 0) return undefined;
  const digest = body.slice(at + start.length).match(/^([0-9a-f]{16})" -->/)?.[1];
  return digest ? { digest } : undefined;
}

/**
 * Creates or updates one sticky comment on the pull request. The comment is found by the marker
 * with this tag AND by its author being this token's identity, across every page of comments; a
 * comment by anyone else is never edited, even one holding a copied marker. Problems are warnings:
 * a report never fails the step.
 */
export async function upsertComment(options: {
  token: string;
  tag: string;
  body: string;
  /** What the body says, without times: an unchanged digest leaves the comment as it is. */
  digestSource: string;
  /** The job's cancellation; requests to GitHub also give up after COMMENT_BUDGET_MS. */
  signal?: AbortSignal;
  eventName: string;
  eventPath: string | undefined;
  repository: string | undefined;
}): Promise<CommentResult | undefined> {
  const payload = readEvent(options.eventPath);
  const issueNumber = pullRequestOf(options.eventName, payload);
  if (issueNumber === undefined) {
    log.notice(
      `comment_on_pr is true, but the '${options.eventName}' event is not about a pull request; no comment written.`
    );
    return undefined;
  }
  if (!options.token) {
    log.warning('comment_on_pr is true, but github_token is empty; no comment written.');
    return undefined;
  }
  const [owner, repo] = (options.repository ?? '').split('/');
  if (!owner || !repo) {
    log.warning('GITHUB_REPOSITORY is not set; no comment written.');
    return undefined;
  }

  // Loaded only here: most runs write no comment and need not pay for Octokit's start-up.
  const { getOctokit } = await import('@actions/github');
  const budget = AbortSignal.timeout(COMMENT_BUDGET_MS);
  const signal = options.signal ? AbortSignal.any([options.signal, budget]) : budget;
  const octokit = getOctokit(options.token, { request: { signal } });
  const digest = digestOf(options.digestSource);
  const body = `${marker(options.tag, digest)}\n${options.body}`;
  try {
    const me = await identity(octokit);
    const comments = await octokit.paginate(octokit.rest.issues.listComments, {
      owner,
      repo,
      issue_number: issueNumber,
      per_page: 100
    });
    const mine = comments.find(
      (c) =>
        c.user?.login === me &&
        typeof c.body === 'string' &&
        readMarker(c.body, options.tag) !== undefined
    );
    if (mine && readMarker(mine.body ?? '', options.tag)?.digest === digest) {
      log.info(`The PR comment is up to date: ${mine.html_url}`);
      return { url: mine.html_url, action: 'unchanged' };
    }
    if (mine) {
      const { data } = await octokit.rest.issues.updateComment({
        owner,
        repo,
        comment_id: mine.id,
        body
      });
      log.info(`Updated the PR comment: ${data.html_url}`);
      return { url: data.html_url, action: 'updated' };
    }
    const { data } = await octokit.rest.issues.createComment({
      owner,
      repo,
      issue_number: issueNumber,
      body
    });
    log.info(`Commented on the PR: ${data.html_url}`);
    return { url: data.html_url, action: 'created' };
  } catch (error) {
    const status = (error as { status?: number }).status;
    if (status === 403 || status === 404) {
      log.warning(
        `The token may not write comments on pull request #${issueNumber} (HTTP ${status}). ` +
          "Give the job 'permissions: pull-requests: write'; on pull requests from forks the token is read-only, " +
          'so use the pull_request_target event (with care) or leave comment_on_pr off there. The job summary has the report.'
      );
    } else {
      log.warning(
        `Could not write the PR comment: ${redact((error as Error).message ?? String(error))}`
      );
    }
    return undefined;
  }
}

/** The login comments are written under: GET /user for a personal token, the Actions bot otherwise. */
async function identity(octokit: {
  rest: { users: { getAuthenticated(): Promise<{ data: { login: string } }> } };
}): Promise<string> {
  try {
    const { data } = await octokit.rest.users.getAuthenticated();
    return data.login;
  } catch (error) {
    if (
      (error as { status?: number }).status === 403 ||
      (error as { status?: number }).status === 401
    )
      return ACTIONS_BOT;
    throw error;
  }
}

function readEvent(path: string | undefined): Record<string, unknown> {
  if (!path) return {};
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
}
