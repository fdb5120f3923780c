import { createHash } from 'node:crypto';
import type * as github from '@actions/github';
import * as log from './log.js';
import { type Report, stableView } from '../report/model.js';
import { renderComment } from '../report/summary.js';
import type { Settings } from '../settings.js';
import { redact } from '../util/redact.js';

// Our comment is found by marker and author. GitHub lists comments oldest first only: page 1 holds
// a PR's first run's, the newest pages any later one, so a long PR gains at most one more comment.
// No id is kept in the runner's state: a later run could not read it.

/** The hidden line that tells this action's comment apart: tag, then a digest of the content. */
const MARKER_PREFIX = '<!-- neon-operations-wait-action';
/** The PR comment is a report: it may not hold the step for longer than this. */
const COMMENT_BUDGET_MS = 20_000;
/** Pages of 100 comments read at most when looking for ours: page 1 and the newest. */
const MAX_COMMENT_PAGES = 30;

type Octokit = ReturnType<typeof github.getOctokit>;
export type GitHubContext = Pick<typeof github.context, 'eventName' | 'payload' | 'issue' | 'repo'>;
type Target = typeof github.context.repo & { issue_number: number };

/**
 * The PR this event is about, or undefined (a push, a schedule, an issue comment on an issue):
 * `context.issue.number` is the PR's for pull_request events and for an issue_comment on a PR.
 */
export function pullRequestOf(context: GitHubContext): number | undefined {
  const { eventName, payload } = context;
  const aboutPr =
    ['pull_request', 'pull_request_target'].includes(eventName) ||
    (eventName === 'issue_comment' && Boolean(payload.issue?.pull_request));
  const number: unknown = aboutPr && context.issue.number;
  return typeof number === 'number' ? number : undefined;
}

export const marker = (tag: string, digest: string): string =>
  `${MARKER_PREFIX} tag="${tag}" digest="${digest}" -->`;

export const digestOf = (body: string): string =>
  createHash('sha256').update(body).digest('hex').slice(0, 16);

export function readMarker(body: string, tag: string): { digest: string } | undefined {
  const after = body.split(`${MARKER_PREFIX} tag="${tag}" digest="`)[1];
  const digest = after && /^([0-9a-f]{16})" -->/.exec(after)?.[1];
  return digest ? { digest } : undefined;
}

/**
 * Creates or updates one sticky comment on the pull request and returns its URL ('' when none was
 * written, with a notice or a warning saying why: a report never fails the step). Only a comment
 * with our marker AND written by this token's identity is edited, whatever the token may edit.
 */
export async function writeComment(
  { githubToken: token = '', commentTag: tag = '' }: Partial<Settings>,
  report: Report,
  signal?: AbortSignal
): Promise<string> {
  let issueNumber: number | undefined;
  try {
    // Loaded only here: `context` comes with Octokit, and most runs write no comment.
    const { context, getOctokit } = await import('@actions/github');
    issueNumber = pullRequestOf(context);
    if (issueNumber === undefined) {
      log.notice(
        `comment_on_pr is true, but the '${context.eventName}' event is not about a pull request; no comment written.`
      );
      return '';
    }
    if (!token) {
      log.warning('comment_on_pr is true, but github_token is empty; no comment written.');
      return '';
    }
    const target = { ...context.repo, issue_number: issueNumber };
    const stops = [AbortSignal.timeout(COMMENT_BUDGET_MS), ...(signal ? [signal] : [])];
    // The API of the run's context, as the event is: Octokit's default is read when it is loaded.
    const octokit = getOctokit(token, {
      baseUrl: context.apiUrl,
      request: { signal: AbortSignal.any(stops) }
    });
    // What the report says, without times: an unchanged digest leaves the comment as it is.
    const digest = digestOf(stableView(report));
    const body = `${marker(tag, digest)}\n${redact(renderComment(report))}`;
    // GraphQL `viewer` answers for every kind of token (an App's as `<app>[bot]`), where REST
    // `GET /user` answers 403. Not knowing, a new comment is written: the old may not be ours.
    const me = await octokit
      .graphql<{ viewer?: { login?: unknown } } | null>('query { viewer { login } }')
      .then((data) => {
        const login = data?.viewer?.login;
        if (typeof login === 'string' && login) return login;
        throw new Error('the answer names no login');
      })
      .catch(
        (error: Error) =>
          void log.warning(
            `Could not tell which account github_token writes as (GraphQL viewer: ${redact(error.message)}); ` +
              'a new PR comment is written instead of updating one that may not be ours.'
          )
      );
    const mine = me ? await ourComment(octokit, target, tag, me) : undefined;
    if (mine && readMarker(mine.body ?? '', tag)?.digest === digest) {
      log.info(`The PR comment is up to date: ${mine.html_url}`);
      return mine.html_url;
    }
    const { data } = mine
      ? await octokit.rest.issues.updateComment({ ...context.repo, comment_id: mine.id, body })
      : await octokit.rest.issues.createComment({ ...target, body });
    log.info(`${mine ? 'Updated the PR comment' : 'Commented on the PR'}: ${data.html_url}`);
    return data.html_url;
  } catch (error) {
    const status = (error as { status?: number }).status;
    log.warning(
      issueNumber !== undefined && (status === 403 || status === 404)
        ? `The token may not write comments on pull request #${issueNumber} (HTTP ${status}). ` +
            "Give the job 'permissions: pull-requests: write'; on pull requests from forks the token is read-only, " +
            'so use the pull_request_target event (with care) or leave comment_on_pr off there. The job summary has the report.'
        : `Could not write the PR comment: ${redact((error as Error).message ?? String(error))}`,
      'PR comment not written'
    );
    return '';
  }
}

/** The first comment by `author` with our marker for this tag: on page 1, else the newest first. */
async function ourComment(octokit: Octokit, target: Target, tag: string, author: string) {
  let link = '';
  const read = (page: number) =>
    octokit.rest.issues
      .listComments({ ...target, per_page: 100, page })
      .then(({ data, headers }) => {
        link ||= headers.link ?? '';
        return data.find((c) => isAuthor(c.user, author) && readMarker(c.body ?? '', tag));
      });
  let mine = await read(1);
  const last = Number(/[?&]page=(\d{1,9})\b[^>]*>;\s*rel="last"/.exec(link)?.[1] ?? 1);
  const lowest = Math.max(2, last - MAX_COMMENT_PAGES + 2);
  for (let page = last; !mine && page >= lowest; page--) mine = await read(page);
  if (!mine && lowest > 2)
    log.info(
      `No comment of ours on page 1 or the newest: searched ${MAX_COMMENT_PAGES} of ${last} pages.`
    );
  return mine;
}

/**
 * Whether REST's comment author is GraphQL's viewer. A bot may be named with or without `[bot]`
 * (marocchino/sticky-pull-request-comment strips it from `viewer.login`), but only a Bot account
 * matches without it: a person cannot take an app's name.
 */
export function isAuthor(user: { login: string; type?: string } | null, viewer: string): boolean {
  if (!user) return false;
  const base = (login: string): string => login.replace(/\[bot\]$/, '');
  return user.login === viewer || (user.type === 'Bot' && base(user.login) === base(viewer));
}
