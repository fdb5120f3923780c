import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { getOctokit } from '@actions/github';
import * as log from './log.js';
import { redact } from '../util/redact.js';

/** The hidden line that tells this action's comment apart: tag, then a digest of the content. */
const MARKER_PREFIX = '<!-- neon-operations-wait-action';
/** The PR comment is a report: it may not hold the step for longer than this. */
export const COMMENT_BUDGET_MS = 20_000;
/** Pages of 100 comments read at most when looking for ours (a PR with 3,000 comments is rare). */
export const MAX_COMMENT_PAGES = 30;

export type Octokit = ReturnType<typeof getOctokit>;

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

/** Where the comment goes, or undefined (with a notice or warning saying why no comment is written). */
export function commentTarget(options: {
  token: string;
  eventName: string;
  eventPath: string | undefined;
  repository: string | undefined;
}): CommentTarget | undefined {
  const issueNumber = pullRequestOf(options.eventName, readEvent(options.eventPath));
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
  return { owner, repo, issueNumber };
}

interface ListedComment {
  id: number;
  body?: string | null;
  html_url: string;
  user: { login: string; type?: string } | null;
}

/**
 * Creates or updates one sticky comment on the pull request. The comment is found by the marker
 * with this tag AND by its author being this token's identity, across the PR's comments; a comment
 * by anyone else is never edited, even one holding a copied marker. A token that cannot tell who it
 * is (GITHUB_TOKEN, a GitHub App's installation token: GET /user answers 403) writes as a bot, so
 * only bots' comments are candidates, and GitHub itself refuses an update of another bot's comment.
 * Problems are warnings: a report never fails the step.
 */
export async function upsertComment(
  octokit: Octokit,
  target: CommentTarget,
  options: {
    tag: string;
    body: string;
    /** What the body says, without times: an unchanged digest leaves the comment as it is. */
    digestSource: string;
  }
): Promise<CommentResult | undefined> {
  const { owner, repo, issueNumber } = target;
  const digest = digestOf(options.digestSource);
  const body = `${marker(options.tag, digest)}\n${options.body}`;
  try {
    const me = await identity(octokit);
    const candidates = (await ourComments(octokit, target, options.tag)).filter((c) =>
      me ? c.user?.login === me : isBot(c.user)
    );
    for (const mine of candidates) {
      if (readMarker(mine.body ?? '', options.tag)?.digest === digest) {
        log.info(`The PR comment is up to date: ${mine.html_url}`);
        return { url: mine.html_url, action: 'unchanged' };
      }
      try {
        const { data } = await octokit.rest.issues.updateComment({
          owner,
          repo,
          comment_id: mine.id,
          body
        });
        log.info(`Updated the PR comment: ${data.html_url}`);
        return { url: data.html_url, action: 'updated' };
      } catch (error) {
        // Another bot's comment with our marker: not ours to edit; look further.
        if (me || ![403, 404].includes((error as { status?: number }).status ?? 0)) throw error;
      }
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
          'so use the pull_request_target event (with care) or leave comment_on_pr off there. The job summary has the report.',
        'PR comment not written'
      );
    } else {
      log.warning(
        `Could not write the PR comment: ${redact((error as Error).message ?? String(error))}`,
        'PR comment not written'
      );
    }
    return undefined;
  }
}

/**
 * The PR's comments that hold our marker for this tag, oldest first. Reading stops after
 * MAX_COMMENT_PAGES pages, and when GitHub's `Link: rel=next` points at a page already read.
 */
async function ourComments(
  octokit: Octokit,
  target: CommentTarget,
  tag: string
): Promise<ListedComment[]> {
  const found: ListedComment[] = [];
  const pagesRead = new Set<string>();
  const pages = octokit.paginate.iterator(octokit.rest.issues.listComments, {
    owner: target.owner,
    repo: target.repo,
    issue_number: target.issueNumber,
    per_page: 100
  });
  for await (const page of pages) {
    for (const comment of page.data as ListedComment[]) {
      if (typeof comment.body === 'string' && readMarker(comment.body, tag)) found.push(comment);
    }
    const next = /<([^>]+)>;\s*rel="next"/.exec(page.headers.link ?? '')?.[1];
    if (!next || pagesRead.has(next) || pagesRead.size + 1 >= MAX_COMMENT_PAGES) break;
    pagesRead.add(next);
  }
  return found;
}

function isBot(user: ListedComment['user']): boolean {
  return user?.type === 'Bot' || Boolean(user?.login.endsWith('[bot]'));
}

/** The login a personal token writes as; undefined for tokens that write as a bot (GET /user: 403). */
async function identity(octokit: Octokit): Promise<string | undefined> {
  try {
    const { data } = await octokit.rest.users.getAuthenticated();
    return data.login;
  } catch (error) {
    const status = (error as { status?: number }).status;
    if (status === 403 || status === 401) return undefined;
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
