import type { PullState } from '../neon/branch-sweep.js';

// A pull request's state read through `@actions/github` (Octokit), for a sweep: open, closed, or
// merged (GitHub answers a merged one as `state: closed` with `merged: true` and `merged_at` set).

/** Where and how to read pull requests: a token, `owner/name`, and the API (GITHUB_API_URL by default). */
export interface PullReader {
  token: string;
  repository: string;
  /** The REST API's base URL; left out, Octokit's default (GITHUB_API_URL, else api.github.com). */
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
  const read = await pullStateReader(reader);
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
  return (await pullStateReader(reader))(number);
}

/** A reader of pull requests' states through one Octokit client. */
async function pullStateReader(
  reader: PullReader
): Promise<(number: number) => Promise<PullState>> {
  const [owner = '', repo = ''] = reader.repository.split('/');
  // Loaded only here, as for the PR comment: most runs read no pull request.
  const { getOctokit } = await import('@actions/github');
  const octokit = getOctokit(reader.token, {
    ...(reader.baseUrl ? { baseUrl: reader.baseUrl } : {}),
    request: {
      ...(reader.signal && { signal: reader.signal }),
      ...(reader.fetch && { fetch: reader.fetch })
    }
  });
  return async (number) => {
    try {
      const { data } = await octokit.rest.pulls.get({ owner, repo, pull_number: number });
      if (data.merged || data.merged_at !== null) return 'merged';
      return data.state === 'open' ? 'open' : 'closed';
    } catch (error) {
      const status = statusOf(error);
      if (status === 404) return 'not-found';
      const message = error instanceof Error ? error.message : String(error);
      throw new PullReadError(
        `pull request #${number} of ${reader.repository}: ${message}`,
        status
      );
    }
  };
}

/** The HTTP status of an Octokit `RequestError`, if the error has one. */
function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || !('status' in error)) return undefined;
  return typeof error.status === 'number' ? error.status : undefined;
}
