import type { PullState } from '../neon/branch-sweep.js';
import { CancelledError } from '../util/errors.js';
import { fieldsOf, textOf } from '../util/json-fields.js';
import { oneLine } from '../util/text.js';
import { ACTION_NAME, ACTION_VERSION } from '../version.js';

// A pull request's state read from GitHub's REST API, for a sweep: open, closed, or merged (GitHub
// answers a merged one as `state: closed` with `merged: true` and `merged_at` set).

/** Where and how to read pull requests: a token, `owner/name`, and the API (GITHUB_API_URL by default). */
export interface PullReader {
  token: string;
  repository: string;
  /** The REST API's base URL; left out, GITHUB_API_URL, else api.github.com. */
  baseUrl?: string;
  signal?: AbortSignal;
  /** How requests are sent; the global fetch when left out (the tests' simulated time gives its own). */
  fetch?: typeof globalThis.fetch;
}

/** What GitHub answered when a pull request could not be read (not a 404, which is `not-found`). */
export class PullReadError extends Error {
  override name = 'PullReadError';
  constructor(
    message: string,
    /** GitHub's HTTP status; undefined when no answer came. */
    readonly status?: number
  ) {
    super(message);
  }
}

/** `owner/name` as GitHub spells repositories. */
export const REPOSITORY = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/;

/**
 * The states of `numbers`, each read once, one after another. A pull request that cannot be read
 * is left out of the map (the sweep keeps its branch unless `older_than` decides); `error` is the
 * first such fault. A 401 or 403 ends the reading: every other read would answer the same.
 */
export async function readPullStates(
  reader: PullReader,
  numbers: readonly number[]
): Promise<{ states: Map<number, PullState>; error?: PullReadError }> {
  const read = pullStateReader(reader);
  const states = new Map<number, PullState>();
  let first: PullReadError | undefined;
  for (const number of new Set(numbers)) {
    try {
      states.set(number, await read(number));
    } catch (error) {
      if (!(error instanceof PullReadError)) throw error;
      first ??= error;
      if (error.status === 401 || error.status === 403) break;
    }
  }
  return first ? { states, error: first } : { states };
}

/** One pull request's state: `GET /repos/{owner}/{repo}/pulls/{pull_number}`; 404 is `not-found`. */
export async function readPullState(reader: PullReader, number: number): Promise<PullState> {
  return pullStateReader(reader)(number);
}

/** GitHub's REST API, where neither the reader nor the environment (GITHUB_API_URL, GHES) says. */
const GITHUB_API = 'https://api.github.com';
/** One read of a pull request is given this long. */
const READ_TIMEOUT_MS = 10_000;

/**
 * A reader of pull requests' states by GitHub's REST API (`Get a pull request`), with `fetch`: the
 * command bundles no GitHub client (it runs outside GitHub too), and the action needs none here.
 */
function pullStateReader(reader: PullReader): (number: number) => Promise<PullState> {
  const [owner = '', repo = ''] = reader.repository.split('/');
  const base = (reader.baseUrl ?? process.env.GITHUB_API_URL ?? GITHUB_API).replace(/\/+$/, '');
  const send = reader.fetch ?? globalThis.fetch;
  const headers = {
    accept: 'application/vnd.github+json',
    authorization: `Bearer ${reader.token}`,
    'user-agent': `${ACTION_NAME}/${ACTION_VERSION}`,
    'x-github-api-version': '2022-11-28'
  };
  return async (number) => {
    const url = `${base}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/pulls/${number}`;
    const timeout = AbortSignal.timeout(READ_TIMEOUT_MS);
    const signal = reader.signal ? AbortSignal.any([reader.signal, timeout]) : timeout;
    const fault = (why: string, status?: number) =>
      new PullReadError(`pull request #${number} of ${reader.repository}: ${why}`, status);
    let response: Response;
    let body: unknown;
    try {
      response = await send(url, { headers, signal });
      body = await response.json().catch(() => undefined);
    } catch (error) {
      if (reader.signal?.aborted) throw new CancelledError();
      throw fault(error instanceof Error ? error.message : String(error));
    }
    if (response.status === 404) return 'not-found';
    const fields = fieldsOf(body);
    if (!response.ok) {
      const said = textOf(fields, 'message');
      throw fault(
        `${said ? `${oneLine(said, 200)} ` : ''}(HTTP ${response.status})`,
        response.status
      );
    }
    // A merged pull request is `state: closed` with `merged: true` and `merged_at` set.
    if (fields.get('merged') === true || typeof fields.get('merged_at') === 'string')
      return 'merged';
    return textOf(fields, 'state') === 'open' ? 'open' : 'closed';
  };
}
