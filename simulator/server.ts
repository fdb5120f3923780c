import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import {
  annotationBody,
  branchBody,
  connectionDetails,
  databaseBody,
  DATABASE,
  endpointBody,
  endpointHost,
  newBranchId,
  newEndpointId,
  newPassword,
  poolerHost,
  ROLE,
  roleBody,
  stateAt,
  type PostgresTarget
} from './resources.js';
import type {
  BranchScript,
  EndpointScript,
  KeyScript,
  OperationScript,
  PlanScript,
  ProjectScript,
  Scenario,
  StepScript
} from './scenario.js';
import { SCALE_PLAN } from './scenario.js';

/**
 * A local stand-in for the control-plane API v2: List projects, Retrieve project details (the
 * owner's `branches_limit`: a Free plan refuses a create past it with 422), List operations and Get
 * operation; the mutations users run most (create, delete, update and restore a branch, start and
 * suspend an endpoint), each starting operations that run and finish on the simulator's clock and answering
 * `423 Locked` while another operation of the project is in progress; the branch and endpoint
 * reads that follow them. All with the real service's shapes (checked against the official OpenAPI document in the tests), its
 * pagination (a cursor even on the last page), and what recorded real traffic shows beyond the
 * document: the request id in the `X-Neon-Ret-Request-Id` header and not in error bodies, answers
 * through Cloudflare (its headers, gzip when asked, chunked bodies, HTML pages for edge errors),
 * `total_duration_ms` that is not wall time. Also bearer auth with several kinds of key, operations
 * that change status over time, projects and branches deleted on a schedule, Neon's documented rate
 * limits per account, and faults on demand.
 */

export type Fault =
  /** A JSON error `{code, message}` from the API; `code` is usually empty (`PROJECTS_LIMIT_EXCEEDED`...). */
  | { kind: 'status'; status: number; retryAfter?: string; message?: string; code?: string }
  /** An HTML error page from the edge (Cloudflare): 502 by default, or 520 to 524, 504... */
  | { kind: 'html'; status?: number }
  | { kind: 'reset' }
  | { kind: 'hang' }
  /** The request is handled (a mutation applied, its operations started), then the connection is reset. */
  | { kind: 'reset-after-apply' }
  /** The request is handled, then no answer ever comes. */
  | { kind: 'hang-after-apply' }
  | { kind: 'malformed' }
  | { kind: 'missing-fields' }
  | { kind: 'echo-key'; status?: number }
  | { kind: 'redirect'; location: string };

export interface FaultRule {
  fault: Fault;
  /** Only requests whose path (with query) contains this. */
  match?: string;
  /** Only requests of this method (`POST`...). */
  method?: string;
  /** How many matching requests get the fault; Infinity for all. */
  times: number;
  /** Matching requests to let through first. */
  skip?: number;
  /** Only requests from this time on (simulator clock, ms). */
  from?: number;
  /** Only requests before this time (simulator clock, ms). */
  until?: number;
}

/**
 * Neon's documented limits: 700 requests per minute per account (every key and job of it
 * together) and bursts of up to 40 requests per second per route; over either, HTTP 429. Both are
 * sliding windows on the simulator's clock; only answered requests count. A route is the method
 * and path template (`GET /projects/{project_id}/operations/{operation_id}`). No `Retry-After` is
 * documented, so none is sent unless `retryAfter` asks for it.
 */
export interface RateLimit {
  /** Requests per minute per account, all routes together. */
  perMinute?: number;
  /** Requests per second per account and route. */
  perRoutePerSecond?: number;
  /** The same as `perRoutePerSecond` (older tests use this name). */
  perSecond?: number;
  /** Send `Retry-After` with the 429: whole seconds until the window has room. */
  retryAfter?: boolean;
}

export const NEON_RATE_LIMIT = { perMinute: 700, perRoutePerSecond: 40 } satisfies RateLimit;

export interface RequestRecord {
  /** Simulator clock (ms). */
  at: number;
  /** Wall clock (epoch ms) when it arrived, to bound what a test observes of a process. */
  wallAt: number;
  method: string;
  path: string;
  /** The request target exactly as sent, to check URL encoding. */
  target: string;
  query: Record<string, string>;
  status: number;
  key?: string;
  /** Whose rate limit the request spent (known keys only). */
  account?: string;
  /** Method and path template, the unit of the per-route burst limit. */
  route: string;
  userAgent?: string;
  /** The id sent back in `X-Neon-Ret-Request-Id`; none for edge pages, resets and hangs. */
  requestId?: string;
  /** Size of the request's body in bytes (never its content: it may hold secrets). */
  bodyBytes: number;
}

/** One request, its answer and its record. */
interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  record: RequestRecord;
  /** A fault that strikes once the request is handled, instead of the answer. */
  after?: 'reset-after-apply' | 'hang-after-apply';
}

/** The service's message for 423, as Neon's own test fixture (`neon_api.py`) matches it. */
export const LOCKED_MESSAGE =
  'project already has running conflicting operations, scheduling of new ones is prohibited';

/** Statuses of an operation that holds its project: mutations answer 423 meanwhile. */
const IN_PROGRESS = new Set(['scheduling', 'running', 'cancelling']);

export interface SimulatorOptions {
  scenario: Scenario;
  /** Milliseconds since the simulator started; a test or the benchmark may drive its own clock. */
  clock?: () => number;
  /**
   * With the wall clock: time 0 is the first request, not the start, so a scripted timeline does
   * not depend on how soon the process under test starts (until then `now()` is 0).
   */
  startOnFirstRequest?: boolean;
  /** Wall-clock time of the simulator's start (of the first request with `startOnFirstRequest`), for timestamps. */
  epoch?: number;
  /** The service's clock (its `Date` header and timestamps) runs this far ahead of `epoch` (negative: behind). */
  skewMs?: number;
  rateLimit?: RateLimit;
  port?: number;
  /** How long each operation started by a mutation runs (simulator clock, ms); 2000 by default. */
  operationMs?: number;
  /** Connection URIs of new branches point at this server instead of the endpoint's host. */
  postgres?: PostgresTarget;
}

export interface Simulator {
  /** Base URL to pass as `api_host`, e.g. http://127.0.0.1:40123/api/v2 */
  url: string;
  requests: RequestRecord[];
  inject(fault: Fault, rule?: Omit<FaultRule, 'fault'>): void;
  clearFaults(): void;
  /** Revokes a key now (or at `at`): it answers 401 from then on. */
  revokeKey(key: string, at?: number): void;
  addOperation(op: OperationScript): void;
  /** What `compare_schema` answers for a branch (by name or id) from now on: a migration ran on it. */
  setSchemaDiff(branch: string, diff: string): void;
  /** Deletes a project now (or at `at`): every route of it answers 404 from then on. */
  deleteProject(projectId: string, at?: number): void;
  /** Deletes a branch now (or at `at`): its operations vanish (Get 404, gone from List). */
  deleteBranch(projectId: string, branchId: string, at?: number): void;
  setRateLimit(limit: RateLimit | undefined): void;
  /**
   * Holds the next `count` requests that match (by `method`, and `match` in the path with query)
   * until all of them have arrived, then handles them one after another in arrival order: several
   * jobs creating one branch "at once", whatever the order and pace their processes start in.
   */
  gather(count: number, rule?: { match?: string; method?: string }): void;
  /** The simulator's clock (ms): since its start, or since the first request with `startOnFirstRequest` (0 until then). */
  now(): number;
  /** The project's branches that exist now (created by the scenario or by requests, not deleted). */
  branches(projectId: string): BranchScript[];
  /** The project's operations as scripted: the scenario's and those its requests started (each with its steps). */
  operations(projectId: string): OperationScript[];
  /** The operation as the API would return it now, or undefined if it does not exist yet. */
  render(op: OperationScript): Record<string, unknown> | undefined;
  close(): Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** `total_duration_ms` of running operations in recorded real responses. */
const RUNNING_DURATIONS = [0, 17, 31];

/**
 * `total_duration_ms` as the service reports it, which is not wall time: 0 while scheduling, a few
 * tens of ms at most while running (recordings: 0, 17, 31), and afterwards a tenth of the span from
 * creation (the document's example: 200 ms for an operation whose timestamps are 2 s apart).
 */
export function reportedDurationMs(op: OperationScript, step: StepScript): number {
  if (step.total_duration_ms !== undefined) return step.total_duration_ms;
  if (step.status === 'scheduling') return 0;
  if (step.status === 'running' || step.status === 'cancelling') {
    let hash = 0;
    for (const c of op.id + step.at) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
    return RUNNING_DURATIONS[hash % RUNNING_DURATIONS.length] as number;
  }
  return Math.max(0, Math.round((step.at - op.created) / 10));
}

export async function startSimulator(options: SimulatorOptions): Promise<Simulator> {
  let started: number | undefined = options.startOnFirstRequest ? undefined : Date.now();
  const clock = options.clock ?? (() => (started === undefined ? 0 : Date.now() - started));
  const skew = options.skewMs ?? 0;
  let epoch = (options.epoch ?? started ?? Date.now()) + skew;
  const scenario: Scenario = structuredClone(options.scenario);
  const revoked = new Map<string, number>();
  const faults: FaultRule[] = [];
  const requests: RequestRecord[] = [];
  const sockets = new Set<Socket>();
  /** Times of answered requests, per account and per account and route. */
  const hits = new Map<string, number[]>();
  let rateLimit = options.rateLimit;
  // Every operation gets a distinct creation time in microseconds: the cursor compares them.
  const micros = new Map<string, number>();
  const stamp = (op: OperationScript): number => {
    let value = micros.get(op.id);
    if (value === undefined) {
      value = (epoch + op.created) * 1000 + (micros.size % 1000);
      micros.set(op.id, value);
    }
    return value;
  };
  scenario.operations.forEach(stamp);
  const operationMs = options.operationMs ?? 2000;
  const branches: BranchScript[] = scenario.branches ?? [];
  const endpoints: EndpointScript[] = scenario.endpoints ?? [];
  for (const p of scenario.projects) {
    if (branches.some((b) => b.project_id === p.id)) continue;
    const main = defaultBranch(p.id);
    branches.push(main);
    endpoints.push({
      id: defaultEndpointId(p.id),
      project_id: p.id,
      branch_id: main.id,
      created: main.created
    });
  }
  impliedPlaces(scenario.operations, branches, endpoints);
  /** Branches deleted by a request, with when; unlike `deletedBranches`, their operations stay. */
  const branchGone = new Map<string, number>();

  const projectById = (id: string): ProjectScript | undefined =>
    scenario.projects.find((p) => p.id === id);
  const deleted = (at: number | undefined): boolean => at !== undefined && at <= clock();
  /** Created by now, and not on a deleted branch. */
  const exists = (op: OperationScript): boolean =>
    op.created <= clock() &&
    !(op.branch_id && deleted(projectById(op.project_id)?.deletedBranches?.[op.branch_id]));

  /** Answers that showed each `stepPerAnswer` operation so far. */
  const answers = new Map<string, number>();
  /** The operation in an answer: a `stepPerAnswer` one moves a step on for the next. */
  function serve(op: OperationScript): Record<string, unknown> | undefined {
    const body = render(op);
    if (op.stepPerAnswer && body) answers.set(op.id, (answers.get(op.id) ?? 0) + 1);
    return body;
  }

  function render(op: OperationScript): Record<string, unknown> | undefined {
    const now = clock();
    if (op.created > now) return undefined;
    let step: StepScript | undefined;
    let failures = 0;
    const shown = op.stepPerAnswer ? (answers.get(op.id) ?? 0) : Infinity;
    for (const [i, s] of op.steps.entries()) {
      if (op.stepPerAnswer ? i > shown : s.at > now) break;
      step = s;
      failures = s.failures_count ?? failures;
    }
    step ??= { at: op.created, status: 'scheduling' };
    const body: Record<string, unknown> = {
      id: op.id,
      project_id: op.project_id,
      ...(op.branch_id ? { branch_id: op.branch_id } : {}),
      ...(op.endpoint_id ? { endpoint_id: op.endpoint_id } : {}),
      action: op.action,
      status: step.status,
      ...(step.error ? { error: step.error } : {}),
      failures_count: failures,
      ...(failures > 0 ? { retry_at: isoSeconds(epoch + step.at) } : {}),
      created_at: isoSeconds(epoch + op.created),
      updated_at: isoSeconds(epoch + step.at),
      ...(op.omitDuration ? {} : { total_duration_ms: reportedDurationMs(op, step) }),
      ...op.extra
    };
    return body;
  }

  function visibleProjects(
    key: KeyScript,
    orgId: string | undefined
  ): ProjectScript[] | 'forbidden' {
    const live = scenario.projects.filter((p) => !deleted(p.deletedAt));
    switch (key.kind) {
      case 'personal':
        if (orgId)
          return key.orgs?.includes(orgId) ? live.filter((p) => p.org_id === orgId) : 'forbidden';
        return live.filter((p) => !p.org_id && p.owner_id === key.user);
      case 'organization':
        if (orgId && orgId !== key.org) return 'forbidden';
        return live.filter((p) => p.org_id === key.org);
      case 'project':
        return live.filter((p) => p.id === key.project);
    }
  }

  function canSee(key: KeyScript, projectId: string): boolean {
    const p = projectById(projectId);
    if (!p || deleted(p.deletedAt)) return false;
    switch (key.kind) {
      case 'personal':
        return p.org_id ? (key.orgs ?? []).includes(p.org_id) : p.owner_id === key.user;
      case 'organization':
        return p.org_id === key.org;
      case 'project':
        return p.id === key.project;
    }
  }

  function accountOf(key: KeyScript): string {
    if (key.account) return key.account;
    switch (key.kind) {
      case 'personal':
        return `user:${key.user}`;
      case 'organization':
        return `org:${key.org}`;
      case 'project': {
        const p = projectById(key.project);
        return p?.org_id ? `org:${p.org_id}` : `user:${p?.owner_id ?? key.project}`;
      }
    }
  }

  function projectItem(p: ProjectScript): Record<string, unknown> {
    const region = p.region_id ?? 'aws-us-east-2';
    return {
      id: p.id,
      platform_id: 'aws',
      region_id: region,
      name: p.name,
      provisioner: 'k8s-neonvm',
      default_endpoint_settings: {
        autoscaling_limit_min_cu: 0.25,
        autoscaling_limit_max_cu: 2,
        suspend_timeout_seconds: 0
      },
      settings: {
        allowed_ips: { ips: [], protected_branches_only: false },
        enable_logical_replication: false
      },
      pg_version: 17,
      proxy_host: `${region}.aws.neon.tech`,
      branch_logical_size_limit: 512,
      branch_logical_size_limit_bytes: 536870912,
      store_passwords: true,
      active_time: 3600,
      cpu_used_sec: 0,
      creation_source: 'console',
      created_at: isoSeconds(epoch - 30 * 86_400_000),
      updated_at: isoSeconds(epoch - 86_400_000),
      owner_id: p.owner_id,
      ...(p.org_id ? { org_id: p.org_id } : {})
    };
  }

  /**
   * Retrieve project details (`Project`): the list item's fields, this period's consumption, and
   * the owner with the plan's `branches_limit`.
   */
  function projectDetails(p: ProjectScript): Record<string, unknown> {
    const plan: PlanScript = p.plan ?? SCALE_PLAN;
    return {
      ...projectItem(p),
      history_retention_seconds: 86_400,
      data_storage_bytes_hour: 0,
      data_transfer_bytes: 0,
      written_data_bytes: 0,
      compute_time_seconds: 0,
      active_time_seconds: 3600,
      consumption_period_start: isoSeconds(epoch - 86_400_000),
      consumption_period_end: isoSeconds(epoch + 29 * 86_400_000),
      owner: {
        name: 'Simulated Owner',
        email: `${p.owner_id}@example.com`,
        branches_limit: plan.branches_limit,
        subscription_type: plan.subscription_type
      }
    };
  }

  /** What Cloudflare adds to every answer, the edge's own pages included. */
  function edgeHeaders(): Record<string, string> {
    return {
      date: new Date(epoch + clock()).toUTCString(),
      server: 'cloudflare',
      'cf-ray': `${randomBytes(8).toString('hex')}-IAD`
    };
  }

  /** A body as the edge sends it: chunked, and gzipped when the client accepts gzip. */
  function writeBody(
    { req, res, record, after }: Exchange,
    status: number,
    headers: Record<string, string>,
    text: string
  ): void {
    if (after === 'reset-after-apply') {
      record.status = -1;
      return void req.socket.destroy();
    }
    if (after === 'hang-after-apply') {
      record.status = -2;
      return; // never answers; the socket is destroyed on close()
    }
    record.status = status;
    const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
    res.writeHead(status, { ...headers, ...(gzip ? { 'content-encoding': 'gzip' } : {}) });
    res.write(gzip ? gzipSync(text) : text);
    res.end();
  }

  /** A JSON answer from the API, its id in `X-Neon-Ret-Request-Id` (the client's, if it sent one). */
  function send(
    x: Exchange,
    status: number,
    body: unknown,
    headers: Record<string, string> = {}
  ): void {
    const requestId =
      (x.req.headers['x-request-id'] as string | undefined) ?? randomUUID().replace(/-/g, '');
    x.record.requestId = requestId;
    writeBody(
      x,
      status,
      {
        ...edgeHeaders(),
        'content-type': 'application/json; charset=utf-8',
        vary: 'Origin',
        'strict-transport-security': 'max-age=15724800; includeSubDomains',
        'x-neon-ret-request-id': requestId,
        ...headers
      },
      JSON.stringify(body)
    );
  }

  /** The API's error body: `{code, message}`; recorded errors carry no `request_id`. */
  function error(
    x: Exchange,
    status: number,
    message: string,
    headers?: Record<string, string>,
    code = ''
  ): void {
    send(x, status, { code, message }, headers);
  }

  /** Cloudflare's own error page: the request never reached the API, so no request id. */
  function edgePage(x: Exchange, status: number): void {
    const headers = edgeHeaders();
    const title = `${status}: ${EDGE_ERRORS[status] ?? 'Error'}`;
    const html =
      `<!DOCTYPE html>\n<html lang="en"><head><meta charset="UTF-8">` +
      `<title>console.neon.tech | ${title}</title></head><body><div id="cf-error-details">` +
      `<h1>${title}</h1><p>Cloudflare Ray ID: ${headers['cf-ray']}</p></div></body></html>\n`;
    writeBody(x, status, { ...headers, 'content-type': 'text/html; charset=UTF-8' }, html);
  }

  /** The fault for this request, if a rule matches; counts it against the rule. */
  function takeFault(method: string, pathWithQuery: string): Fault | undefined {
    const now = clock();
    for (const rule of faults) {
      if (rule.match && !pathWithQuery.includes(rule.match)) continue;
      if (rule.method && rule.method !== method) continue;
      if (rule.times <= 0) continue;
      if (
        (rule.from !== undefined && now < rule.from) ||
        (rule.until !== undefined && now >= rule.until)
      )
        continue;
      if (rule.skip && rule.skip > 0) {
        rule.skip--;
        continue;
      }
      rule.times--;
      return rule.fault;
    }
    return undefined;
  }

  /**
   * Counts the request against its account's minute and its route's second; when either is full,
   * answers how long until it has room (ms) and does not count it.
   */
  function rateLimited(account: string, route: string): number | undefined {
    if (!rateLimit) return undefined;
    const now = clock();
    const perRoute = rateLimit.perRoutePerSecond ?? rateLimit.perSecond;
    const windows: Array<[string, number | undefined, number]> = [
      [account, rateLimit.perMinute, 60_000],
      [`${account} ${route}`, perRoute, 1000]
    ];
    let wait: number | undefined;
    for (const [name, limit, span] of windows) {
      if (limit === undefined) continue;
      const times = hits.get(name) ?? [];
      while (times.length > 0 && (times[0] as number) <= now - span) times.shift();
      hits.set(name, times);
      if (times.length >= limit) {
        const free = (times[times.length - limit] as number) + span - now;
        wait = Math.max(wait ?? 0, free);
      }
    }
    if (wait !== undefined) return wait;
    for (const [name, limit] of windows) if (limit !== undefined) hits.get(name)?.push(now);
    return undefined;
  }

  /** Requests held by `gather()` until `count` of them have arrived. */
  const gatherings: Array<{
    count: number;
    match?: string;
    method?: string;
    held: Array<() => void>;
  }> = [];

  /** Reads the body (its size is recorded), then handles the request, unless `gather()` holds it. */
  function receive(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const go = (): void => handle(req, res, Buffer.concat(chunks));
      const gathering = gatherings.find(
        (g) =>
          (!g.method || g.method === req.method) && (!g.match || (req.url ?? '').includes(g.match))
      );
      if (!gathering) return go();
      gathering.held.push(go);
      if (gathering.held.length < gathering.count) return;
      gatherings.splice(gatherings.indexOf(gathering), 1);
      for (const held of gathering.held) held();
    });
  }

  function handle(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    if (started === undefined) {
      // Time 0 (and the timestamps' epoch) is now; creation times are stamped again from it.
      started = Date.now();
      epoch = (options.epoch ?? started) + skew;
      micros.clear();
      scenario.operations.forEach(stamp);
    }
    const url = new URL(req.url ?? '/', 'http://simulator');
    const auth = req.headers.authorization;
    const key = auth?.startsWith('Bearer ') ? auth.slice(7) : undefined;
    const parts = url.pathname.replace(/\/+$/, '').split('/').slice(1);
    const segments = parts.slice(2).map(decodeURIComponent);
    const record: RequestRecord = {
      at: clock(),
      wallAt: Date.now(),
      method: req.method ?? 'GET',
      path: url.pathname,
      target: req.url ?? '',
      query: Object.fromEntries(url.searchParams),
      status: 0,
      key,
      route: `${req.method ?? 'GET'} ${routeTemplate(parts)}`,
      userAgent: req.headers['user-agent'],
      bodyBytes: body.length
    };
    requests.push(record);
    const x: Exchange = { req, res, record };

    const fault = takeFault(record.method, url.pathname + url.search);
    if (fault) {
      switch (fault.kind) {
        case 'status':
          return error(
            x,
            fault.status,
            fault.message ?? defaultMessage(fault.status),
            fault.retryAfter ? { 'retry-after': fault.retryAfter } : {},
            fault.code
          );
        case 'html':
          return edgePage(x, fault.status ?? 502);
        case 'reset':
          record.status = -1;
          return void req.socket.destroy();
        case 'hang':
          record.status = -2;
          return; // never answers; the socket is destroyed on close()
        case 'malformed':
          record.status = 200;
          res.writeHead(200, { ...edgeHeaders(), 'content-type': 'application/json' });
          return void res.end('{"operation": {"id": "');
        case 'missing-fields':
          return send(x, 200, { unexpected: true });
        case 'echo-key':
          return error(x, fault.status ?? 400, `invalid request: header was "${auth ?? ''}"`);
        case 'redirect':
          record.status = 302;
          res.writeHead(302, { ...edgeHeaders(), location: fault.location });
          return void res.end();
        case 'reset-after-apply':
        case 'hang-after-apply':
          x.after = fault.kind;
      }
    }

    if (!key || !(key in scenario.keys) || deleted(revoked.get(key))) {
      return error(x, 401, 'authentication failed: the API key is missing, invalid or revoked');
    }
    const keyScript = scenario.keys[key] as KeyScript;
    record.account = accountOf(keyScript);
    const wait = rateLimited(record.account, record.route);
    if (wait !== undefined) {
      return error(
        x,
        429,
        'too many requests',
        rateLimit?.retryAfter ? { 'retry-after': String(Math.max(1, Math.ceil(wait / 1000))) } : {}
      );
    }
    if (parts[0] !== 'api' || parts[1] !== 'v2') return error(x, 404, 'not found');
    const method = req.method ?? 'GET';
    if (segments.length === 1 && segments[0] === 'projects') {
      if (method !== 'GET') return error(x, 405, 'method not allowed');
      return listProjects(x, url, keyScript);
    }
    // POST /api_keys: a new key, answered once in clear, as the service does (its masking is tested).
    if (segments.length === 1 && segments[0] === 'api_keys' && method === 'POST')
      return send(x, 200, {
        id: randomInt(1, 2 ** 31),
        key: `napi_${randomBytes(32).toString('hex')}`,
        name: 'api-key',
        created_at: iso(clock()),
        created_by: randomUUID()
      });
    if (segments[0] === 'projects' && segments.length === 2 && method === 'GET') {
      const projectId = segments[1] as string;
      if (!canSee(keyScript, projectId)) return error(x, 404, `project not found: ${projectId}`);
      return send(x, 200, { project: projectDetails(projectById(projectId) as ProjectScript) });
    }
    if (segments[0] !== 'projects' || segments.length < 3) return error(x, 404, 'not found');
    const projectId = segments[1] as string;
    if (!canSee(keyScript, projectId)) return error(x, 404, `project not found: ${projectId}`);
    const p = projectById(projectId) as ProjectScript;
    const route = routeTemplate(parts);
    if (method === 'GET') {
      if (segments[2] === 'operations' && segments.length === 3)
        return listOperations(x, url, projectId);
      if (segments[2] === 'operations' && segments.length === 4)
        return getOperation(x, projectId, segments[3] as string);
      return read(x, p, route, segments, url);
    }
    let json: Record<string, unknown> = {};
    if (body.length > 0) {
      try {
        json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      } catch {
        return error(x, 400, 'request body is not valid JSON');
      }
    }
    return mutate(x, p, `${method} ${route}`, segments, json);
  }

  // -------------------------------------------------------------------------------------------
  // Branches and endpoints
  // -------------------------------------------------------------------------------------------

  const iso = (ms: number): string => isoSeconds(epoch + ms);
  const liveBranches = (projectId: string): BranchScript[] =>
    branches.filter(
      (b) =>
        b.project_id === projectId &&
        b.created <= clock() &&
        !deleted(branchGone.get(b.id)) &&
        !deleted(projectById(projectId)?.deletedBranches?.[b.id]) &&
        !deleted(b.expiresAt)
    );
  /** Each branch's role password, made once: what creation answered, and connection_uri repeats. */
  const passwords = new Map<string, string>();
  const passwordOf = (branchId: string): string => {
    const known = passwords.get(branchId) ?? newPassword();
    passwords.set(branchId, known);
    return known;
  };
  const branchById = (projectId: string, id: string): BranchScript | undefined =>
    liveBranches(projectId).find((b) => b.id === id);
  const liveEndpoints = (projectId: string): EndpointScript[] =>
    endpoints.filter(
      (e) => e.project_id === projectId && branchById(projectId, e.branch_id) !== undefined
    );
  const endpointList = (p: ProjectScript, list: EndpointScript[]): Record<string, unknown> => ({
    endpoints: list.map((e) => endpointBody(e, p, clock(), iso))
  });

  function read(x: Exchange, p: ProjectScript, route: string, segments: string[], url: URL): void {
    const [, , , id, sub, name, more] = segments;
    if (name !== undefined && (sub === 'roles' || sub === 'databases'))
      return roleOrDatabase(x, p, id as string, sub, name, more);
    switch (route) {
      case '/projects/{project_id}/branches':
        return listBranches(x, p, url);
      case '/projects/{project_id}/connection_uri':
        return connectionUri(x, p, url);
      case '/projects/{project_id}/branches/{branch_id}/roles':
      case '/projects/{project_id}/branches/{branch_id}/databases': {
        const branch = branchById(p.id, id as string);
        if (!branch) return error(x, 404, `branch not found: ${id}`);
        const at = iso(branch.created);
        return send(
          x,
          200,
          sub === 'roles'
            ? { roles: [roleBody(branch.id, at)] }
            : { databases: [databaseBody(branch.id, at)] }
        );
      }
      case '/projects/{project_id}/branches/{branch_id}': {
        const branch = branchById(p.id, id as string);
        if (!branch) return error(x, 404, `branch not found: ${id}`);
        return send(x, 200, {
          branch: branchBody(branch, clock(), iso),
          annotation: annotationBody(branch, iso)
        });
      }
      case '/projects/{project_id}/branches/{branch_id}/endpoints': {
        if (!branchById(p.id, id as string)) return error(x, 404, `branch not found: ${id}`);
        const list = liveEndpoints(p.id).filter((e) => e.branch_id === id);
        return send(x, 200, endpointList(p, list));
      }
      case '/projects/{project_id}/branches/{branch_id}/compare_schema':
        return compareSchema(x, p, id as string, url);
      case '/projects/{project_id}/endpoints':
        return send(x, 200, endpointList(p, liveEndpoints(p.id)));
      case '/projects/{project_id}/endpoints/{endpoint_id}': {
        const endpoint = liveEndpoints(p.id).find((e) => e.id === id);
        if (!endpoint || sub) return error(x, 404, `endpoint not found: ${id}`);
        return send(x, 200, { endpoint: endpointBody(endpoint, p, clock(), iso) });
      }
    }
    return error(x, 404, 'not found');
  }

  /**
   * `compare_schema`: `db_name` is required and must be the branch's database; `base_branch_id`, a
   * live branch, is the branch's parent when left out (400 for a branch without one: the document
   * gives no status; the simulator's choice). Answers the diff the scenario sets for the branch (by
   * name or id), else an empty one, as `BranchSchemaCompareResponse`.
   */
  function compareSchema(x: Exchange, p: ProjectScript, branchId: string, url: URL): void {
    const branch = branchById(p.id, branchId);
    if (!branch) return error(x, 404, `branch not found: ${branchId}`);
    const dbName = url.searchParams.get('db_name');
    if (!dbName) return error(x, 400, 'db_name is required');
    if (dbName !== DATABASE) return error(x, 404, `database not found: ${dbName}`);
    const baseId = url.searchParams.get('base_branch_id') ?? branch.parent_id;
    if (!baseId) return error(x, 400, 'base_branch_id is required for a branch without a parent');
    if (!branchById(p.id, baseId)) return error(x, 404, `branch not found: ${baseId}`);
    const diffs = scenario.schemaDiffs ?? {};
    send(x, 200, { diff: diffs[branch.id] ?? diffs[branch.name] ?? '' });
  }

  /**
   * One role (`…/roles/{role_name}`, its password at `…/reveal_password`) or one database
   * (`…/databases/{database_name}`) of a branch: the owner role and its database only.
   */
  function roleOrDatabase(
    x: Exchange,
    p: ProjectScript,
    branchId: string,
    kind: 'roles' | 'databases',
    name: string,
    more: string | undefined
  ): void {
    const branch = branchById(p.id, branchId);
    if (!branch) return error(x, 404, `branch not found: ${branchId}`);
    const at = iso(branch.created);
    if (kind === 'databases') {
      if (name !== DATABASE || more) return error(x, 404, `database not found: ${name}`);
      return send(x, 200, { database: databaseBody(branch.id, at) });
    }
    if (name !== ROLE) return error(x, 404, `role not found: ${name}`);
    if (more === 'reveal_password') return send(x, 200, { password: passwordOf(branch.id) });
    if (more) return error(x, 404, 'not found');
    send(x, 200, { role: roleBody(branch.id, at) });
  }

  /**
   * List branches: `search` matches part of a name or an id, whatever the case; sorted by
   * `sort_by` (`updated_at` by default) in `sort_order` (`desc` by default), ties by id; `limit`
   * and an opaque `cursor`. `pagination.next` comes with every full page, so a last page that is
   * exactly full is followed by an empty one: clients must stop on either.
   */
  function listBranches(x: Exchange, p: ProjectScript, url: URL): void {
    const limit = intParam(url, 'limit', Infinity);
    if (limit === undefined || limit < 1 || (Number.isFinite(limit) && limit > 10_000))
      return error(x, 400, 'limit must be between 1 and 10000');
    const sortBy = url.searchParams.get('sort_by') ?? 'updated_at';
    if (!['name', 'created_at', 'updated_at'].includes(sortBy))
      return error(x, 400, `invalid sort_by: ${sortBy}`);
    const sortOrder = url.searchParams.get('sort_order') ?? 'desc';
    if (sortOrder !== 'asc' && sortOrder !== 'desc')
      return error(x, 400, `invalid sort_order: ${sortOrder}`);
    const term = (url.searchParams.get('search') ?? '').toLowerCase();
    const matching = liveBranches(p.id).filter(
      (b) => b.name.toLowerCase().includes(term) || b.id.toLowerCase().includes(term)
    );
    const bodies = matching.map((b) => branchBody(b, clock(), iso));
    /** Where a branch stands in the order: its sort field, then its id. */
    const place = (b: Record<string, unknown>): [string, string] => [
      String(b[sortBy]),
      String(b.id)
    ];
    const sign = sortOrder === 'asc' ? 1 : -1;
    // By code points, not the locale's collation: the same order on every machine.
    const byPoints = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
    const compare = ([k1, id1]: [string, string], [k2, id2]: [string, string]): number =>
      sign * (k1 === k2 ? byPoints(id1, id2) : byPoints(k1, k2));
    const sorted = bodies.sort((a, b) => compare(place(a), place(b)));
    const cursor = url.searchParams.get('cursor');
    let after: [string, string] | undefined;
    if (cursor) {
      after = decodeCursor(cursor);
      if (!after) return error(x, 400, `invalid cursor: ${cursor}`);
    }
    const from = after;
    const page = (from ? sorted.filter((b) => compare(place(b), from) > 0) : sorted).slice(
      0,
      limit
    );
    const last = page[page.length - 1];
    const next = last && page.length === limit ? { next: encodeCursor(place(last)) } : {};
    // The annotations of the branches on this page that have one, keyed by branch id.
    const annotations = Object.fromEntries(
      matching
        .filter((b) => b.annotations && page.some((body) => body.id === b.id))
        .map((b) => [b.id, annotationBody(b, iso)])
    );
    send(x, 200, {
      branches: page,
      annotations,
      pagination: { ...next, sort_by: sortBy, sort_order: sortOrder }
    });
  }

  /**
   * Retrieve connection URI: `database_name` and `role_name` required (400 without); the branch
   * (by default the project's default one) and the endpoint (by default the branch's read-write
   * one) must exist (404). `pooled=true` adds `-pooler` to the host's first label.
   */
  function connectionUri(x: Exchange, p: ProjectScript, url: URL): void {
    const ask = (name: string): string | undefined => url.searchParams.get(name) ?? undefined;
    const databaseName = ask('database_name');
    const roleName = ask('role_name');
    if (!databaseName) return error(x, 400, 'database_name is required');
    if (!roleName) return error(x, 400, 'role_name is required');
    const pooled = ask('pooled');
    if (pooled !== undefined && pooled !== 'true' && pooled !== 'false')
      return error(x, 400, `invalid pooled: ${pooled}`);
    const branchId = ask('branch_id');
    const branch = branchId
      ? branchById(p.id, branchId)
      : liveBranches(p.id).find((b) => b.default);
    if (!branch) return error(x, 404, `branch not found: ${branchId ?? 'default'}`);
    const endpointId = ask('endpoint_id');
    const endpoint = liveEndpoints(p.id).find((e) =>
      endpointId ? e.id === endpointId : e.branch_id === branch.id && e.type !== 'read_only'
    );
    if (!endpoint || endpoint.branch_id !== branch.id)
      return error(x, 404, `endpoint not found: ${endpointId ?? `read_write of ${branch.id}`}`);
    if (databaseName !== DATABASE) return error(x, 404, `database not found: ${databaseName}`);
    if (roleName !== ROLE) return error(x, 404, `role not found: ${roleName}`);
    const host = endpointHost(endpoint, p);
    const details = connectionDetails(
      pooled === 'true' ? poolerHost(host) : host,
      passwordOf(branch.id),
      options.postgres
    );
    send(x, 200, { uri: details.connection_uri });
  }

  /** Operations of the project in progress now: while there is one, mutations answer 423. */
  const holders = (projectId: string): OperationScript[] =>
    scenario.operations.filter((op) => {
      if (op.project_id !== projectId || !exists(op)) return false;
      const status = stateAt(
        op.steps.map((step): [number, string] => [step.at, step.status]),
        clock()
      );
      return IN_PROGRESS.has(status ?? 'scheduling');
    });

  /**
   * Starts operations one after the other, each running `operationMs` (or its own `ms`): the first
   * runs now, the next are scheduled until the one before has finished. Answers their bodies and
   * when the last ends.
   */
  function start(
    projectId: string,
    chain: ChainedOperation[]
  ): { operations: Array<Record<string, unknown>>; done: number } {
    const now = clock();
    let begin = now;
    const started = chain.map(({ ms = operationMs, ...fields }, i) => {
      const timeline: StepScript[] = [
        ...(i > 0 ? [{ at: now, status: 'scheduling' }] : []),
        { at: begin, status: 'running' },
        { at: begin + ms, status: 'finished' }
      ];
      begin += ms;
      const op: OperationScript = {
        id: randomUUID(),
        project_id: projectId,
        ...fields,
        created: now,
        steps: timeline
      };
      scenario.operations.push(op);
      stamp(op);
      return op;
    });
    return { operations: started.map((op) => render(op) as Record<string, unknown>), done: begin };
  }

  function mutate(
    x: Exchange,
    p: ProjectScript,
    route: string,
    segments: string[],
    json: Record<string, unknown>
  ): void {
    const [, , , id, action] = segments;
    const target = (): BranchScript | EndpointScript | undefined =>
      route.includes('{endpoint_id}')
        ? liveEndpoints(p.id).find((e) => e.id === id)
        : branchById(p.id, id as string);
    const known = [
      'POST /projects/{project_id}/branches',
      'DELETE /projects/{project_id}/branches/{branch_id}',
      'POST /projects/{project_id}/branches/{branch_id}/restore',
      'PATCH /projects/{project_id}/branches/{branch_id}',
      'POST /projects/{project_id}/endpoints/{endpoint_id}/start',
      'POST /projects/{project_id}/endpoints/{endpoint_id}/suspend'
    ];
    if (!known.includes(route)) return error(x, 404, 'not found');
    if (route === 'DELETE /projects/{project_id}/branches/{branch_id}' && !target()) {
      // The document: 204 "if the branch doesn't exist or has already been deleted".
      x.record.status = 204;
      x.res.writeHead(204, edgeHeaders());
      return void x.res.end();
    }
    if (id !== undefined && !target()) {
      const what = route.includes('{endpoint_id}') ? 'endpoint' : 'branch';
      return error(x, 404, `${what} not found: ${id}`);
    }
    // What the request itself gets wrong is refused before the lock is looked at: a name that
    // exists answers 409 even while the project is busy (so of several jobs creating one name at
    // once, the first gets 201 and every other 409 while the branch lives).
    const ask = route === 'POST /projects/{project_id}/branches' ? readCreate(p, json) : undefined;
    if (ask && 'status' in ask) return error(x, ask.status, ask.message, {}, ask.code);
    if (route === 'DELETE /projects/{project_id}/branches/{branch_id}') {
      const refused = refuseDelete(p, target() as BranchScript);
      if (refused) return error(x, 400, refused);
    }
    const restore =
      route === 'POST /projects/{project_id}/branches/{branch_id}/restore'
        ? readRestore(p, target() as BranchScript, json)
        : undefined;
    if (restore && 'status' in restore) return error(x, restore.status, restore.message);
    const update =
      route === 'PATCH /projects/{project_id}/branches/{branch_id}'
        ? readUpdate(p, target() as BranchScript, json)
        : undefined;
    if (update && 'status' in update) return error(x, update.status, update.message);
    // A rename or a new expiry schedules no work, so the lock does not refuse it; a change of
    // protection starts an operation, as a creation's protection settings do.
    const protects = update?.protected !== undefined;
    if (update && !protects) return updateBranch(x, p, target() as BranchScript, update);
    if (holders(p.id).length > 0) return error(x, 423, LOCKED_MESSAGE, {}, 'LOCKED');
    switch (route) {
      case 'POST /projects/{project_id}/branches':
        return createBranch(x, p, json, ask as CreateAsk);
      case 'DELETE /projects/{project_id}/branches/{branch_id}':
        return deleteBranch(x, p, target() as BranchScript);
      case 'POST /projects/{project_id}/branches/{branch_id}/restore':
        return restoreBranch(x, p, target() as BranchScript, restore as RestoreAsk);
      case 'PATCH /projects/{project_id}/branches/{branch_id}':
        return updateBranch(x, p, target() as BranchScript, update as UpdateAsk);
      default:
        return startOrSuspend(x, p, target() as EndpointScript, action === 'start');
    }
  }

  /**
   * The branch a create asks for, or why the service refuses it: 400 for a field of the wrong
   * form (`name` 1 to 256 characters; `expires_at` RFC 3339 and in the future, on the service's
   * clock; `protected` a boolean), 404 for an unknown parent, 409 for a name that exists.
   */
  function readCreate(p: ProjectScript, json: Record<string, unknown>): CreateAsk | Refusal {
    const asked = json.branch ?? {};
    if (typeof asked !== 'object' || asked === null || Array.isArray(asked))
      return { status: 400, message: 'branch must be an object' };
    const {
      name,
      parent_id,
      expires_at,
      protected: isProtected
    } = asked as Record<string, unknown>;
    if (name !== undefined && (typeof name !== 'string' || name.length < 1 || name.length > 256))
      return { status: 400, message: 'branch.name must be a string of 1 to 256 characters' };
    if (isProtected !== undefined && typeof isProtected !== 'boolean')
      return { status: 400, message: 'branch.protected must be a boolean' };
    const expiresAt = expires_at === undefined ? undefined : readExpiry(expires_at);
    if (typeof expiresAt === 'object') return expiresAt;
    const annotation = readAnnotationValue(json.annotation_value);
    if ('status' in annotation) return annotation;
    const annotations = annotation.value;
    const parent =
      typeof parent_id === 'string' && parent_id !== ''
        ? branchById(p.id, parent_id)
        : liveBranches(p.id).find((b) => b.default);
    if (!parent) return { status: 404, message: `branch not found: ${String(parent_id)}` };
    if (typeof name === 'string' && liveBranches(p.id).some((b) => b.name === name))
      return { status: 409, message: `branch with the provided name "${name}" already exists` };
    const plan = p.plan ?? SCALE_PLAN;
    const count = liveBranches(p.id).length;
    if (plan.overLimit === 'refused' && count >= plan.branches_limit)
      return {
        status: 422,
        code: BRANCHES_LIMIT_CODE,
        message: branchesLimitMessage(plan.branches_limit, count)
      };
    return {
      parent,
      ...(typeof name === 'string' ? { name } : {}),
      protected: isProtected === true,
      ...(expiresAt === undefined ? {} : { expiresAt }),
      ...(annotations ? { annotations } : {})
    };
  }

  /** An `expires_at` (RFC 3339, in the future on the service's clock) as simulator time, or why not. */
  function readExpiry(value: unknown): number | Refusal {
    if (typeof value !== 'string' || !RFC3339.test(value))
      return { status: 400, message: `invalid branch.expires_at: ${String(value)}` };
    const at = Date.parse(value) - epoch;
    if (Number.isNaN(at)) return { status: 400, message: `invalid branch.expires_at: ${value}` };
    if (at <= clock()) return { status: 400, message: 'branch.expires_at must be in the future' };
    return at;
  }

  /**
   * Update branch (`BranchUpdateRequest`): `branch` required; `name` 1 to 256 characters and free
   * (409 otherwise); `protected` a boolean; `expires_at` RFC 3339 in the future, or null to remove it.
   */
  function readUpdate(
    p: ProjectScript,
    branch: BranchScript,
    json: Record<string, unknown>
  ): UpdateAsk | Refusal {
    const asked = json.branch;
    if (typeof asked !== 'object' || asked === null || Array.isArray(asked))
      return { status: 400, message: 'branch is required and must be an object' };
    const { name, expires_at, protected: isProtected } = asked as Record<string, unknown>;
    if (name !== undefined && (typeof name !== 'string' || name.length < 1 || name.length > 256))
      return { status: 400, message: 'branch.name must be a string of 1 to 256 characters' };
    if (isProtected !== undefined && typeof isProtected !== 'boolean')
      return { status: 400, message: 'branch.protected must be a boolean' };
    const expiresAt =
      expires_at === undefined || expires_at === null ? expires_at : readExpiry(expires_at);
    if (typeof expiresAt === 'object' && expiresAt !== null) return expiresAt;
    const taken = liveBranches(p.id).some((b) => b.name === name && b.id !== branch.id);
    if (typeof name === 'string' && taken)
      return { status: 409, message: `branch with the provided name "${name}" already exists` };
    return {
      ...(typeof name === 'string' ? { name } : {}),
      ...(typeof isProtected === 'boolean' && isProtected !== (branch.protected ?? false)
        ? { protected: isProtected }
        : {}),
      ...(expiresAt === undefined ? {} : { expiresAt })
    };
  }

  /** The branch updated; a change of protection starts `timeline_update_protected_config`. */
  function updateBranch(x: Exchange, p: ProjectScript, branch: BranchScript, ask: UpdateAsk): void {
    if (ask.name !== undefined) branch.name = ask.name;
    if (ask.expiresAt === null) delete branch.expiresAt;
    else if (ask.expiresAt !== undefined) branch.expiresAt = ask.expiresAt;
    let operations: Array<Record<string, unknown>> = [];
    if (ask.protected !== undefined) {
      branch.protected = ask.protected;
      const brief = Math.round(operationMs / 4);
      ({ operations } = start(p.id, [
        { action: 'timeline_update_protected_config', branch_id: branch.id, ms: brief }
      ]));
    }
    send(x, 200, { branch: branchBody(branch, clock(), iso), operations });
  }

  /**
   * Restore (`BranchRestoreRequest`), what the request gets wrong refused before the lock, as the
   * document says: `source_branch_id` required and known (404); restoring from itself needs
   * `source_lsn` or `source_timestamp`; a branch with children, or restored from itself, needs
   * `preserve_under_name` (a free name: 409 otherwise).
   */
  function readRestore(
    p: ProjectScript,
    branch: BranchScript,
    json: Record<string, unknown>
  ): RestoreAsk | Refusal {
    const source = json.source_branch_id;
    if (typeof source !== 'string' || source === '')
      return { status: 400, message: 'source_branch_id is required' };
    if (!branchById(p.id, source)) return { status: 404, message: `branch not found: ${source}` };
    const itself = source === branch.id;
    const pointInTime = json.source_lsn !== undefined || json.source_timestamp !== undefined;
    if (itself && !pointInTime)
      return {
        status: 400,
        message: 'source_lsn or source_timestamp is required to restore a branch from itself'
      };
    const preserve = json.preserve_under_name;
    if (preserve !== undefined && (typeof preserve !== 'string' || preserve === ''))
      return { status: 400, message: 'preserve_under_name must be a non-empty string' };
    const children = liveBranches(p.id).some((b) => b.parent_id === branch.id);
    if ((children || itself) && preserve === undefined)
      return {
        status: 400,
        message: `preserve_under_name is required to restore branch ${branch.id}: it has child branches or restores from itself`
      };
    if (preserve !== undefined && liveBranches(p.id).some((b) => b.name === preserve))
      return { status: 409, message: `branch with the provided name "${preserve}" already exists` };
    return { source, ...(preserve === undefined ? {} : { preserveUnderName: preserve }) };
  }

  /**
   * Why the service refuses to delete a branch, if it does. The document says "You cannot delete
   * a project's root or default branch, or a branch that has a child branch" without a status, and
   * protected branches cannot be deleted either; the simulator answers 400, the request's own
   * fault, before looking at the lock.
   */
  function refuseDelete(p: ProjectScript, branch: BranchScript): string | undefined {
    if (branch.default) return `cannot delete the default branch ${branch.id}`;
    if (branch.protected) return `cannot delete protected branch ${branch.id}`;
    if (liveBranches(p.id).some((b) => b.parent_id === branch.id))
      return `cannot delete branch ${branch.id}: it has child branches`;
    return undefined;
  }

  function createBranch(
    x: Exchange,
    p: ProjectScript,
    json: Record<string, unknown>,
    ask: CreateAsk
  ): void {
    const { parent } = ask;
    const wanted = Array.isArray(json.endpoints) ? json.endpoints.length : 0;
    const now = clock();
    const id = newBranchId();
    // What a creation answers in 2026: the branch, its protection settings, each compute
    // started, then a project-level `epc_sync` that names no branch. The two bookkeeping
    // operations are short.
    const brief = Math.round(operationMs / 4);
    const chain: ChainedOperation[] = [
      { action: 'create_branch', branch_id: id },
      { action: 'timeline_update_protected_config', branch_id: id, ms: brief }
    ];
    const created: EndpointScript[] = [];
    for (let i = 0; i < wanted; i++) {
      const endpoint: EndpointScript = {
        id: newEndpointId(),
        project_id: p.id,
        branch_id: id,
        created: now,
        states: [[now, 'init']]
      };
      created.push(endpoint);
      chain.push({ action: 'start_compute', branch_id: id, endpoint_id: endpoint.id });
    }
    chain.push({ action: 'epc_sync', ms: brief });
    const { operations, done } = start(p.id, chain);
    for (const endpoint of created) endpoint.states?.push([done, 'active']);
    const branch: BranchScript = {
      id,
      project_id: p.id,
      name: ask.name ?? id,
      parent_id: parent.id,
      protected: ask.protected,
      ...(ask.expiresAt === undefined ? {} : { expiresAt: ask.expiresAt }),
      ...(ask.annotations === undefined ? {} : { annotations: ask.annotations }),
      created: now,
      states: [
        [now, 'init'],
        [now + operationMs, 'ready']
      ]
    };
    branches.push(branch);
    endpoints.push(...created);
    const password = passwordOf(id);
    const at = iso(now);
    send(x, 201, {
      branch: branchBody(branch, now, iso),
      endpoints: created.map((e) => endpointBody(e, p, now, iso)),
      operations,
      roles: [roleBody(id, at, password)],
      databases: [databaseBody(id, at)],
      // The service sends connection URIs when the new branch has an endpoint to connect to.
      ...(created.length > 0
        ? {
            connection_uris: created.map((e) =>
              connectionDetails(endpointHost(e, p), password, options.postgres)
            )
          }
        : {})
    });
  }

  /** What the document's example shows: each active endpoint suspended, then the timeline deleted. */
  function deleteBranch(x: Exchange, p: ProjectScript, branch: BranchScript): void {
    const active = liveEndpoints(p.id).filter(
      (e) => e.branch_id === branch.id && stateAt(e.states ?? [], clock()) === 'active'
    );
    const { operations } = start(p.id, [
      ...active.map((e) => ({
        action: 'suspend_compute',
        branch_id: branch.id,
        endpoint_id: e.id
      })),
      { action: 'delete_timeline', branch_id: branch.id }
    ]);
    const body = branchBody(branch, clock(), iso);
    branchGone.set(branch.id, clock());
    send(x, 200, { branch: body, operations });
  }

  /**
   * Restore (and reset to the parent: `source_branch_id` is the parent). The document does not say
   * which operations it starts; the simulator starts a new timeline, then each endpoint again. The
   * branch keeps its id, name and computes; `last_reset_at` says when. With `preserve_under_name`,
   * the old state stays as a new branch of that name, which takes over the children.
   */
  function restoreBranch(
    x: Exchange,
    p: ProjectScript,
    branch: BranchScript,
    ask: RestoreAsk
  ): void {
    if (ask.preserveUnderName !== undefined) {
      const preserved: BranchScript = {
        id: newBranchId(),
        project_id: p.id,
        name: ask.preserveUnderName,
        ...(branch.parent_id === undefined ? {} : { parent_id: branch.parent_id }),
        created: clock()
      };
      for (const child of liveBranches(p.id))
        if (child.parent_id === branch.id) child.parent_id = preserved.id;
      branches.push(preserved);
    }
    const own = liveEndpoints(p.id).filter((e) => e.branch_id === branch.id);
    const { operations, done } = start(p.id, [
      { action: 'create_timeline', branch_id: branch.id },
      ...own.map((e) => ({ action: 'start_compute', branch_id: branch.id, endpoint_id: e.id }))
    ]);
    const now = clock();
    branch.lastResetAt = now;
    branch.states = [
      ...(branch.states ?? [[branch.created, 'ready']]),
      [now, 'resetting'],
      [done, 'ready']
    ];
    send(x, 200, { branch: branchBody(branch, now, iso), operations });
  }

  function startOrSuspend(
    x: Exchange,
    p: ProjectScript,
    endpoint: EndpointScript,
    starting: boolean
  ): void {
    const { operations, done } = start(p.id, [
      {
        action: starting ? 'start_compute' : 'suspend_compute',
        branch_id: endpoint.branch_id,
        endpoint_id: endpoint.id
      }
    ]);
    endpoint.states = [
      ...(endpoint.states ?? [[endpoint.created, 'idle']]),
      [done, starting ? 'active' : 'idle']
    ];
    send(x, 200, { endpoint: endpointBody(endpoint, p, clock(), iso), operations });
  }

  function listProjects(x: Exchange, url: URL, key: KeyScript): void {
    const limit = intParam(url, 'limit', 10);
    if (limit === undefined || limit < 1 || limit > 400)
      return error(x, 400, 'limit must be between 1 and 400');
    const visible = visibleProjects(key, url.searchParams.get('org_id') ?? undefined);
    if (visible === 'forbidden') return error(x, 403, 'not a member of this organization');
    const sorted = [...visible].sort((a, b) => a.id.localeCompare(b.id));
    const cursor = url.searchParams.get('cursor');
    const rest = cursor ? sorted.filter((p) => p.id > cursor) : sorted;
    const page = rest.slice(0, limit);
    const body: Record<string, unknown> = {
      projects: page.map(projectItem),
      applications: {},
      integrations: {}
    };
    if (page.length > 0) body.pagination = { cursor: (page[page.length - 1] as ProjectScript).id };
    send(x, 200, body);
  }

  function listOperations(x: Exchange, url: URL, projectId: string): void {
    const limit = intParam(url, 'limit', 10);
    if (limit === undefined || limit < 1 || limit > 1000)
      return error(x, 400, 'limit must be between 1 and 1000');
    const cursor = url.searchParams.get('cursor');
    let before = Infinity;
    if (cursor) {
      before = parseMicros(cursor);
      if (Number.isNaN(before)) return error(x, 400, `invalid cursor: ${cursor}`);
    }
    const visible = scenario.operations
      .filter((op) => op.project_id === projectId && exists(op))
      .sort((a, b) => stamp(b) - stamp(a))
      .filter((op) => stamp(op) < before);
    const page = visible.slice(0, limit);
    const last = page[page.length - 1];
    // The real service returns a cursor even on its last page; past the end, the same cursor again.
    const nextCursor = last ? formatMicros(stamp(last)) : cursor;
    const body: Record<string, unknown> = { operations: page.map(serve) };
    if (nextCursor) body.pagination = { cursor: nextCursor };
    send(x, 200, body);
  }

  function getOperation(x: Exchange, projectId: string, operationId: string): void {
    if (!UUID.test(operationId)) return error(x, 400, `invalid operation id: ${operationId}`);
    const op = scenario.operations.find(
      (o) => o.id === operationId.toLowerCase() && o.project_id === projectId
    );
    const body = op && exists(op) && serve(op);
    if (!body) return error(x, 404, `operation not found: ${operationId}`);
    send(x, 200, { operation: body });
  }

  const server = createServer(receive);
  // On a clock of its own (simulated time), the client's idle-connection timers run on faked
  // timers too: each jump of minutes would close every connection, and each next request open
  // one. Undici keeps a connection as long as the server's keep-alive hint says (up to 10 minutes).
  if (options.clock) server.keepAliveTimeout = 3_600_000;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/api/v2`,
    requests,
    inject: (fault, rule = { times: 1 }) => void faults.push({ fault, ...rule }),
    clearFaults: () => void faults.splice(0),
    revokeKey: (k, at = clock()) => void revoked.set(k, at),
    addOperation: (op) => {
      scenario.operations.push(op);
      stamp(op);
    },
    setSchemaDiff: (branch, diff) => {
      scenario.schemaDiffs = { ...scenario.schemaDiffs, [branch]: diff };
    },
    operations: (projectId) => scenario.operations.filter((op) => op.project_id === projectId),
    deleteProject: (projectId, at = clock()) => {
      const p = projectById(projectId);
      if (p) p.deletedAt = at;
    },
    deleteBranch: (projectId, branchId, at = clock()) => {
      const p = projectById(projectId);
      if (p) p.deletedBranches = { ...p.deletedBranches, [branchId]: at };
    },
    gather: (count, rule = {}) => void gatherings.push({ count, ...rule, held: [] }),
    setRateLimit: (limit) => {
      rateLimit = limit;
      hits.clear();
    },
    now: clock,
    branches: liveBranches,
    render,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      })
  };
}

/** A create's branch, as `readCreate` read it from the body. */
interface CreateAsk {
  parent: BranchScript;
  name?: string;
  protected: boolean;
  expiresAt?: number;
  annotations?: Record<string, string>;
}

/** What a PATCH changes: `expiresAt` null removes the expiry; `protected` only when it changes. */
interface UpdateAsk {
  name?: string;
  protected?: boolean;
  expiresAt?: number | null;
}

/** A restore, as `readRestore` read it. */
interface RestoreAsk {
  source: string;
  preserveUnderName?: string;
}

/** An error the service answers instead; `code` as the service sets it on a few (`BRANCHES_LIMIT_EXCEEDED`). */
interface Refusal {
  status: number;
  message: string;
  code?: string;
}

/**
 * The code of a create refused at the plan's branch limit. No recording of it was found; by
 * analogy with the recorded `422 {"code":"PROJECTS_LIMIT_EXCEEDED","message":"user projects limit
 * of 1 exceeded, got 1"}` (neondatabase/neonctl#255). Clients should match the status and words.
 */
export const BRANCHES_LIMIT_CODE = 'BRANCHES_LIMIT_EXCEEDED';

/** The refusal's words, shaped as the recorded projects-limit message. */
export function branchesLimitMessage(limit: number, count: number): string {
  return `branches limit of ${limit} exceeded, got ${count}`;
}

/** The document's `AnnotationValueData`: an object of at most 50 strings. */
function readAnnotationValue(value: unknown): { value?: Record<string, string> } | Refusal {
  if (value === undefined) return {};
  const wrong = {
    status: 400,
    message: 'annotation_value must be an object of at most 50 strings'
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return wrong;
  const entries = Object.entries(value);
  if (entries.length > 50) return wrong;
  const strings = entries.filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string'
  );
  return strings.length === entries.length ? { value: Object.fromEntries(strings) } : wrong;
}

/** RFC 3339, section 5.6: a date-time with a time zone (`2025-06-09T18:02:16Z`). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/** The opaque cursor of List branches: where the last branch of a page stands in the order. */
function encodeCursor(place: [string, string]): string {
  return Buffer.from(JSON.stringify(place)).toString('base64url');
}

function decodeCursor(cursor: string): [string, string] | undefined {
  try {
    const place: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(place) && place.length === 2 && place.every((v) => typeof v === 'string'))
      return [place[0] as string, place[1] as string];
  } catch {
    // not JSON: not a cursor this simulator gave
  }
  return undefined;
}

const ID_NAMES: Record<string, string> = {
  projects: '{project_id}',
  operations: '{operation_id}',
  branches: '{branch_id}',
  endpoints: '{endpoint_id}'
};

/** `api/v2/projects/x/operations/y` → `/projects/{project_id}/operations/{operation_id}`. */
/** An operation a mutation starts; a project-level one (`epc_sync`) names no branch. */
interface ChainedOperation {
  action: string;
  branch_id?: string;
  endpoint_id?: string;
  /** How long it runs; `operationMs` by default. */
  ms?: number;
}

function routeTemplate(parts: string[]): string {
  const named = parts.map((part, i) =>
    i >= 3 && i % 2 === 1 ? (ID_NAMES[parts[i - 1] as string] ?? part) : part
  );
  return `/${named.slice(parts[0] === 'api' && parts[1] === 'v2' ? 2 : 0).join('/')}`;
}

/** Titles of Cloudflare's error pages. */
const EDGE_ERRORS: Record<number, string> = {
  500: 'Internal server error',
  502: 'Bad gateway',
  503: 'Service unavailable',
  504: 'Gateway time-out',
  520: 'Web server is returning an unknown error',
  521: 'Web server is down',
  522: 'Connection timed out',
  523: 'Origin is unreachable',
  524: 'A timeout occurred'
};

function intParam(url: URL, name: string, fallback: number): number | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null) return fallback;
  return /^\d+$/.test(raw) ? Number(raw) : undefined;
}

/** Each second's text, made once: a page of 1,000 operations writes 2,000, mostly the same few. */
const secondsWritten = new Map<number, string>();

function isoSeconds(ms: number): string {
  const second = Math.floor(ms / 1000);
  let text = secondsWritten.get(second);
  if (text === undefined) {
    // `Date` may be fake-timers' (simulated time), several times slower than the native one.
    text = new Date(second * 1000).toISOString().replace('.000Z', 'Z');
    if (secondsWritten.size < 100_000) secondsWritten.set(second, text);
  }
  return text;
}

/** `2022-12-07T00:45:05.262011Z` ↔ microseconds since the epoch. */
function formatMicros(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const fraction = String(micros % 1_000_000).padStart(6, '0');
  return `${new Date(ms).toISOString().slice(0, 19)}.${fraction}Z`;
}

function parseMicros(text: string): number {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?Z$/.exec(text);
  if (!match) return NaN;
  const seconds = Date.parse(`${match[1]}Z`);
  return seconds * 1000 + Number((match[2] ?? '').padEnd(6, '0'));
}

function defaultMessage(status: number): string {
  return status === 429
    ? 'too many requests'
    : status === 423
      ? 'project is locked by another operation'
      : 'internal error';
}

/** A project's default branch when the scenario names none: `main`, there since long ago. */
/**
 * A branch or compute an operation names exists on the service, from that operation on: those the
 * scenario does not list are added (a branch named by its id, made from the project's default), so
 * that a wait on a `branch_id` or `endpoint_id` finds it, and a wrong id still answers 404.
 */
function impliedPlaces(
  operations: OperationScript[],
  branches: BranchScript[],
  endpoints: EndpointScript[]
): void {
  const implied = new Map<string, BranchScript>();
  for (const op of operations) {
    const main = branches.find((b) => b.project_id === op.project_id && b.default);
    const { branch_id: branchId, endpoint_id: endpointId } = op;
    const listed = (id: string) =>
      branches.some((b) => b.project_id === op.project_id && b.id === id);
    if (branchId && !listed(branchId)) {
      const parent = main && { parent_id: main.id };
      const branch: BranchScript = {
        id: branchId,
        project_id: op.project_id,
        name: branchId,
        created: op.created,
        ...parent
      };
      implied.set(branchId, branch);
      branches.push(branch);
    }
    const made = branchId && implied.get(branchId);
    if (made && op.created < made.created) made.created = op.created;
    const owner = branchId ?? main?.id;
    if (endpointId && owner && !endpoints.some((e) => e.id === endpointId))
      endpoints.push({
        id: endpointId,
        project_id: op.project_id,
        branch_id: owner,
        created: op.created
      });
  }
}

function defaultBranch(projectId: string): BranchScript {
  return {
    id: `br-main-${digits(projectId, 8)}`,
    project_id: projectId,
    name: 'main',
    default: true,
    created: -30 * 86_400_000
  };
}

function defaultEndpointId(projectId: string): string {
  return `ep-main-${digits(projectId, 6)}`;
}

/** `length` digits derived from `text`, so a project's default ids are the same in every run. */
function digits(text: string, length: number): string {
  let hash = 7;
  for (const c of text) hash = (hash * 31 + c.charCodeAt(0)) % 10 ** length;
  return String(hash).padStart(length, '0');
}
