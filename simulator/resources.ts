import { createHash, randomBytes, randomInt } from 'node:crypto';
import type { BranchScript, EndpointScript, ProjectScript } from './scenario.js';

/**
 * Branches, endpoints, roles and connection URIs as the official OpenAPI document shapes them
 * (`Branch`, `Endpoint`, `Role`, `Database`, `ConnectionDetails`); the simulator's routes in
 * `server.ts` decide when they change.
 */

const ADJECTIVES = ['calm', 'quiet', 'misty', 'bold', 'young', 'silent', 'wispy', 'broad'];
const NOUNS = ['river', 'lake', 'sun', 'cloud', 'meadow', 'forest', 'snow', 'bird'];

function pick(words: readonly string[]): string {
  return words[randomInt(words.length)] as string;
}

/** `br-calm-river-a1b2c3d4`: the form of the service's new branch ids. */
export function newBranchId(): string {
  return `br-${pick(ADJECTIVES)}-${pick(NOUNS)}-${randomBytes(4).toString('hex')}`;
}

/** `ep-quiet-lake-123456`: the document's example form. */
export function newEndpointId(): string {
  return `ep-${pick(ADJECTIVES)}-${pick(NOUNS)}-${String(randomInt(1_000_000)).padStart(6, '0')}`;
}

/** What the service shows of a role's password: `npg_` and 12 letters and digits. */
export function newPassword(): string {
  return `npg_${randomBytes(9).toString('base64url').replace(/[-_]/g, 'x').slice(0, 12)}`;
}

export function regionOf(project: ProjectScript): string {
  return project.region_id ?? 'aws-us-east-2';
}

/** `aws-us-east-2` → `us-east-2.aws.neon.tech`. */
export function regionHost(regionId: string): string {
  const [cloud, ...rest] = regionId.split('-');
  return `${rest.join('-')}.${cloud}.neon.tech`;
}

export function endpointHost(endpoint: EndpointScript, project: ProjectScript): string {
  return `${endpoint.id}.${regionHost(regionOf(project))}`;
}

/** The cell domain the simulator's computes live on (the service has several per region). */
const CELL = 'c-5';

/**
 * The endpoint's compute group as the service answers it since 2026 (`group.computes[]`): each
 * compute's host is the endpoint's first label plus `-<binding_id>`, on a cell domain. The
 * scenario's `bindings` name the computes; by default one, its binding drawn from the endpoint id
 * so that a scenario's hosts stay the same from run to run. Which `role` values the service uses
 * is not documented: `primary`, then `replica`, stand in.
 */
export function computeGroup(
  endpoint: EndpointScript,
  project: ProjectScript
): { computes: Array<Record<string, string>> } {
  const bindings = endpoint.bindings ?? [defaultBinding(endpoint.id)];
  const domain = `${CELL}.${regionHost(regionOf(project))}`;
  return {
    computes: bindings.map((binding, i) => ({
      binding_id: binding,
      role: i === 0 ? 'primary' : 'replica',
      compute_host: `${endpoint.id}-${binding}.${domain}`,
      compute_pooled_host: `${endpoint.id}-${binding}-pooler.${domain}`
    }))
  };
}

/** Three letters, the form of the example's `ffk`, drawn from the endpoint id. */
function defaultBinding(endpointId: string): string {
  const digest = createHash('sha256').update(endpointId).digest();
  return [...digest.subarray(0, 3)].map((byte) => String.fromCharCode(97 + (byte % 26))).join('');
}

/** The pooled host: `-pooler` added to the first label. */
export function poolerHost(host: string): string {
  const dot = host.indexOf('.');
  return `${host.slice(0, dot)}-pooler${host.slice(dot)}`;
}

/** The last state whose time has come, from a time-ordered list. */
export function stateAt<S>(states: ReadonlyArray<[number, S]>, now: number): S | undefined {
  let current: S | undefined;
  for (const [at, state] of states) if (at <= now) current = state;
  return current;
}

type Iso = (ms: number) => string;

export function branchBody(branch: BranchScript, now: number, iso: Iso): Record<string, unknown> {
  const states = branch.states ?? [[branch.created, 'ready']];
  let changedAt = branch.created;
  for (const [at] of states) if (at <= now) changedAt = at;
  return {
    id: branch.id,
    project_id: branch.project_id,
    ...(branch.parent_id ? { parent_id: branch.parent_id } : {}),
    name: branch.name,
    current_state: stateAt(states, now) ?? 'init',
    state_changed_at: iso(changedAt),
    logical_size: 30_000_000,
    creation_source: 'console',
    default: branch.default ?? false,
    protected: branch.protected ?? false,
    ...(branch.expiresAt === undefined ? {} : { expires_at: iso(branch.expiresAt) }),
    ...(branch.lastResetAt === undefined ? {} : { last_reset_at: iso(branch.lastResetAt) }),
    cpu_used_sec: 0,
    active_time_seconds: 0,
    compute_time_seconds: 0,
    written_data_bytes: 0,
    data_transfer_bytes: 0,
    created_at: iso(branch.created),
    updated_at: iso(changedAt),
    init_source: 'parent-data'
  };
}

/** A branch's annotation as the document's `AnnotationData` shapes it (`console/branch` objects). */
export function annotationBody(branch: BranchScript, iso: Iso): Record<string, unknown> {
  return {
    object: { type: 'console/branch', id: branch.id },
    value: branch.annotations ?? {},
    created_at: iso(branch.created),
    updated_at: iso(branch.created)
  };
}

export function endpointBody(
  endpoint: EndpointScript,
  project: ProjectScript,
  now: number,
  iso: Iso
): Record<string, unknown> {
  const host = endpointHost(endpoint, project);
  return {
    host,
    id: endpoint.id,
    project_id: endpoint.project_id,
    branch_id: endpoint.branch_id,
    region_id: regionOf(project),
    autoscaling_limit_min_cu: 0.25,
    autoscaling_limit_max_cu: 2,
    type: endpoint.type ?? 'read_write',
    current_state: stateAt(endpoint.states ?? [[endpoint.created, 'idle']], now) ?? 'init',
    pooler_enabled: false,
    pooler_mode: 'transaction',
    disabled: false,
    passwordless_access: false,
    creation_source: 'console',
    created_at: iso(endpoint.created),
    updated_at: iso(endpoint.created),
    settings: {},
    proxy_host: regionHost(regionOf(project)),
    suspend_timeout_seconds: 0,
    provisioner: 'k8s-neonvm',
    group: computeGroup(endpoint, project)
  };
}

/** Every branch has the service's default role and database. */
export const ROLE = 'neondb_owner';
export const DATABASE = 'neondb';

export function roleBody(branchId: string, at: string, password?: string): Record<string, unknown> {
  return {
    branch_id: branchId,
    name: ROLE,
    ...(password ? { password } : {}),
    protected: false,
    created_at: at,
    updated_at: at
  };
}

export function databaseBody(branchId: string, at: string): Record<string, unknown> {
  return {
    id: 1,
    branch_id: branchId,
    name: DATABASE,
    owner_name: ROLE,
    created_at: at,
    updated_at: at
  };
}

/**
 * Where connection URIs point: by default the endpoint's own host (unreachable from here); with
 * the simulator's `postgres` option, a real local server, so that `SELECT 1` on the URI works.
 */
export interface PostgresTarget {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

export function connectionDetails(
  host: string,
  password: string,
  postgres: PostgresTarget | undefined
): Record<string, unknown> {
  const user = postgres?.user ?? ROLE;
  const secret = postgres?.password ?? password;
  const database = postgres?.database ?? DATABASE;
  const address = postgres ? `${postgres.host}:${postgres.port}` : host;
  const auth = `${encodeURIComponent(user)}:${encodeURIComponent(secret)}`;
  // As Neon's own URLs: channel binding too, so that a `&` is in every URL a test sees.
  const query = postgres ? '' : '?sslmode=require&channel_binding=require';
  return {
    connection_uri: `postgresql://${auth}@${address}/${encodeURIComponent(database)}${query}`,
    connection_parameters: {
      database,
      password: secret,
      role: user,
      host,
      pooler_host: poolerHost(host)
    }
  };
}
