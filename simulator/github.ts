import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A local stand-in for the GitHub endpoints the PR comment uses: GraphQL `viewer { login }`,
 * GET /user, list (oldest first, paginated with a Link header as GitHub's: prev, next, last and
 * first, under `/repositories/<id>/`), create and update issue comments; and Get a pull request,
 * which a sweep reads. Point `GITHUB_API_URL` at `url`.
 */
export interface FakeComment {
  id: number;
  body: string;
  user: { login: string; type: string };
  html_url: string;
  created_at: string;
  updated_at: string;
}

export interface TokenScript {
  /** The login GET /user answers with; undefined answers 403 as GITHUB_TOKEN and App tokens do. */
  login?: string;
  /** The login comments are written under, and GraphQL `viewer { login }` answers with. */
  author: string;
  /** What GraphQL answers instead of the viewer, e.g. `{ data: { viewer: null } }` or an error. */
  graphql?: unknown;
  /** Writes answer 403 "Resource not accessible by integration" (a fork PR's token). */
  readOnly?: boolean;
}

/**
 * A pull request as a scenario sets it: `open`, `closed`, or `merged` (closed by its merge). Times
 * in epoch ms; GitHub answers them as `created_at`, `closed_at`, `merged_at`.
 */
export interface PullScript {
  state: 'open' | 'closed' | 'merged';
  createdAt?: number;
  closedAt?: number;
  title?: string;
  headRef?: string;
}

export interface FakeGitHub {
  url: string;
  comments: FakeComment[];
  requests: Array<{ method: string; path: string; status: number }>;
  /** Sets (or replaces) pull request `number` of every repository. */
  setPull(number: number, pull: PullScript): void;
  addComment(body: string, login: string): FakeComment;
  close(): Promise<void>;
}

/**
 * Tokens as GitHub has them: a personal token (GET /user answers its login), GITHUB_TOKEN and a
 * GitHub App's installation token (GET /user answers 403; comments are written by `<app>[bot]`);
 * GraphQL `viewer` answers every one. Any token that may write may also edit any comment, as a
 * token with admin rights on the repository may: whose comment is edited is the action's call.
 */
export async function startFakeGitHub(
  tokens: Record<string, TokenScript>,
  pulls: Record<number, PullScript> = {}
): Promise<FakeGitHub> {
  const pullScripts = new Map(Object.entries(pulls).map(([n, pull]) => [Number(n), pull]));
  const comments: FakeComment[] = [];
  const requests: FakeGitHub['requests'] = [];
  const sockets = new Set<Socket>();
  let nextId = 1000;
  let base = '';

  function addComment(body: string, login: string): FakeComment {
    const id = nextId++;
    const now = new Date().toISOString();
    const comment = {
      id,
      body,
      user: { login, type: login.endsWith('[bot]') ? 'Bot' : 'User' },
      html_url: `https://github.com/octo-org/octo-repo/pull/7#issuecomment-${id}`,
      created_at: now,
      updated_at: now
    };
    comments.push(comment);
    return comment;
  }

  async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return chunks.length
      ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>)
      : {};
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://github');
    const record = { method: req.method ?? 'GET', path: url.pathname + url.search, status: 0 };
    requests.push(record);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
      record.status = status;
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    const token = (req.headers.authorization ?? '').replace(/^(token|Bearer) /i, '');
    const who = tokens[token];
    if (!who) return send(401, { message: 'Bad credentials' });

    if (req.method === 'GET' && url.pathname === '/user') {
      if (!who.login) return send(403, { message: 'Resource not accessible by integration' });
      return send(200, { login: who.login, type: 'User' });
    }
    if (req.method === 'POST' && url.pathname === '/graphql') {
      const { query } = await readBody(req);
      if (typeof query !== 'string' || !/\bviewer\s*\{\s*login\s*\}/.test(query))
        return send(200, { data: null, errors: [{ message: 'Something went wrong' }] });
      return send(
        200,
        'graphql' in who ? who.graphql : { data: { viewer: { login: who.author } } }
      );
    }
    const list = /^\/(?:repos\/[^/]+\/[^/]+|repositories\/1)\/issues\/(\d+)\/comments$/.exec(
      url.pathname
    );
    if (list && req.method === 'GET') {
      const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 30));
      const page = Number(url.searchParams.get('page') ?? 1);
      const last = Math.max(1, Math.ceil(comments.length / perPage));
      const link = (rel: string, to: number): string =>
        `<${base}/repositories/1/issues/${list[1]}/comments?per_page=${perPage}&page=${to}>; rel="${rel}"`;
      const links = [
        page > 1 && link('prev', page - 1),
        page < last && link('next', page + 1),
        page < last && link('last', last),
        page > 1 && link('first', 1)
      ].filter(Boolean);
      const headers: Record<string, string> = links.length ? { link: links.join(', ') } : {};
      return send(200, comments.slice((page - 1) * perPage, page * perPage), headers);
    }
    if (list && req.method === 'POST') {
      if (who.readOnly) return send(403, { message: 'Resource not accessible by integration' });
      const body = await readBody(req);
      if (typeof body.body !== 'string' || body.body.length > 65_536) {
        return send(422, {
          message: 'Validation Failed',
          errors: [{ field: 'body', code: 'too_long' }]
        });
      }
      return send(201, addComment(body.body, who.author));
    }
    const pull = /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)$/.exec(url.pathname);
    if (pull && req.method === 'GET') {
      const [, owner = '', repo = '', number = ''] = pull;
      const script = pullScripts.get(Number(number));
      if (!script)
        return send(404, {
          message: 'Not Found',
          documentation_url: 'https://docs.github.com/rest/pulls/pulls#get-a-pull-request',
          status: '404'
        });
      return send(200, pullBody(`${owner}/${repo}`, Number(number), script));
    }
    const one = /^\/repos\/([^/]+)\/([^/]+)\/issues\/comments\/(\d+)$/.exec(url.pathname);
    if (one && req.method === 'PATCH') {
      if (who.readOnly) return send(403, { message: 'Resource not accessible by integration' });
      const comment = comments.find((c) => c.id === Number(one[3]));
      if (!comment) return send(404, { message: 'Not Found' });
      const body = await readBody(req);
      if (typeof body.body !== 'string' || body.body.length > 65_536) {
        return send(422, {
          message: 'Validation Failed',
          errors: [{ field: 'body', code: 'too_long' }]
        });
      }
      comment.body = body.body;
      comment.updated_at = new Date().toISOString();
      return send(200, comment);
    }
    return send(404, { message: 'Not Found' });
  }

  const server = createServer((req, res) => void handle(req, res));
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    comments,
    requests,
    setPull: (number, script) => void pullScripts.set(number, script),
    addComment,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      })
  };
}

/**
 * The fields of GitHub's `pull-request` schema (REST "Get a pull request") that a reader of its
 * state needs, and those around them: `state` is `open` or `closed`; a merged one is `closed` with
 * `merged: true` and `merged_at` set; `closed_at` and `merged_at` are null until then.
 */
export interface PullBody {
  url: string;
  html_url: string;
  number: number;
  state: 'open' | 'closed';
  locked: boolean;
  title: string;
  draft: boolean;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  merged_at: string | null;
  merged: boolean;
  head: { ref: string; label: string };
}

function pullBody(repository: string, number: number, script: PullScript): PullBody {
  const created = new Date(script.createdAt ?? Date.parse('2026-11-01T09:00:00Z'));
  const closedAt = script.state === 'open' ? null : new Date(script.closedAt ?? Date.now());
  const closed = closedAt === null ? null : closedAt.toISOString().replace('.000Z', 'Z');
  const merged = script.state === 'merged';
  const headRef = script.headRef ?? `feature-${number}`;
  return {
    url: `https://api.github.com/repos/${repository}/pulls/${number}`,
    html_url: `https://github.com/${repository}/pull/${number}`,
    number,
    state: script.state === 'open' ? 'open' : 'closed',
    locked: false,
    title: script.title ?? `Change ${number}`,
    draft: false,
    created_at: created.toISOString().replace('.000Z', 'Z'),
    updated_at: closed ?? created.toISOString().replace('.000Z', 'Z'),
    closed_at: closed,
    merged_at: merged ? closed : null,
    merged,
    head: { ref: headRef, label: `${repository.split('/')[0]}:${headRef}` }
  };
}
