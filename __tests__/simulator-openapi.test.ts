/**
 * The simulator's answers checked against the official OpenAPI document (API v2) shipped in
 * `@neondatabase/api-client`: List operations, Get operation, List projects and the error body, plus
 * the pagination behaviour the document and the service show (newest first, a microsecond cursor,
 * a cursor on the last page, an empty page past the end).
 *
 * If one of these fails, the simulator (or the document) changed: do not loosen the schema here,
 * find out which side is wrong.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { randomUUID } from 'node:crypto';
import { get as httpGet, type IncomingHttpHeaders } from 'node:http';
import {
  branchCreation,
  DEFAULT_KEY,
  FREE_PLAN,
  operation,
  project,
  seededBranches,
  type OperationScript,
  type Scenario,
  type StepScript
} from '../simulator/scenario.js';
import {
  BRANCHES_LIMIT_CODE,
  reportedDurationMs,
  startSimulator,
  type Simulator
} from '../simulator/server.js';
import { DROP_COLUMN_AND_TABLE } from '../simulator/schema-diffs.js';
import { openApiDocument } from './helpers/openapi.js';

// ---------------------------------------------------------------------------------------------
// The document and the validators
// ---------------------------------------------------------------------------------------------

interface OpenApiDocument {
  openapi: string;
  paths: Record<string, unknown>;
  components: {
    schemas: Record<string, { required?: string[]; enum?: string[]; example?: unknown }>;
    responses: Record<string, unknown>;
  };
}

const doc = openApiDocument() as OpenApiDocument;

/** JSON pointer escaping for a path segment (`/` → `~1`). */
const segment = (s: string): string => s.replace(/~/g, '~0').replace(/\//g, '~1');

const SCHEMA = (name: string): string => `#/components/schemas/${name}`;
/** The 200 schema of List operations: `allOf` OperationsResponse + PaginationResponse. */
const LIST_OPERATIONS = '#/components/responses/ListOperations/content/application~1json/schema';
/** The 200 schema of List projects: ProjectsResponse + PaginationResponse + the two maps. */
const LIST_PROJECTS = `#/paths/${segment('/projects')}/get/responses/200/content/${segment('application/json')}/schema`;

/**
 * OpenAPI 3.0 schema objects are JSON Schema plus a few keywords (`nullable`, which Ajv knows,
 * `example`, `x-*`, `discriminator`...), so `strict: false` lets Ajv ignore the extra ones. The
 * document itself is not a JSON Schema; wrapping its `components` and `paths` in one under an `$id`
 * lets `$ref: "#/components/schemas/X"` resolve inside it.
 */
function validators(id: string, components: OpenApiDocument['components']) {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: id, components, paths: doc.paths });
  return (pointer: string): ValidateFunction => ajv.compile({ $ref: `${id}${pointer}` });
}

const strict = validators('neon', doc.components);

/**
 * The same document with the two documented deviations allowed: `total_duration_ms` no longer
 * required on Operation (the scenario's `omitDuration` operations: the service's own examples lack
 * it) and any `action` string (the service has actions its enum lacks, `delete_tenant` among them).
 */
const relaxedComponents = structuredClone(doc.components);
const relaxedOperation = relaxedComponents.schemas.Operation as { required: string[] };
relaxedOperation.required = relaxedOperation.required.filter((f) => f !== 'total_duration_ms');
const ACTIONS = relaxedComponents.schemas.OperationAction?.enum ?? [];
delete relaxedComponents.schemas.OperationAction?.enum;
const relaxed = validators('neon-relaxed', relaxedComponents);

/**
 * The document with the one action a branch creation answers in 2026 that its enum lacks
 * (`epc_sync`, project-level: no `branch_id`); everything else as strict.
 */
const newerComponents = structuredClone(doc.components);
newerComponents.schemas.OperationAction?.enum?.push('epc_sync');
const newer = validators('neon-2026', newerComponents);

const validate = {
  operation: strict(SCHEMA('Operation')),
  operationResponse: strict(SCHEMA('OperationResponse')),
  listOperations: strict(LIST_OPERATIONS),
  listProjects: strict(LIST_PROJECTS),
  projectsResponse: strict(SCHEMA('ProjectsResponse')),
  pagination: strict(SCHEMA('Pagination')),
  generalError: strict(SCHEMA('GeneralError')),
  relaxedOperationResponse: relaxed(SCHEMA('OperationResponse')),
  relaxedListOperations: relaxed(LIST_OPERATIONS)
};

function valueAt(data: unknown, pointer: string): unknown {
  let value = data;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    value =
      value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  }
  return value;
}

function describeError(error: ErrorObject, data: unknown): string {
  const value = valueAt(data, error.instancePath);
  const got = value === null || typeof value !== 'object' ? ` (got ${JSON.stringify(value)})` : '';
  const allowed =
    error.keyword === 'enum'
      ? ` ${JSON.stringify((error.params as { allowedValues: unknown[] }).allowedValues)}`
      : '';
  return `${error.instancePath || '/'} ${error.message ?? error.keyword}${allowed}${got}`;
}

/** Every schema violation, one readable line each (deduplicated): `[]` when valid. */
function problems(validator: ValidateFunction, data: unknown): string[] {
  if (validator(data)) return [];
  return [...new Set((validator.errors ?? []).map((e) => describeError(e, data)))];
}

const MISSING_DURATION = "must have required property 'total_duration_ms'";

/** What the strict document says of an operation that uses a documented deviation. */
function deviations(op: OperationScript | undefined, at: string): string[] {
  if (!op) return [];
  return [
    ...(op.omitDuration ? [`${at} ${MISSING_DURATION}`] : []),
    ...(ACTIONS.includes(op.action)
      ? []
      : [
          `${at}/action must be equal to one of the allowed values ${JSON.stringify(ACTIONS)} (got ${JSON.stringify(op.action)})`
        ])
  ];
}

// ---------------------------------------------------------------------------------------------
// The scenario
// ---------------------------------------------------------------------------------------------

const ORG = 'org-morning-bread-81040908';
const ORG_KEY = 'neon-sim-org-key-fedcba9876543210';
const PROJECT_KEY = 'neon-sim-project-key-0011223344556677';
const LONELY_KEY = 'neon-sim-lonely-key-8899aabbccddeeff';

const built = branchCreation();
const PROJECT = built.scenario.projects[0]?.id as string;
const branch = { branch_id: 'br-main-00112233', endpoint_id: 'ep-main-44556677' };

/** The statuses `branchCreation` leaves out, and one operation without `total_duration_ms`. */
const extraOps = {
  failed: operation(
    PROJECT,
    'apply_config',
    [
      [-5000, 'running'],
      [-2000, 'failed', { failures_count: 2, error: 'compute did not respond in time' }]
    ],
    branch
  ),
  error: operation(
    PROJECT,
    'create_timeline',
    [
      [-8000, 'scheduling'],
      [-7800, 'running'],
      [-6000, 'error', { failures_count: 3, error: 'pageserver returned 500: timeline not found' }]
    ],
    { branch_id: branch.branch_id }
  ),
  cancelling: operation(
    PROJECT,
    'suspend_compute',
    [
      [-4000, 'running'],
      [-1000, 'cancelling']
    ],
    branch
  ),
  cancelled: operation(
    PROJECT,
    'start_compute',
    [
      [-7000, 'scheduling'],
      [-6500, 'cancelled']
    ],
    // Fields the document does not (yet) list: Operation is open, so they must still validate.
    { ...branch, extra: { future_field: { nested: true } } }
  ),
  skipped: operation(PROJECT, 'check_availability', [[-9000, 'skipped']], branch),
  noDuration: operation(
    PROJECT,
    'start_compute',
    [
      [-3000, 'running'],
      [-2500, 'finished']
    ],
    { ...branch, omitDuration: true }
  ),
  /** Documented by Neon, missing from every spec's enum. */
  deleteTenant: operation(PROJECT, 'delete_tenant', [
    [-12_000, 'running'],
    [-10_000, 'finished']
  ]),
  /** In newer specs only: a client must take any string. */
  newer: operation(PROJECT, 'epc_sync', [[-11_000, 'running']], branch),
  newest: operation(PROJECT, 'tenant_detach_safekeepers', [[-11_500, 'scheduling']]),
  /** Created after "now": must not be listed or found. */
  future: operation(PROJECT, 'create_branch', [[60_000, 'running']])
};

const scenario: Scenario = {
  keys: {
    [DEFAULT_KEY]: { kind: 'personal', user: 'user-1', orgs: [ORG] },
    [ORG_KEY]: { kind: 'organization', org: ORG },
    [PROJECT_KEY]: { kind: 'project', project: PROJECT },
    [LONELY_KEY]: { kind: 'personal', user: 'user-2' }
  },
  projects: [
    ...built.scenario.projects,
    project('shiny-wind-028834', { owner_id: '1232111', org_id: ORG }),
    project('winter-boat-259881', {
      owner_id: '1232111',
      org_id: ORG,
      region_id: 'aws-eu-central-1'
    }),
    project('frosty-field-40572316', { owner_id: '1232111', org_id: ORG })
  ],
  operations: [...built.scenario.operations, ...Object.values(extraOps)]
};

/** The simulator's clock stands still at 0 ms, so every status and duration is deterministic. */
const NOW = 0;
const EPOCH = Date.UTC(2025, 5, 2, 10, 0, 0, 262);
const visibleOps = scenario.operations.filter((op) => op.created <= NOW);
/** The status the scenario gives the operation at NOW. */
const statusNow = (op: OperationScript): string =>
  op.steps.filter((step) => step.at <= NOW).at(-1)?.status ?? 'scheduling';
const byId = new Map<string, OperationScript>(scenario.operations.map((op) => [op.id, op]));

// ---------------------------------------------------------------------------------------------
// HTTP
// ---------------------------------------------------------------------------------------------

interface OperationBody {
  id: string;
  status: string;
  created_at: string;
  failures_count: number;
  error?: string;
  retry_at?: string;
  total_duration_ms?: number;
  [field: string]: unknown;
}
interface ListOperationsBody {
  operations: OperationBody[];
  pagination?: { cursor: string };
}
interface ListProjectsBody {
  projects: Array<{ id: string; org_id?: string }>;
  pagination?: { cursor: string };
}
interface Reply<T> {
  status: number;
  headers: Headers;
  body: T;
}

let sim: Simulator;

async function get<T = unknown>(
  path: string,
  key: string = DEFAULT_KEY,
  headers: Record<string, string> = {}
): Promise<Reply<T>> {
  const res = await fetch(`${sim.url}${path}`, {
    headers: { Authorization: `Bearer ${key}`, Accept: 'application/json', ...headers }
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${path}: ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`);
  }
  return { status: res.status, headers: res.headers, body: body as T };
}

/**
 * What every answer of the API carries in recordings: the request id in `X-Neon-Ret-Request-Id`
 * (never `X-Request-Id`), and Cloudflare's marks, the body chunked and JSON in UTF-8.
 */
function expectApiHeaders(reply: Reply<unknown>): void {
  expect(reply.headers.get('x-neon-ret-request-id')).toMatch(/^\S+$/);
  expect(reply.headers.get('x-request-id')).toBeNull();
  expect(reply.headers.get('server')).toBe('cloudflare');
  expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(reply.headers.get('transfer-encoding')).toBe('chunked');
  expect(reply.headers.get('content-length')).toBeNull();
}

const opsPath = (query = '', project = PROJECT): string =>
  `/projects/${project}/operations${query ? `?${query}` : ''}`;
const opPath = (id: string, project = PROJECT): string => `/projects/${project}/operations/${id}`;

/** Walks List operations with `limit` until an empty page; returns every page. */
async function walk(limit: number): Promise<Array<Reply<ListOperationsBody>>> {
  const pages: Array<Reply<ListOperationsBody>> = [];
  let cursor: string | undefined;
  for (let i = 0; i < 100; i++) {
    const query = new URLSearchParams({ limit: String(limit), ...(cursor ? { cursor } : {}) });
    const page = await get<ListOperationsBody>(opsPath(query.toString()));
    pages.push(page);
    if (page.status !== 200 || page.body.operations.length === 0) return pages;
    cursor = page.body.pagination?.cursor;
    if (!cursor) return pages;
  }
  throw new Error('pagination did not end after 100 pages');
}

/**
 * Strict validation of a List operations body, allowing only the documented deviations (see
 * `deviations`); the relaxed schema must accept the whole body.
 */
function expectListValid(body: ListOperationsBody): void {
  const expected = body.operations.flatMap((op, i) =>
    deviations(byId.get(op.id), `/operations/${i}`)
  );
  expect(problems(validate.listOperations, body).sort()).toEqual(expected.sort());
  expect(problems(validate.relaxedListOperations, body)).toEqual([]);
}

/** `2022-12-07T00:45:05.262011Z`: the cursor format of the document's Pagination example. */
const MICRO_CURSOR = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

beforeAll(async () => {
  sim = await startSimulator({ scenario, clock: () => NOW, epoch: EPOCH });
  expect(sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v2$/);
});

afterAll(async () => {
  await sim?.close();
});

// ---------------------------------------------------------------------------------------------
// The harness itself
// ---------------------------------------------------------------------------------------------

describe('the validation harness', () => {
  it('reads OpenAPI 3.0.3 with the schemas the simulator stands in for', () => {
    expect(doc.openapi).toBe('3.0.3');
    for (const name of [
      'Operation',
      'OperationResponse',
      'OperationsResponse',
      'PaginationResponse',
      'Pagination',
      'ProjectsResponse',
      'ProjectListItem',
      'GeneralError'
    ])
      expect(doc.components.schemas[name]).toBeDefined();
    expect(doc.components.schemas.Operation?.required).toContain('total_duration_ms');
    expect(relaxedComponents.schemas.Operation?.required).not.toContain('total_duration_ms');
  });

  it("accepts the document's own operation examples", () => {
    const examples: unknown[] = [];
    const visit = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(visit);
      if (!node || typeof node !== 'object') return;
      const record = node as Record<string, unknown>;
      if (typeof record.action === 'string' && typeof record.status === 'string')
        examples.push(record);
      Object.values(record).forEach(visit);
    };
    visit(doc.paths);
    visit(doc.components.schemas.Operation?.example);
    expect(examples.length).toBeGreaterThan(10);
    for (const example of examples) expect(problems(validate.operation, example)).toEqual([]);
  });

  it('rejects a deliberately broken operation, naming each fault', () => {
    const good = sim.render(built.createBranch) as Record<string, unknown>;
    expect(problems(validate.operationResponse, { operation: good })).toEqual([]);
    const broken: Record<string, unknown> = {
      ...good,
      id: 'not-a-uuid',
      project_id: 'Restless_Sun',
      status: 'done',
      failures_count: '0',
      created_at: 'yesterday',
      total_duration_ms: 1.5
    };
    delete broken.updated_at;
    expect(problems(validate.operationResponse, { operation: broken })).toEqual(
      expect.arrayContaining([
        "/operation must have required property 'updated_at'",
        '/operation/id must match format "uuid" (got "not-a-uuid")',
        expect.stringMatching(/^\/operation\/project_id must match pattern/),
        expect.stringMatching(/^\/operation\/status must be equal to one of the allowed values/),
        '/operation/failures_count must be integer (got "0")',
        '/operation/created_at must match format "date-time" (got "yesterday")',
        '/operation/total_duration_ms must be integer (got 1.5)'
      ])
    );
    expect(problems(validate.operationResponse, good)).toEqual([
      "/ must have required property 'operation'"
    ]);
  });

  it('rejects broken list, pagination, project and error bodies', () => {
    expect(problems(validate.listOperations, { operations: {} })).toEqual([
      '/operations must be array'
    ]);
    expect(problems(validate.listOperations, { operations: [], pagination: {} })).toEqual([
      "/pagination must have required property 'cursor'"
    ]);
    expect(problems(validate.pagination, { cursor: '' })).toEqual([
      '/cursor must NOT have fewer than 1 characters (got "")'
    ]);
    expect(
      problems(validate.listProjects, {
        projects: [{ id: 'shiny-wind-028834', pg_version: 13 }],
        applications: {},
        integrations: { 'shiny-wind-028834': ['slack'] }
      })
    ).toEqual(
      expect.arrayContaining([
        "/projects/0 must have required property 'owner_id'",
        '/projects/0/pg_version must be >= 14 (got 13)',
        expect.stringMatching(/^\/integrations\/shiny-wind-028834\/0 must be equal to one of/)
      ])
    );
    expect(problems(validate.generalError, { message: 7 })).toEqual([
      "/ must have required property 'code'",
      '/message must be string (got 7)'
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// List operations and Get operation
// ---------------------------------------------------------------------------------------------

describe('GET /projects/{project_id}/operations', () => {
  let all: Reply<ListOperationsBody>;

  beforeAll(async () => {
    all = await get<ListOperationsBody>(opsPath('limit=1000'));
  });

  it('answers 200 with JSON, the request id in X-Neon-Ret-Request-Id', () => {
    expect(all.status).toBe(200);
    expectApiHeaders(all);
    expect(all.headers.get('x-neon-ret-request-id')).toMatch(/^[0-9a-f]{32}$/);
    expect(all.headers.get('x-neon-ret-request-id')).toBe(sim.requests.at(-1)?.requestId);
  });

  it('gzips the body only for a client that accepts gzip', async () => {
    // fetch asks for gzip and inflates it; Node's plain http.get asks for nothing.
    expect(all.headers.get('content-encoding')).toBe('gzip');
    const plain = await new Promise<{ headers: IncomingHttpHeaders; text: string }>(
      (resolve, reject) =>
        httpGet(
          `${sim.url}${opsPath('limit=1')}`,
          { headers: { Authorization: `Bearer ${DEFAULT_KEY}` } },
          (res) => {
            let text = '';
            res.on('data', (chunk: Buffer) => (text += chunk.toString()));
            res.on('end', () => resolve({ headers: res.headers, text }));
          }
        ).on('error', reject)
    );
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['transfer-encoding']).toBe('chunked');
    expect(JSON.parse(plain.text).operations).toHaveLength(1);
  });

  it('matches OperationsResponse + PaginationResponse, with `pagination` present', () => {
    expectListValid(all.body);
    expect(problems(validate.pagination, all.body.pagination)).toEqual([]);
  });

  it('lists exactly the operations created so far', () => {
    expect(all.body.operations.map((op) => op.id).sort()).toEqual(
      visibleOps.map((op) => op.id).sort()
    );
    expect(all.body.operations.map((op) => op.id)).not.toContain(extraOps.future.id);
  });

  it('covers every status the document enumerates, failures and error texts included', () => {
    const statuses = doc.components.schemas.OperationStatus?.enum ?? [];
    expect(statuses.length).toBeGreaterThanOrEqual(8);
    expect([...new Set(all.body.operations.map((op) => op.status))].sort()).toEqual(
      [...statuses].sort()
    );
    const failed = all.body.operations.filter((op) => op.failures_count > 0 && op.error);
    expect(failed.map((op) => op.status).sort()).toEqual(['error', 'failed']);
    for (const op of failed) expect(op.retry_at).toEqual(expect.any(String));
    const extra = all.body.operations.find((op) => op.id === extraOps.cancelled.id);
    expect(extra?.future_field).toEqual({ nested: true });
  });

  it('leaves out total_duration_ms only where the scenario says so (a documented deviation)', () => {
    const missing = all.body.operations.filter((op) => op.total_duration_ms === undefined);
    expect(missing.map((op) => op.id)).toEqual([extraOps.noDuration.id]);
    // The strict document refuses it: `total_duration_ms` is required on Operation...
    const alone = { operations: missing, pagination: all.body.pagination };
    expect(problems(validate.listOperations, alone)).toEqual([`/operations/0 ${MISSING_DURATION}`]);
    // ...and nothing else is wrong with it.
    expect(problems(validate.relaxedListOperations, alone)).toEqual([]);
  });

  it('serves actions outside the enum as they are; only the enum refuses them', () => {
    for (const op of [extraOps.deleteTenant, extraOps.newer, extraOps.newest]) {
      expect(ACTIONS).not.toContain(op.action);
      const body = all.body.operations.find((o) => o.id === op.id);
      expect(body?.action).toBe(op.action);
      expect(problems(validate.operation, body)).toEqual(deviations(op, ''));
      expect(problems(validate.operation, body)).toHaveLength(1);
    }
  });

  it('sends total_duration_ms that is not wall time, as the service does', () => {
    const reported = new Map(all.body.operations.map((op) => [op.id, op.total_duration_ms]));
    for (const op of visibleOps.filter((o) => !o.omitDuration)) {
      const status = statusNow(op);
      const step = op.steps.filter((s) => s.at <= NOW).at(-1);
      const wall = (step?.at ?? op.created) - op.created;
      const value = reported.get(op.id);
      expect(Number.isInteger(value)).toBe(true);
      if (status === 'scheduling') expect(value).toBe(0);
      // Running: far less than the time since creation; done: less than the span it took.
      else if (status === 'running' || status === 'cancelling')
        expect(value).toBeLessThan(Math.max(50, (NOW - op.created) / 2));
      else expect(value).toBeLessThan(Math.max(1, wall));
    }
    // The running create_branch began 300 ms ago; its duration says otherwise.
    expect(reported.get(built.createBranch.id)).toBeLessThan(300);
    // The document's own example operation: what it reports for its timestamps' span.
    const example = doc.components.schemas.Operation?.example as {
      created_at: string;
      updated_at: string;
      total_duration_ms: number;
    };
    const span = Date.parse(example.updated_at) - Date.parse(example.created_at);
    const finished = operation(PROJECT, 'start_compute', [
      [0, 'running'],
      [span, 'finished']
    ]);
    expect(reportedDurationMs(finished, finished.steps[1] as StepScript)).toBe(
      example.total_duration_ms
    );
  });

  it.each([1, 3, 5, 7])('validates every page with limit=%i', async (limit) => {
    const pages = await walk(limit);
    for (const page of pages) {
      expect(page.status).toBe(200);
      expectListValid(page.body);
      expect(page.body.operations.length).toBeLessThanOrEqual(limit);
    }
  });
});

describe('GET /projects/{project_id}/operations/{operation_id}', () => {
  it.each(visibleOps.map((op, i) => [i, op.action, statusNow(op), op.id] as const))(
    'matches OperationResponse: #%i %s (%s)',
    async (_index, _action, _status, id) => {
      const reply = await get<{ operation: OperationBody }>(opPath(id));
      expect(reply.status).toBe(200);
      expectApiHeaders(reply);
      expect(problems(validate.operationResponse, reply.body).sort()).toEqual(
        deviations(byId.get(id), '/operation').sort()
      );
      expect(problems(validate.relaxedOperationResponse, reply.body)).toEqual([]);
      // The same body the list gives.
      const list = await get<ListOperationsBody>(opsPath('limit=1000'));
      expect(list.body.operations.find((op) => op.id === id)).toEqual(reply.body.operation);
    }
  );
});

// ---------------------------------------------------------------------------------------------
// Pagination
// ---------------------------------------------------------------------------------------------

describe('pagination of List operations', () => {
  const limit = 5;
  let pages: Array<Reply<ListOperationsBody>>;

  beforeAll(async () => {
    pages = await walk(limit);
  });

  it('uses the cursor format of the document', () => {
    const example = doc.components.schemas.Pagination?.example as { cursor: string };
    expect(example.cursor).toMatch(MICRO_CURSOR);
  });

  it('walks newest first without gaps or repeats, as one big page would', async () => {
    const walked = pages.flatMap((p) => p.body.operations);
    const single = await get<ListOperationsBody>(opsPath('limit=1000'));
    expect(walked.map((op) => op.id)).toEqual(single.body.operations.map((op) => op.id));
    expect(new Set(walked.map((op) => op.id)).size).toBe(visibleOps.length);
    const created = walked.map((op) => (byId.get(op.id) as OperationScript).created);
    expect(created).toEqual([...created].sort((a, b) => b - a));
    const createdAt = walked.map((op) => Date.parse(op.created_at));
    expect(createdAt).toEqual([...createdAt].sort((a, b) => b - a));
  });

  it('gives as cursor the created_at of the last operation, in microseconds', () => {
    const full = pages.filter((p) => p.body.operations.length > 0);
    expect(full.length).toBeGreaterThan(1);
    const cursors: string[] = [];
    for (const page of full) {
      const cursor = page.body.pagination?.cursor as string;
      expect(cursor).toMatch(MICRO_CURSOR);
      const last = page.body.operations.at(-1) as OperationBody;
      // created_at has whole seconds; the cursor is the same instant with its microseconds.
      expect(`${cursor.slice(0, 19)}Z`).toBe(last.created_at);
      cursors.push(cursor);
    }
    // Strictly older page after page (same-length ISO strings sort as instants).
    expect(cursors).toEqual([...new Set(cursors)].sort().reverse());
  });

  it('keeps a cursor on the last, short page', () => {
    expect(visibleOps.length % limit).not.toBe(0);
    const full = pages.filter((p) => p.body.operations.length > 0);
    const last = full.at(-1) as Reply<ListOperationsBody>;
    expect(last.body.operations).toHaveLength(visibleOps.length % limit);
    expect(problems(validate.pagination, last.body.pagination)).toEqual([]);
  });

  it('answers an empty page past the end', async () => {
    const full = pages.filter((p) => p.body.operations.length > 0);
    const cursor = full.at(-1)?.body.pagination?.cursor as string;
    const past = pages.at(-1) as Reply<ListOperationsBody>;
    expect(past).not.toBe(full.at(-1));
    expect(past.status).toBe(200);
    expect(past.body.operations).toEqual([]);
    expectListValid(past.body);
    // Asked again explicitly, with the last cursor.
    const again = await get<ListOperationsBody>(
      opsPath(new URLSearchParams({ limit: String(limit), cursor }).toString())
    );
    expect(again.status).toBe(200);
    expect(again.body.operations).toEqual([]);
    expectListValid(again.body);
  });
});

// ---------------------------------------------------------------------------------------------
// List projects
// ---------------------------------------------------------------------------------------------

describe('GET /projects', () => {
  it.each([
    ['a personal key', DEFAULT_KEY, '', [PROJECT]],
    [
      'a personal key with org_id',
      DEFAULT_KEY,
      `?org_id=${ORG}`,
      ['frosty-field-40572316', 'shiny-wind-028834', 'winter-boat-259881']
    ],
    [
      'an organization key',
      ORG_KEY,
      '',
      ['frosty-field-40572316', 'shiny-wind-028834', 'winter-boat-259881']
    ],
    [
      'an organization key with its org_id',
      ORG_KEY,
      `?org_id=${ORG}`,
      ['frosty-field-40572316', 'shiny-wind-028834', 'winter-boat-259881']
    ],
    ['a project key', PROJECT_KEY, '', [PROJECT]],
    ['a personal key without projects', LONELY_KEY, '', []]
  ])('matches ProjectsResponse for %s', async (_name, key, query, ids) => {
    const reply = await get<ListProjectsBody>(`/projects${query}`, key);
    expect(reply.status).toBe(200);
    expect(problems(validate.listProjects, reply.body)).toEqual([]);
    expect(problems(validate.projectsResponse, reply.body)).toEqual([]);
    expect(reply.body.projects.map((p) => p.id)).toEqual(ids);
    if (ids.length > 0) expect(problems(validate.pagination, reply.body.pagination)).toEqual([]);
    if (key === ORG_KEY || query) for (const p of reply.body.projects) expect(p.org_id).toBe(ORG);
  });

  it('validates every page with limit=1, and pages through all of them', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 10; i++) {
      const query = new URLSearchParams({ limit: '1', ...(cursor ? { cursor } : {}) });
      const reply = await get<ListProjectsBody>(`/projects?${query}`, ORG_KEY);
      expect(reply.status).toBe(200);
      expect(problems(validate.listProjects, reply.body)).toEqual([]);
      if (reply.body.projects.length === 0) break;
      expect(problems(validate.pagination, reply.body.pagination)).toEqual([]);
      seen.push(...reply.body.projects.map((p) => p.id));
      cursor = reply.body.pagination?.cursor;
    }
    expect(seen).toEqual(['frosty-field-40572316', 'shiny-wind-028834', 'winter-boat-259881']);
  });
});

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

describe('error responses', () => {
  afterAll(() => {
    sim.clearFaults();
    sim.setRateLimit(undefined);
  });

  /**
   * As recorded from the real service: `{code, message}` and nothing else in the body (no
   * `request_id`, although the document lists one), the id in `X-Neon-Ret-Request-Id` instead.
   */
  function expectGeneralError(reply: Reply<unknown>, status: number, code = ''): void {
    expect(reply.status).toBe(status);
    expectApiHeaders(reply);
    expect(problems(validate.generalError, reply.body)).toEqual([]);
    const body = reply.body as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['code', 'message']);
    expect(body.code).toBe(code);
    expect(String(body.message).length).toBeGreaterThan(0);
  }

  it.each([
    ['401 for a bad key', 401, opsPath(), 'neon-not-a-key'],
    ['401 for a bad key on /projects', 401, '/projects', 'neon-not-a-key'],
    ['404 for an unknown project', 404, opsPath('', 'no-such-project-00000000'), DEFAULT_KEY],
    ['404 for a project of another account', 404, opsPath(), LONELY_KEY],
    ['404 for an unknown operation', 404, opPath(randomUUID()), DEFAULT_KEY],
    ['404 for an operation not created yet', 404, opPath(extraOps.future.id), DEFAULT_KEY],
    ['400 for limit=5000', 400, opsPath('limit=5000'), DEFAULT_KEY],
    ['400 for limit=0', 400, opsPath('limit=0'), DEFAULT_KEY],
    ['400 for a malformed cursor', 400, opsPath('cursor=yesterday'), DEFAULT_KEY],
    ['400 for projects with limit=401', 400, '/projects?limit=401', DEFAULT_KEY],
    ['403 for an organization the key is not in', 403, '/projects?org_id=org-other-1', ORG_KEY]
  ])('matches GeneralError: %s', async (_name, status, path, key) => {
    const reply = await get(path, key);
    expectGeneralError(reply, status);
    const record = sim.requests.at(-1);
    expect(record?.status).toBe(status);
    expect(reply.headers.get('x-neon-ret-request-id')).toBe(record?.requestId);
  });

  it('echoes an X-Request-ID the client chose in X-Neon-Ret-Request-Id, not in the body', async () => {
    const requestId = `req-${randomUUID()}`;
    const reply = await get(opPath(randomUUID()), DEFAULT_KEY, { 'X-Request-ID': requestId });
    expectGeneralError(reply, 404);
    expect(reply.headers.get('x-neon-ret-request-id')).toBe(requestId);
    expect(JSON.stringify(reply.body)).not.toContain(requestId);
  });

  it('passes a non-empty code through (PROJECTS_LIMIT_EXCEEDED)', async () => {
    sim.inject(
      { kind: 'status', status: 422, code: 'PROJECTS_LIMIT_EXCEEDED', message: 'limit reached' },
      { times: 1 }
    );
    const reply = await get('/projects');
    expectGeneralError(reply, 422, 'PROJECTS_LIMIT_EXCEEDED');
    expect(reply.body).toEqual({ code: 'PROJECTS_LIMIT_EXCEEDED', message: 'limit reached' });
  });

  it('matches GeneralError: 429 injected, with Retry-After', async () => {
    sim.inject(
      { kind: 'status', status: 429, retryAfter: '3' },
      { times: 1, match: '/operations' }
    );
    const reply = await get(opsPath('limit=1'));
    expectGeneralError(reply, 429);
    expect(reply.headers.get('retry-after')).toBe('3');
    // One request only: the next one goes through.
    expect((await get(opsPath('limit=1'))).status).toBe(200);
  });

  it('matches GeneralError: 429 from the rate limit, without Retry-After unless asked', async () => {
    sim.setRateLimit({ perRoutePerSecond: 1 });
    expect((await get('/projects')).status).toBe(200);
    const bare = await get('/projects');
    expectGeneralError(bare, 429);
    expect(bare.headers.get('retry-after')).toBeNull();
    sim.setRateLimit({ perRoutePerSecond: 1, retryAfter: true });
    expect((await get('/projects')).status).toBe(200);
    const told = await get('/projects');
    expectGeneralError(told, 429);
    expect(told.headers.get('retry-after')).toBe('1');
    sim.setRateLimit(undefined);
  });
});

// ---------------------------------------------------------------------------------------------
// Pages from the edge
// ---------------------------------------------------------------------------------------------

describe('error pages from the edge (Cloudflare)', () => {
  afterAll(() => sim.clearFaults());

  it.each([502, 520, 521, 522, 523, 524])(
    '%i is an HTML page, not a GeneralError',
    async (status) => {
      sim.inject({ kind: 'html', status }, { times: 1 });
      const res = await fetch(`${sim.url}${opsPath()}`, {
        headers: { Authorization: `Bearer ${DEFAULT_KEY}` }
      });
      const text = await res.text();
      expect(res.status).toBe(status);
      expect(res.headers.get('server')).toBe('cloudflare');
      expect(res.headers.get('cf-ray')).toMatch(/^[0-9a-f]{16}-[A-Z]{3}$/);
      expect(res.headers.get('content-type')).toBe('text/html; charset=UTF-8');
      // The request never reached the API: no request id.
      expect(res.headers.get('x-neon-ret-request-id')).toBeNull();
      expect(sim.requests.at(-1)?.requestId).toBeUndefined();
      expect(text).toMatch(new RegExp(`<title>[^<]*${status}: [A-Z]`));
      expect(() => JSON.parse(text)).toThrow();
    }
  );
});

// ---------------------------------------------------------------------------------------------
// Mutations, and the branch and endpoint reads that follow them
// ---------------------------------------------------------------------------------------------

/** The 2xx schema the document gives an operation, through a `$ref` to a shared response if any. */
function responseValidator(
  path: string,
  method: string,
  status: number,
  against = strict
): ValidateFunction {
  const operation = (doc.paths[path] as Record<string, { responses: Record<string, unknown> }>)[
    method
  ];
  const response = operation?.responses[String(status)] as { $ref?: string } | undefined;
  // In a URI fragment, the braces of a path template must be percent-encoded.
  const base =
    response?.$ref ??
    `#/paths/${segment(path).replace(/\{/g, '%7B').replace(/\}/g, '%7D')}/${method}/responses/${status}`;
  return against(`${base}/content/${segment('application/json')}/schema`);
}

/** A request to `to` with the default key, its answer read (JSON; `{}` when empty). */
async function send<T = Record<string, unknown>>(
  to: Simulator,
  method: string,
  path: string,
  body?: unknown
): Promise<Reply<T>> {
  const res = await fetch(`${to.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${DEFAULT_KEY}`, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : {}) as T };
}

/** The answer has this status and the (newer) document's shape for it on this route. */
function expectAnswer(reply: Reply<unknown>, path: string, method: string, status: number): void {
  expect(reply.status).toBe(status);
  expectApiHeaders(reply);
  expect(problems(responseValidator(path, method, status, newer), reply.body)).toEqual([]);
}

describe('mutations and the reads after them', () => {
  const PROJECT_M = 'shiny-wind-028834';
  let clockMs = 0;
  let mutable: Simulator;

  beforeAll(async () => {
    mutable = await startSimulator({
      scenario: {
        keys: { [DEFAULT_KEY]: { kind: 'personal', user: 'user-1' } },
        projects: [project(PROJECT_M, { owner_id: 'user-1' })],
        operations: []
      },
      clock: () => clockMs,
      epoch: EPOCH
    });
  });
  afterAll(async () => {
    await mutable?.close();
  });

  const call = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) =>
    send<T>(mutable, method, path, body);

  interface Created {
    branch: { id: string };
    endpoints: Array<{
      id: string;
      host: string;
      branch_id: string;
      group: { computes: Array<Record<string, string>> };
    }>;
    operations: OperationBody[];
    connection_uris?: Array<{ connection_uri: string }>;
  }
  const base = `/projects/${PROJECT_M}`;
  const expectValid = (v: ValidateFunction, reply: Reply<unknown>): void =>
    expect(problems(v, reply.body)).toEqual([]);
  const expectError = (reply: Reply<unknown>, status: number): void => {
    expect(reply.status).toBe(status);
    expectApiHeaders(reply);
    expectValid(validate.generalError, reply);
  };
  /** Moves the clock past every operation started so far. */
  const idle = (): void => {
    clockMs += 60_000;
  };

  let created: Created;

  /** A creation's answer holds `epc_sync`, an action the document's enum lacks (see `newer`). */
  const createdBranch = responseValidator('/projects/{project_id}/branches', 'post', 201, newer);

  it('POST /branches with an endpoint: 201 as CreatedBranch, URIs with the password', async () => {
    const reply = await call<Created>('POST', `${base}/branches`, {
      branch: { name: 'preview' },
      endpoints: [{ type: 'read_write' }]
    });
    expect(reply.status).toBe(201);
    expectApiHeaders(reply);
    expectValid(createdBranch, reply);
    created = reply.body;
    const endpointId = created.endpoints[0]?.id;
    // As the service answers in 2026: the protection settings, and a project-level sync.
    expect(
      created.operations.map((op) => [op.action, op.status, op.branch_id, op.endpoint_id])
    ).toEqual([
      ['create_branch', 'running', created.branch.id, undefined],
      ['timeline_update_protected_config', 'scheduling', created.branch.id, undefined],
      ['start_compute', 'scheduling', created.branch.id, endpointId],
      ['epc_sync', 'scheduling', undefined, undefined]
    ]);
    const [endpoint] = created.endpoints;
    expect(endpoint?.host).toMatch(/^ep-[a-z]+-[a-z]+-\d{6}\.us-east-2\.aws\.neon\.tech$/);
    const body = reply.body as unknown as {
      roles: Array<{ password: string }>;
      connection_uris: Array<{
        connection_uri: string;
        connection_parameters: { pooler_host: string };
      }>;
    };
    const password = body.roles[0]?.password as string;
    expect(body.connection_uris[0]?.connection_uri).toContain(`:${password}@${endpoint?.host}/`);
    expect(body.connection_uris[0]?.connection_parameters.pooler_host).toBe(
      endpoint?.host.replace('.', '-pooler.')
    );
  });

  it('423 as GeneralError while those operations run, for every mutation; reads still answer', async () => {
    const endpointId = created.endpoints[0]?.id as string;
    for (const [method, path, body] of [
      ['POST', `${base}/branches`, {}],
      ['DELETE', `${base}/branches/${created.branch.id}`, undefined],
      ['POST', `${base}/endpoints/${endpointId}/suspend`, undefined]
    ] as const) {
      const reply = await call(method, path, body);
      expectError(reply, 423);
      expect(reply.body).toEqual({ code: 'LOCKED', message: expect.stringContaining('running') });
    }
    expect((await call('GET', `${base}/endpoints`)).status).toBe(200);
  });

  it('GET endpoints (project, branch, one) as EndpointsResponse and EndpointResponse', async () => {
    idle();
    const all = await call<{ endpoints: Array<{ id: string; branch_id: string }> }>(
      'GET',
      `${base}/endpoints`
    );
    expectValid(responseValidator('/projects/{project_id}/endpoints', 'get', 200), all);
    expect(all.body.endpoints.map((e) => e.branch_id)).toContain(created.branch.id);
    const ofBranch = await call('GET', `${base}/branches/${created.branch.id}/endpoints`);
    expectValid(
      responseValidator('/projects/{project_id}/branches/{branch_id}/endpoints', 'get', 200),
      ofBranch
    );
    const one = await call<{ endpoint: { current_state: string } }>(
      'GET',
      `${base}/endpoints/${created.endpoints[0]?.id}`
    );
    expectValid(
      responseValidator('/projects/{project_id}/endpoints/{endpoint_id}', 'get', 200),
      one
    );
    expect(one.body.endpoint.current_state).toBe('active');
  });

  it("answers each endpoint's compute group as the service does in 2026 (the document has none yet)", async () => {
    // When the document gains the compute group, check the simulator's shape against it instead.
    const documented = doc.components.schemas.Endpoint as { properties?: Record<string, unknown> };
    expect(Object.keys(documented.properties ?? {})).not.toContain('group');
    const [first, domain] = [created.endpoints[0]?.id, 'c-5.us-east-2.aws.neon.tech'];
    expect(created.endpoints[0]?.group.computes).toEqual([
      {
        binding_id: expect.stringMatching(/^[a-z]{3}$/),
        role: 'primary',
        compute_host: expect.stringMatching(new RegExp(`^${first}-[a-z]{3}\\.${domain}$`)),
        compute_pooled_host: expect.stringMatching(
          new RegExp(`^${first}-[a-z]{3}-pooler\\.${domain}$`)
        )
      }
    ]);
    const [compute] = created.endpoints[0]?.group.computes ?? [];
    expect(compute?.compute_host).toBe(`${first}-${compute?.binding_id}.${domain}`);
  });

  it('GET branches and one branch', async () => {
    const list = await call('GET', `${base}/branches`);
    expectValid(responseValidator('/projects/{project_id}/branches', 'get', 200), list);
    const one = await call('GET', `${base}/branches/${created.branch.id}`);
    expectValid(responseValidator('/projects/{project_id}/branches/{branch_id}', 'get', 200), one);
  });

  it('POST /branches without endpoints: 201, no start_compute, no connection URIs', async () => {
    idle();
    const reply = await call<Created>('POST', `${base}/branches`, { branch: {} });
    expectValid(createdBranch, reply);
    expect(reply.body.operations.map((op) => op.action)).toEqual([
      'create_branch',
      'timeline_update_protected_config',
      'epc_sync'
    ]);
    expect(reply.body.endpoints).toEqual([]);
    expect(reply.body.connection_uris).toBeUndefined();
  });

  it('start and suspend an endpoint: 200 as EndpointOperations', async () => {
    const id = created.endpoints[0]?.id as string;
    for (const [action, expected] of [
      ['suspend', 'suspend_compute'],
      ['start', 'start_compute']
    ] as const) {
      idle();
      const reply = await call<{ operations: OperationBody[] }>(
        'POST',
        `${base}/endpoints/${id}/${action}`
      );
      expect(reply.status).toBe(200);
      expectValid(
        responseValidator(`/projects/{project_id}/endpoints/{endpoint_id}/${action}`, 'post', 200),
        reply
      );
      expect(reply.body.operations.map((op) => op.action)).toEqual([expected]);
    }
  });

  it('restore (reset to the parent): 200 as BranchOperations', async () => {
    idle();
    const parent = (
      await call<{ branch: { parent_id: string } }>('GET', `${base}/branches/${created.branch.id}`)
    ).body.branch.parent_id;
    const reply = await call('POST', `${base}/branches/${created.branch.id}/restore`, {
      source_branch_id: parent
    });
    expect(reply.status).toBe(200);
    expectValid(
      responseValidator('/projects/{project_id}/branches/{branch_id}/restore', 'post', 200),
      reply
    );
  });

  it('delete a branch: 200 as BranchOperations; then gone (404 on reads, 204 on delete)', async () => {
    idle();
    const reply = await call<{ operations: OperationBody[] }>(
      'DELETE',
      `${base}/branches/${created.branch.id}`
    );
    expect(reply.status).toBe(200);
    expectValid(
      responseValidator('/projects/{project_id}/branches/{branch_id}', 'delete', 200),
      reply
    );
    expect(reply.body.operations.map((op) => op.action)).toEqual([
      'suspend_compute',
      'delete_timeline'
    ]);
    expectError(await call('GET', `${base}/branches/${created.branch.id}`), 404);
    expectError(await call('GET', `${base}/branches/${created.branch.id}/endpoints`), 404);
    expectError(await call('GET', `${base}/endpoints/${created.endpoints[0]?.id}`), 404);
    idle();
    expect((await call('DELETE', `${base}/branches/${created.branch.id}`)).status).toBe(204);
  });

  it.each([
    ['an unknown project', 'POST', '/projects/no-such-project-00000000/branches'],
    ['an unknown parent', 'POST', `/projects/shiny-wind-028834/branches`],
    ['an unknown endpoint', 'POST', '/projects/shiny-wind-028834/endpoints/ep-none-000000/start'],
    ['an unknown branch to restore', 'POST', '/projects/shiny-wind-028834/branches/br-none/restore']
  ])('404 as GeneralError for %s', async (name, method, path) => {
    idle();
    const body = name === 'an unknown parent' ? { branch: { parent_id: 'br-none' } } : {};
    expectError(await call(method, path, body), 404);
  });
});

describe('branches by name: 409, search, one branch, connection_uri, roles, compare_schema, deletion', () => {
  const PROJECT_B = 'proud-leaf-12345678';
  const base = `/projects/${PROJECT_B}`;
  let clockMs = 0;
  let named: Simulator;
  const seeded = seededBranches(PROJECT_B, [
    { name: 'main' },
    { name: 'production', protected: true },
    { name: 'preview/pr-1' },
    { name: 'preview/pr-12' },
    { name: 'preview/PR-120-child', parent: 'preview/pr-12' }
  ]);
  const idOf = (name: string): string => seeded.branches.find((b) => b.name === name)?.id as string;

  beforeAll(async () => {
    named = await startSimulator({
      scenario: {
        keys: { [DEFAULT_KEY]: { kind: 'personal', user: 'user-1' } },
        projects: [project(PROJECT_B, { owner_id: 'user-1' })],
        operations: [],
        ...seeded,
        schemaDiffs: { 'preview/pr-12': DROP_COLUMN_AND_TABLE }
      },
      clock: () => clockMs,
      epoch: EPOCH
    });
  });
  afterAll(async () => {
    await named?.close();
  });

  const call = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) =>
    send<T>(named, method, path, body);
  const expectError = (reply: Reply<unknown>, status: number, message: string | RegExp) => {
    expect(reply.status).toBe(status);
    expectApiHeaders(reply);
    expect(problems(validate.generalError, reply.body)).toEqual([]);
    expect(reply.body).toEqual({ code: '', message: expect.stringMatching(message) });
  };
  /** Moves the clock past every operation started so far. */
  const idle = (): void => {
    clockMs += 60_000;
  };
  interface BranchBody {
    id: string;
    name: string;
    default: boolean;
    protected: boolean;
    parent_id?: string;
    expires_at?: string;
    created_at: string;
  }
  type ListBody = {
    branches: BranchBody[];
    pagination: { next?: string; sort_by: string; sort_order: string };
  };

  it("POST with a name that exists: 409 as GeneralError, the service's message", async () => {
    const reply = await call('POST', `${base}/branches`, { branch: { name: 'preview/pr-1' } });
    expectError(reply, 409, /^branch with the provided name "preview\/pr-1" already exists$/);
    expect(named.branches(PROJECT_B).filter((b) => b.name === 'preview/pr-1')).toHaveLength(1);
  });

  it('POST with expires_at and protected: 201 as CreatedBranch, both returned, created_at on the clock', async () => {
    idle();
    const expires = new Date(EPOCH + clockMs + 7 * 86_400_000).toISOString().slice(0, 19) + 'Z';
    const reply = await call<{ branch: BranchBody }>('POST', `${base}/branches`, {
      branch: { name: 'preview/pr-7', parent_id: idOf('production'), expires_at: expires },
      endpoints: [{ type: 'read_write' }]
    });
    expectAnswer(reply, '/projects/{project_id}/branches', 'post', 201);
    expect(reply.body.branch).toMatchObject({
      name: 'preview/pr-7',
      parent_id: idOf('production'),
      expires_at: expires,
      protected: false,
      default: false,
      created_at: new Date(EPOCH + clockMs).toISOString().slice(0, 19) + 'Z'
    });
  });

  it.each([
    ['expires_at in the past', { name: 'x-1', expires_at: '2020-01-01T00:00:00Z' }, /future/],
    ['expires_at not RFC 3339', { name: 'x-2', expires_at: 'in 7 days' }, /expires_at/],
    ['an empty name', { name: '' }, /branch\.name/],
    ['protected not a boolean', { name: 'x-3', protected: 'yes' }, /protected/]
  ])('POST with %s: 400 as GeneralError, nothing created', async (_, branch, message) => {
    idle();
    const before = named.branches(PROJECT_B).length;
    expectError(await call('POST', `${base}/branches`, { branch }), 400, message);
    expect(named.branches(PROJECT_B)).toHaveLength(before);
  });

  it('POST with an unknown parent: 404 as GeneralError', async () => {
    expectError(
      await call('POST', `${base}/branches`, { branch: { name: 'x', parent_id: 'br-none' } }),
      404,
      /branch not found: br-none/
    );
  });

  it('POST while the project is busy with a new name: 423 (a taken name still 409)', async () => {
    idle();
    expect((await call('POST', `${base}/branches`, { branch: { name: 'busy-1' } })).status).toBe(
      201
    );
    const locked = await call('POST', `${base}/branches`, { branch: { name: 'busy-2' } });
    expect(locked.status).toBe(423);
    expect(problems(validate.generalError, locked.body)).toEqual([]);
    expectError(
      await call('POST', `${base}/branches`, { branch: { name: 'busy-1' } }),
      409,
      /already exists/
    );
  });

  it('GET ?search= matches part of a name or an id, whatever the case, as the list shape', async () => {
    idle();
    const names = async (term: string): Promise<string[]> => {
      const reply = await call<ListBody>(
        'GET',
        `${base}/branches?search=${encodeURIComponent(term)}`
      );
      expectAnswer(reply, '/projects/{project_id}/branches', 'get', 200);
      return reply.body.branches.map((b) => b.name).sort();
    };
    expect(await names('preview/pr-1')).toEqual([
      'preview/PR-120-child',
      'preview/pr-1',
      'preview/pr-12'
    ]);
    expect(await names('PR-12')).toEqual(['preview/PR-120-child', 'preview/pr-12']);
    const id = idOf('production');
    expect(await names(id.slice(3, 14).toUpperCase())).toEqual(['production']);
    expect(await names('no-such-branch')).toEqual([]);
  });

  it('GET with limit walks every branch once by the cursor, `pagination` as CursorPagination', async () => {
    const all = (await call<ListBody>('GET', `${base}/branches?sort_by=name&sort_order=asc`)).body;
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 20; i++) {
      const query = new URLSearchParams({
        limit: '2',
        sort_by: 'name',
        sort_order: 'asc',
        ...(cursor ? { cursor } : {})
      });
      const page = await call<ListBody>('GET', `${base}/branches?${query}`);
      expectAnswer(page, '/projects/{project_id}/branches', 'get', 200);
      expect(problems(strict(SCHEMA('CursorPagination')), page.body.pagination)).toEqual([]);
      expect(page.body.pagination).toMatchObject({ sort_by: 'name', sort_order: 'asc' });
      seen.push(...page.body.branches.map((b) => b.name));
      cursor = page.body.pagination.next;
      if (!cursor) break;
      expect(page.body.branches).toHaveLength(2);
    }
    expect(seen).toEqual(all.branches.map((b) => b.name));
    expect(seen).toEqual([...seen].sort());
    expect(new Set(seen).size).toBe(named.branches(PROJECT_B).length);
    expectError(await call('GET', `${base}/branches?cursor=nonsense`), 400, /cursor/);
    expectError(await call('GET', `${base}/branches?limit=0`), 400, /limit/);
  });

  it('GET one branch: 200 with default, protected, parent_id and expires_at', async () => {
    const one = await call<{ branch: BranchBody }>('GET', `${base}/branches/${idOf('production')}`);
    expectAnswer(one, '/projects/{project_id}/branches/{branch_id}', 'get', 200);
    expect(one.body.branch).toMatchObject({
      name: 'production',
      default: false,
      protected: true,
      parent_id: idOf('main')
    });
    const main = await call<{ branch: BranchBody }>('GET', `${base}/branches/${idOf('main')}`);
    expect(main.body.branch).toMatchObject({ default: true, protected: false });
    expect(main.body.branch.parent_id).toBeUndefined();
    expectError(await call('GET', `${base}/branches/br-none-0000`), 404, /branch not found/);
  });

  it('GET connection_uri: 200 as ConnectionURIResponse; pooled adds -pooler; 400 and 404', async () => {
    const path = '/projects/{project_id}/connection_uri';
    const ask = (query: Record<string, string>) =>
      call<{ uri: string }>('GET', `${base}/connection_uri?${new URLSearchParams(query)}`);
    const target = { database_name: 'neondb', role_name: 'neondb_owner' };
    const direct = await ask({ ...target, branch_id: idOf('preview/pr-12') });
    expectAnswer(direct, path, 'get', 200);
    const url = new URL(direct.body.uri);
    expect(url.hostname).toBe(
      `${idOf('preview/pr-12').replace(/^br-/, 'ep-')}.us-east-2.aws.neon.tech`
    );
    expect(url.username).toBe('neondb_owner');
    expect(url.pathname).toBe('/neondb');
    const pooled = await ask({ ...target, branch_id: idOf('preview/pr-12'), pooled: 'true' });
    expectAnswer(pooled, path, 'get', 200);
    expect(new URL(pooled.body.uri).hostname).toBe(url.hostname.replace('.', '-pooler.'));
    // The same password every time: the branch's role has one.
    expect(new URL(pooled.body.uri).password).toBe(url.password);
    const byDefault = await ask(target);
    expect(new URL(byDefault.body.uri).hostname).toMatch(/^ep-main-/);
    const withEndpoint = await ask({
      ...target,
      branch_id: idOf('main'),
      endpoint_id: idOf('main').replace(/^br-/, 'ep-')
    });
    expect(withEndpoint.body.uri).toBe(byDefault.body.uri);
    expectError(await ask({ database_name: 'neondb' }), 400, /role_name/);
    expectError(await ask({ role_name: 'neondb_owner' }), 400, /database_name/);
    expectError(await ask({ ...target, branch_id: 'br-none-0000' }), 404, /branch not found/);
    expectError(await ask({ ...target, endpoint_id: 'ep-none-0000' }), 404, /endpoint not found/);
    expectError(await ask({ ...target, role_name: 'nobody' }), 404, /role not found/);
  });

  it("GET a branch's roles and databases: the owner role and its database", async () => {
    const branchPath = `${base}/branches/${idOf('preview/pr-1')}`;
    const roles = await call<{ roles: Array<{ name: string; password?: string }> }>(
      'GET',
      `${branchPath}/roles`
    );
    expectAnswer(roles, '/projects/{project_id}/branches/{branch_id}/roles', 'get', 200);
    expect(roles.body.roles.map((r) => [r.name, r.password])).toEqual([
      ['neondb_owner', undefined]
    ]);
    const databases = await call<{ databases: Array<{ name: string; owner_name: string }> }>(
      'GET',
      `${branchPath}/databases`
    );
    expectAnswer(databases, '/projects/{project_id}/branches/{branch_id}/databases', 'get', 200);
    expect(databases.body.databases).toMatchObject([
      { name: 'neondb', owner_name: 'neondb_owner' }
    ]);
    expectError(await call('GET', `${base}/branches/br-none-0000/roles`), 404, /branch not found/);
  });

  it('GET one role, its password and one database, as create-branch-action reads them', async () => {
    const branchPath = `${base}/branches/${idOf('preview/pr-12')}`;
    const template = '/projects/{project_id}/branches/{branch_id}';
    const role = await call('GET', `${branchPath}/roles/neondb_owner`);
    expectAnswer(role, `${template}/roles/{role_name}`, 'get', 200);
    const secret = await call<{ password: string }>(
      'GET',
      `${branchPath}/roles/neondb_owner/reveal_password`
    );
    expectAnswer(secret, `${template}/roles/{role_name}/reveal_password`, 'get', 200);
    const uri = await call<{ uri: string }>(
      'GET',
      `${base}/connection_uri?branch_id=${idOf('preview/pr-12')}&database_name=neondb&role_name=neondb_owner`
    );
    expect(new URL(uri.body.uri).password).toBe(secret.body.password);
    const database = await call('GET', `${branchPath}/databases/neondb`);
    expectAnswer(database, `${template}/databases/{database_name}`, 'get', 200);
    expectError(await call('GET', `${branchPath}/roles/nobody`), 404, /role not found/);
    expectError(await call('GET', `${branchPath}/databases/other`), 404, /database not found/);
  });

  it("GET compare_schema: 200 as BranchSchemaCompareResponse, the scenario's diff or none; 400 and 404", async () => {
    const path = (name: string, query: string) =>
      `${base}/branches/${idOf(name)}/compare_schema?${query}`;
    const main = `base_branch_id=${idOf('main')}`;
    const migrated = await call<{ diff: string }>(
      'GET',
      path('preview/pr-12', `${main}&db_name=neondb`)
    );
    expectAnswer(
      migrated,
      '/projects/{project_id}/branches/{branch_id}/compare_schema',
      'get',
      200
    );
    expect(migrated.body).toEqual({ diff: DROP_COLUMN_AND_TABLE });
    // Without base_branch_id, against the branch's parent.
    const byParent = await call<{ diff: string }>('GET', path('preview/pr-12', 'db_name=neondb'));
    expect(byParent.body).toEqual({ diff: DROP_COLUMN_AND_TABLE });
    const same = await call('GET', path('preview/pr-1', `${main}&db_name=neondb`));
    expectAnswer(same, '/projects/{project_id}/branches/{branch_id}/compare_schema', 'get', 200);
    expect(same.body).toEqual({ diff: '' });
    expectError(await call('GET', path('preview/pr-1', main)), 400, /db_name is required/);
    expectError(await call('GET', path('main', 'db_name=neondb')), 400, /base_branch_id/);
    const otherDb = await call('GET', path('preview/pr-1', `${main}&db_name=other`));
    expectError(otherDb, 404, /database not found: other/);
    const noBase = await call(
      'GET',
      path('preview/pr-1', 'base_branch_id=br-none-0000&db_name=neondb')
    );
    expectError(noBase, 404, /branch not found: br-none-0000/);
    const noBranch = await call(
      'GET',
      `${base}/branches/br-none-0000/compare_schema?db_name=neondb`
    );
    expectError(noBranch, 404, /branch not found/);
  });

  it.each([
    ['the default branch', 'main', /default branch/],
    ['a protected branch', 'production', /protected/],
    ['a branch with a child', 'preview/pr-12', /child branches/]
  ])(
    'DELETE %s: 400 as GeneralError, before any lock, nothing deleted',
    async (_, name, message) => {
      idle();
      expectError(await call('DELETE', `${base}/branches/${idOf(name)}`), 400, message);
      expect(named.branches(PROJECT_B).map((b) => b.name)).toContain(name);
    }
  );

  it('DELETE a preview branch: 200 with its operations; gone for reads; the name free again', async () => {
    idle();
    const id = idOf('preview/pr-1');
    const reply = await call<{ operations: OperationBody[] }>('DELETE', `${base}/branches/${id}`);
    expectAnswer(reply, '/projects/{project_id}/branches/{branch_id}', 'delete', 200);
    expect(reply.body.operations.map((op) => op.action)).toEqual(['delete_timeline']);
    expectError(await call('GET', `${base}/branches/${id}`), 404, /branch not found/);
    const found = await call<ListBody>('GET', `${base}/branches?search=preview%2Fpr-1`);
    expect(found.body.branches.map((b) => b.name)).not.toContain('preview/pr-1');
    idle();
    expect((await call('DELETE', `${base}/branches/${id}`)).status).toBe(204);
    const again = await call('POST', `${base}/branches`, { branch: { name: 'preview/pr-1' } });
    expectAnswer(again, '/projects/{project_id}/branches', 'post', 201);
  });
});

/** The schema of the JSON body the document asks of a request. */
function requestValidator(path: string, method: string): ValidateFunction {
  const template = segment(path).replace(/\{/g, '%7B').replace(/\}/g, '%7D');
  return strict(
    `#/paths/${template}/${method}/requestBody/content/${segment('application/json')}/schema`
  );
}

describe("a branch's later life: project details, annotations, PATCH, restore, the branch limit", () => {
  const PROJECT_L = 'late-life-12345678';
  const FREE = 'free-plan-87654321';
  const base = `/projects/${PROJECT_L}`;
  let clockMs = 0;
  let later: Simulator;
  const seeded = seededBranches(PROJECT_L, [
    { name: 'main' },
    { name: 'preview/pr-3', annotations: { 'github-pr-number': '3' } },
    { name: 'preview/pr-4' },
    { name: 'preview/pr-4-child', parent: 'preview/pr-4' }
  ]);
  // Ten branches on a Free plan: its limit.
  const full = seededBranches(FREE, [
    { name: 'main' },
    ...Array.from({ length: 9 }, (_, i) => ({ name: `preview/pr-${i + 1}` }))
  ]);
  const idOf = (name: string): string => seeded.branches.find((b) => b.name === name)?.id as string;

  beforeAll(async () => {
    later = await startSimulator({
      scenario: {
        keys: { [DEFAULT_KEY]: { kind: 'personal', user: 'user-1' } },
        projects: [
          project(PROJECT_L, { owner_id: 'user-1' }),
          project(FREE, { owner_id: 'user-1', plan: FREE_PLAN })
        ],
        operations: [],
        branches: [...seeded.branches, ...full.branches],
        endpoints: [...seeded.endpoints, ...full.endpoints]
      },
      clock: () => clockMs,
      epoch: EPOCH
    });
  });
  afterAll(async () => {
    await later?.close();
  });

  const call = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) =>
    send<T>(later, method, path, body);
  const expectError = (reply: Reply<unknown>, status: number, message: string | RegExp) => {
    expect(reply.status).toBe(status);
    expectApiHeaders(reply);
    expect(problems(validate.generalError, reply.body)).toEqual([]);
    expect((reply.body as { message: string }).message).toMatch(message);
  };
  /** The body is one the document allows on that route: the tests ask only what a client may. */
  const allowed = (path: string, method: string, body: unknown): unknown => {
    expect(problems(requestValidator(path, method), body)).toEqual([]);
    return body;
  };
  const idle = (): void => {
    clockMs += 60_000;
  };
  const isoAt = (ms: number): string => new Date(EPOCH + ms).toISOString().slice(0, 19) + 'Z';
  const ONE = '/projects/{project_id}/branches/{branch_id}';
  const RESTORE = `${ONE}/restore`;
  interface BranchBody {
    id: string;
    name: string;
    parent_id?: string;
    expires_at?: string;
    last_reset_at?: string;
    current_state: string;
    protected: boolean;
  }
  interface BranchOps {
    branch: BranchBody;
    operations: OperationBody[];
  }

  it("GET /projects/{project_id}: 200 as ProjectResponse, the owner's branches_limit by plan", async () => {
    const scale = await call<{ project: { id: string; owner: Record<string, unknown> } }>(
      'GET',
      base
    );
    expectAnswer(scale, '/projects/{project_id}', 'get', 200);
    expect(scale.body.project.id).toBe(PROJECT_L);
    expect(scale.body.project.owner).toMatchObject({
      branches_limit: 25,
      subscription_type: 'scale_v3'
    });
    const free = await call<{ project: { owner: Record<string, unknown> } }>(
      'GET',
      `/projects/${FREE}`
    );
    expectAnswer(free, '/projects/{project_id}', 'get', 200);
    expect(free.body.project.owner).toMatchObject({ branches_limit: 10 });
    expectError(await call('GET', '/projects/no-such-project-0000'), 404, /project not found/);
  });

  it('POST with annotation_value: 201; the list answers `annotations` keyed by branch id; one branch its own', async () => {
    idle();
    const annotation = { 'github-pr-number': '12', 'github-commit-repo': 'octo-org/octo-repo' };
    const body = allowed('/projects/{project_id}/branches', 'post', {
      branch: { name: 'preview/pr-12' },
      annotation_value: annotation
    });
    const created = await call<BranchOps>('POST', `${base}/branches`, body);
    expectAnswer(created, '/projects/{project_id}/branches', 'post', 201);
    const id = created.body.branch.id;
    const list = await call<{ annotations: Record<string, { value: unknown; object: unknown }> }>(
      'GET',
      `${base}/branches`
    );
    expectAnswer(list, '/projects/{project_id}/branches', 'get', 200);
    expect(Object.keys(list.body.annotations).sort()).toEqual([id, idOf('preview/pr-3')].sort());
    expect(list.body.annotations[id]).toMatchObject({
      object: { type: 'console/branch', id },
      value: annotation
    });
    // A page holds the annotations of its own branches only.
    const page = await call<{ branches: BranchBody[]; annotations: Record<string, unknown> }>(
      'GET',
      `${base}/branches?search=${encodeURIComponent('preview/pr-4')}`
    );
    expect(page.body.branches.length).toBeGreaterThan(0);
    expect(page.body.annotations).toEqual({});
    const one = await call<{ annotation: { value: unknown } }>('GET', `${base}/branches/${id}`);
    expectAnswer(one, ONE, 'get', 200);
    expect(one.body.annotation.value).toEqual(annotation);
  });

  it.each([
    ['an array', ['12']],
    ['a number value', { 'github-pr-number': 12 }],
    ['51 keys', Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']))]
  ])('POST with annotation_value %s: 400 as GeneralError, nothing created', async (_, value) => {
    idle();
    const before = later.branches(PROJECT_L).length;
    const reply = await call('POST', `${base}/branches`, {
      branch: { name: 'preview/bad' },
      annotation_value: value
    });
    expectError(reply, 400, /annotation_value/);
    expect(later.branches(PROJECT_L)).toHaveLength(before);
  });

  it('PATCH expires_at: 200 as BranchOperations, no operation, answered even while the project is busy', async () => {
    idle();
    const id = idOf('preview/pr-3');
    // Another operation holds the project: a new expiry schedules no work, so it is not refused.
    expect(
      (
        await call('POST', `${base}/branches/${idOf('preview/pr-4-child')}/restore`, {
          source_branch_id: idOf('preview/pr-4')
        })
      ).status
    ).toBe(200);
    const expires = isoAt(clockMs + 7 * 86_400_000);
    const body = allowed(ONE, 'patch', { branch: { expires_at: expires } });
    const reply = await call<BranchOps>('PATCH', `${base}/branches/${id}`, body);
    expectAnswer(reply, ONE, 'patch', 200);
    expect(reply.body.operations).toEqual([]);
    expect(reply.body.branch).toMatchObject({ id, name: 'preview/pr-3', expires_at: expires });
    const read = await call<{ branch: BranchBody }>('GET', `${base}/branches/${id}`);
    expect(read.body.branch.expires_at).toBe(expires);
    const removed = await call<BranchOps>('PATCH', `${base}/branches/${id}`, {
      branch: { expires_at: null }
    });
    expectAnswer(removed, ONE, 'patch', 200);
    expect(removed.body.branch.expires_at).toBeUndefined();
  });

  it('PATCH a name: renamed, same id; a taken name 409; bad fields 400; an unknown branch 404', async () => {
    idle();
    const id = idOf('preview/pr-3');
    const renamed = await call<BranchOps>('PATCH', `${base}/branches/${id}`, {
      branch: { name: 'preview/pr-3-renamed' }
    });
    expectAnswer(renamed, ONE, 'patch', 200);
    expect(renamed.body.branch).toMatchObject({ id, name: 'preview/pr-3-renamed' });
    expectError(
      await call('PATCH', `${base}/branches/${id}`, { branch: { name: 'main' } }),
      409,
      /already exists/
    );
    expectError(
      await call('PATCH', `${base}/branches/${id}`, { branch: { expires_at: isoAt(0) } }),
      400,
      /future/
    );
    expectError(await call('PATCH', `${base}/branches/${id}`, {}), 400, /branch/);
    expectError(
      await call('PATCH', `${base}/branches/br-none-0000`, { branch: { name: 'x' } }),
      404,
      /branch not found/
    );
  });

  it('PATCH protected: starts timeline_update_protected_config, so 423 while the project is busy', async () => {
    idle();
    const id = idOf('preview/pr-4-child');
    const reply = await call<BranchOps>('PATCH', `${base}/branches/${id}`, {
      branch: { protected: true }
    });
    expectAnswer(reply, ONE, 'patch', 200);
    expect(reply.body.branch.protected).toBe(true);
    expect(reply.body.operations.map((op) => op.action)).toEqual([
      'timeline_update_protected_config'
    ]);
    const locked = await call('PATCH', `${base}/branches/${id}`, { branch: { protected: false } });
    expect(locked.status).toBe(423);
    expect(problems(validate.generalError, locked.body)).toEqual([]);
  });

  it('restore from the parent: 200 as BranchOperations, same id, last_reset_at, resetting until its operations end; 423 meanwhile', async () => {
    idle();
    const child = later.branches(PROJECT_L).find((b) => b.name === 'preview/pr-12');
    const parent = child?.parent_id as string;
    const body = allowed(RESTORE, 'post', { source_branch_id: parent });
    const reply = await call<BranchOps>('POST', `${base}/branches/${child?.id}/restore`, body);
    expectAnswer(reply, RESTORE, 'post', 200);
    expect(reply.body.branch).toMatchObject({
      id: child?.id,
      name: 'preview/pr-12',
      parent_id: parent,
      last_reset_at: isoAt(clockMs),
      current_state: 'resetting'
    });
    expect(reply.body.operations.map((op) => [op.action, op.status])).toEqual([
      ['create_timeline', 'running']
    ]);
    const again = await call('POST', `${base}/branches/${child?.id}/restore`, body);
    expect(again.status).toBe(423);
    idle();
    const read = await call<{ branch: BranchBody }>('GET', `${base}/branches/${child?.id}`);
    expect(read.body.branch).toMatchObject({
      current_state: 'ready',
      last_reset_at: isoAt(clockMs - 60_000)
    });
  });

  it('restore refused before the lock: no source 400, unknown source 404, from itself without a point 400, children without preserve_under_name 400', async () => {
    idle();
    const parent = idOf('preview/pr-4');
    const at = `${base}/branches/${parent}/restore`;
    expectError(await call('POST', at, {}), 400, /source_branch_id/);
    expectError(await call('POST', at, { source_branch_id: 'br-none-0000' }), 404, /not found/);
    expectError(await call('POST', at, { source_branch_id: parent }), 400, /source_lsn/);
    expectError(
      await call('POST', at, { source_branch_id: idOf('main') }),
      400,
      /preserve_under_name/
    );
  });

  it('restore with preserve_under_name: the old state kept under that name, which takes the children', async () => {
    idle();
    const parent = idOf('preview/pr-4');
    const reply = await call<BranchOps>('POST', `${base}/branches/${parent}/restore`, {
      source_branch_id: idOf('main'),
      preserve_under_name: 'preview/pr-4-before'
    });
    expectAnswer(reply, RESTORE, 'post', 200);
    const preserved = later.branches(PROJECT_L).find((b) => b.name === 'preview/pr-4-before');
    expect(preserved?.parent_id).toBe(idOf('main'));
    const child = later.branches(PROJECT_L).find((b) => b.id === idOf('preview/pr-4-child'));
    expect(child?.parent_id).toBe(preserved?.id);
  });

  it("the eleventh branch on a Free plan: 422 BRANCHES_LIMIT_EXCEEDED as GeneralError, the service's words, nothing created", async () => {
    idle();
    const reply = await call<{ code: string }>('POST', `/projects/${FREE}/branches`, {
      branch: { name: 'preview/pr-10' }
    });
    expectError(reply, 422, /^branches limit of 10 exceeded, got 10$/);
    expect(reply.body.code).toBe(BRANCHES_LIMIT_CODE);
    expect(later.branches(FREE)).toHaveLength(10);
    // A name that exists is still 409: the request's own fault comes first.
    expectError(
      await call('POST', `/projects/${FREE}/branches`, { branch: { name: 'preview/pr-1' } }),
      409,
      /already exists/
    );
    const gone = full.branches.find((b) => b.name === 'preview/pr-9')?.id as string;
    expect((await call('DELETE', `/projects/${FREE}/branches/${gone}`)).status).toBe(200);
    idle();
    const created = await call('POST', `/projects/${FREE}/branches`, {
      branch: { name: 'preview/pr-10' }
    });
    expectAnswer(created, '/projects/{project_id}/branches', 'post', 201);
  });

  it('past the limit on a paid plan (the default, Scale): extra branches are billed, the create succeeds', async () => {
    idle();
    for (let i = later.branches(PROJECT_L).length; i <= 25; i++) {
      idle();
      const reply = await call('POST', `${base}/branches`, { branch: { name: `extra-${i}` } });
      expect(reply.status).toBe(201);
    }
    expect(later.branches(PROJECT_L).length).toBeGreaterThan(25);
  });
});
