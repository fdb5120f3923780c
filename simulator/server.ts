import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type {
  KeyScript,
  OperationScript,
  ProjectScript,
  Scenario,
  StepScript
} from './scenario.js';

/**
 * A local stand-in for the control-plane API v2: List projects, List operations and Get operation,
 * with the real service's shapes (checked against the official OpenAPI document in the tests), its
 * pagination (a cursor even on the last page), its error body, bearer auth with several kinds of
 * key, operations that change status over time, a rate limit, and faults on demand.
 */

export type Fault =
  | { kind: 'status'; status: number; retryAfter?: string; message?: string }
  | { kind: 'html'; status?: number }
  | { kind: 'reset' }
  | { kind: 'hang' }
  | { kind: 'malformed' }
  | { kind: 'missing-fields' }
  | { kind: 'echo-key'; status?: number }
  | { kind: 'redirect'; location: string };

export interface FaultRule {
  fault: Fault;
  /** Only requests whose path (with query) contains this. */
  match?: string;
  /** How many matching requests get the fault; Infinity for all. */
  times: number;
  /** Matching requests to let through first. */
  skip?: number;
}

export interface RateLimit {
  /** Requests per second allowed for each key (a token bucket of this size, refilled continuously). */
  perSecond: number;
  /** Send `Retry-After` with the 429 (seconds until a token is free). */
  retryAfter?: boolean;
}

export interface RequestRecord {
  at: number;
  method: string;
  path: string;
  /** The request target exactly as sent, to check URL encoding. */
  target: string;
  query: Record<string, string>;
  status: number;
  key?: string;
  userAgent?: string;
  requestId: string;
}

export interface SimulatorOptions {
  scenario: Scenario;
  /** Milliseconds since the simulator started; a test or the benchmark may drive its own clock. */
  clock?: () => number;
  /** Wall-clock time of the simulator's start, for timestamps. */
  epoch?: number;
  rateLimit?: RateLimit;
  port?: number;
}

export interface Simulator {
  /** Base URL to pass as `api_host`, e.g. http://127.0.0.1:40123/api/v2 */
  url: string;
  requests: RequestRecord[];
  inject(fault: Fault, rule?: Omit<FaultRule, 'fault'>): void;
  clearFaults(): void;
  revokeKey(key: string): void;
  addOperation(op: OperationScript): void;
  setRateLimit(limit: RateLimit | undefined): void;
  /** Milliseconds since start on the simulator's clock. */
  now(): number;
  /** The operation as the API would return it now, or undefined if it does not exist yet. */
  render(op: OperationScript): Record<string, unknown> | undefined;
  close(): Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TERMINAL = new Set(['finished', 'skipped', 'cancelled', 'error']);

export async function startSimulator(options: SimulatorOptions): Promise<Simulator> {
  const started = Date.now();
  const clock = options.clock ?? (() => Date.now() - started);
  const epoch = options.epoch ?? started;
  const scenario: Scenario = structuredClone(options.scenario);
  const revoked = new Set<string>();
  const faults: FaultRule[] = [];
  const requests: RequestRecord[] = [];
  const sockets = new Set<Socket>();
  const buckets = new Map<string, { tokens: number; at: number }>();
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

  function render(op: OperationScript): Record<string, unknown> | undefined {
    const now = clock();
    if (op.created > now) return undefined;
    let step: StepScript | undefined;
    let failures = 0;
    for (const s of op.steps) {
      if (s.at > now) break;
      step = s;
      failures = s.failures_count ?? failures;
    }
    step ??= { at: op.created, status: 'scheduling' };
    const terminal = TERMINAL.has(step.status);
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
      ...(op.omitDuration
        ? {}
        : { total_duration_ms: Math.max(0, Math.round((terminal ? step.at : now) - op.created)) }),
      ...op.extra
    };
    return body;
  }

  function visibleProjects(
    key: KeyScript,
    orgId: string | undefined
  ): ProjectScript[] | 'forbidden' {
    switch (key.kind) {
      case 'personal':
        if (orgId)
          return key.orgs?.includes(orgId)
            ? scenario.projects.filter((p) => p.org_id === orgId)
            : 'forbidden';
        return scenario.projects.filter((p) => !p.org_id && p.owner_id === key.user);
      case 'organization':
        if (orgId && orgId !== key.org) return 'forbidden';
        return scenario.projects.filter((p) => p.org_id === key.org);
      case 'project':
        return scenario.projects.filter((p) => p.id === key.project);
    }
  }

  function canSee(key: KeyScript, projectId: string): boolean {
    const p = scenario.projects.find((candidate) => candidate.id === projectId);
    if (!p) return false;
    switch (key.kind) {
      case 'personal':
        return p.org_id ? (key.orgs ?? []).includes(p.org_id) : p.owner_id === key.user;
      case 'organization':
        return p.org_id === key.org;
      case 'project':
        return p.id === key.project;
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

  function send(
    res: ServerResponse,
    status: number,
    body: unknown,
    record: RequestRecord,
    headers: Record<string, string> = {}
  ): void {
    record.status = status;
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      'x-request-id': record.requestId,
      ...headers
    });
    res.end(text);
  }

  function error(
    res: ServerResponse,
    status: number,
    message: string,
    record: RequestRecord,
    headers?: Record<string, string>
  ): void {
    send(res, status, { code: '', message, request_id: record.requestId }, record, headers);
  }

  /** The fault for this request, if a rule matches; counts it against the rule. */
  function takeFault(pathWithQuery: string): Fault | undefined {
    for (const rule of faults) {
      if (rule.match && !pathWithQuery.includes(rule.match)) continue;
      if (rule.times <= 0) continue;
      if (rule.skip && rule.skip > 0) {
        rule.skip--;
        continue;
      }
      rule.times--;
      return rule.fault;
    }
    return undefined;
  }

  /** Token bucket per key; answers the wait in ms when empty. */
  function rateLimited(key: string): number | undefined {
    if (!rateLimit) return undefined;
    const now = clock();
    const bucket = buckets.get(key) ?? { tokens: rateLimit.perSecond, at: now };
    bucket.tokens = Math.min(
      rateLimit.perSecond,
      bucket.tokens + ((now - bucket.at) / 1000) * rateLimit.perSecond
    );
    bucket.at = now;
    buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return undefined;
    }
    return Math.ceil(((1 - bucket.tokens) / rateLimit.perSecond) * 1000);
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://simulator');
    const requestId = (req.headers['x-request-id'] as string | undefined) ?? randomUUID();
    const auth = req.headers.authorization;
    const key = auth?.startsWith('Bearer ') ? auth.slice(7) : undefined;
    const record: RequestRecord = {
      at: clock(),
      method: req.method ?? 'GET',
      path: url.pathname,
      target: req.url ?? '',
      query: Object.fromEntries(url.searchParams),
      status: 0,
      key,
      userAgent: req.headers['user-agent'],
      requestId
    };
    requests.push(record);

    const fault = takeFault(url.pathname + url.search);
    if (fault) {
      switch (fault.kind) {
        case 'status':
          return error(
            res,
            fault.status,
            fault.message ?? defaultMessage(fault.status),
            record,
            fault.retryAfter ? { 'retry-after': fault.retryAfter } : {}
          );
        case 'html': {
          record.status = fault.status ?? 502;
          res.writeHead(record.status, { 'content-type': 'text/html' });
          return void res.end(
            '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>'
          );
        }
        case 'reset':
          record.status = -1;
          return void req.socket.destroy();
        case 'hang':
          record.status = -2;
          return; // never answers; the socket is destroyed on close()
        case 'malformed':
          record.status = 200;
          res.writeHead(200, { 'content-type': 'application/json' });
          return void res.end('{"operation": {"id": "');
        case 'missing-fields':
          return send(res, 200, { unexpected: true }, record);
        case 'echo-key':
          return error(
            res,
            fault.status ?? 400,
            `invalid request: header was "${auth ?? ''}"`,
            record
          );
        case 'redirect':
          record.status = 302;
          res.writeHead(302, { location: fault.location });
          return void res.end();
      }
    }

    if (!key || !(key in scenario.keys) || revoked.has(key)) {
      return error(
        res,
        401,
        'authentication failed: the API key is missing, invalid or revoked',
        record
      );
    }
    const wait = rateLimited(key);
    if (wait !== undefined) {
      return error(
        res,
        429,
        'rate limit exceeded',
        record,
        rateLimit?.retryAfter ? { 'retry-after': String(Math.ceil(wait / 1000)) } : {}
      );
    }
    if (req.method !== 'GET') return error(res, 405, 'method not allowed', record);

    const keyScript = scenario.keys[key] as KeyScript;
    const parts = url.pathname.replace(/\/+$/, '').split('/').slice(1);
    if (parts[0] !== 'api' || parts[1] !== 'v2') return error(res, 404, 'not found', record);
    const route = parts.slice(2).map(decodeURIComponent);

    if (route.length === 1 && route[0] === 'projects')
      return listProjects(url, keyScript, res, record);
    if (route[0] === 'projects' && route[2] === 'operations' && route.length <= 4) {
      const projectId = route[1] as string;
      if (!canSee(keyScript, projectId))
        return error(res, 404, `project not found: ${projectId}`, record);
      if (route.length === 3) return listOperations(url, projectId, res, record);
      return getOperation(projectId, route[3] as string, res, record);
    }
    return error(res, 404, 'not found', record);
  }

  function listProjects(
    url: URL,
    key: KeyScript,
    res: ServerResponse,
    record: RequestRecord
  ): void {
    const limit = intParam(url, 'limit', 10);
    if (limit === undefined || limit < 1 || limit > 400)
      return error(res, 400, 'limit must be between 1 and 400', record);
    const visible = visibleProjects(key, url.searchParams.get('org_id') ?? undefined);
    if (visible === 'forbidden')
      return error(res, 403, 'not a member of this organization', record);
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
    send(res, 200, body, record);
  }

  function listOperations(
    url: URL,
    projectId: string,
    res: ServerResponse,
    record: RequestRecord
  ): void {
    const limit = intParam(url, 'limit', 10);
    if (limit === undefined || limit < 1 || limit > 1000)
      return error(res, 400, 'limit must be between 1 and 1000', record);
    const cursor = url.searchParams.get('cursor');
    let before = Infinity;
    if (cursor) {
      before = parseMicros(cursor);
      if (Number.isNaN(before)) return error(res, 400, `invalid cursor: ${cursor}`, record);
    }
    const visible = scenario.operations
      .filter((op) => op.project_id === projectId && op.created <= clock())
      .sort((a, b) => stamp(b) - stamp(a))
      .filter((op) => stamp(op) < before);
    const page = visible.slice(0, limit);
    const last = page[page.length - 1];
    // The real service returns a cursor even on its last page; past the end, the same cursor again.
    const nextCursor = last ? formatMicros(stamp(last)) : cursor;
    const body: Record<string, unknown> = { operations: page.map(render) };
    if (nextCursor) body.pagination = { cursor: nextCursor };
    send(res, 200, body, record);
  }

  function getOperation(
    projectId: string,
    operationId: string,
    res: ServerResponse,
    record: RequestRecord
  ): void {
    if (!UUID.test(operationId))
      return error(res, 400, `invalid operation id: ${operationId}`, record);
    const op = scenario.operations.find(
      (o) => o.id === operationId.toLowerCase() && o.project_id === projectId
    );
    const body = op && render(op);
    if (!body) return error(res, 404, `operation not found: ${operationId}`, record);
    send(res, 200, { operation: body }, record);
  }

  const server = createServer(handle);
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
    revokeKey: (k) => void revoked.add(k),
    addOperation: (op) => {
      scenario.operations.push(op);
      stamp(op);
    },
    setRateLimit: (limit) => {
      rateLimit = limit;
      buckets.clear();
    },
    now: clock,
    render,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      })
  };
}

function intParam(url: URL, name: string, fallback: number): number | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null) return fallback;
  return /^\d+$/.test(raw) ? Number(raw) : undefined;
}

function isoSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
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
    ? 'rate limit exceeded'
    : status === 423
      ? 'project is locked by another operation'
      : 'internal error';
}
