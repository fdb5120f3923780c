/**
 * "The URL belongs to the branch": with `branch_id` and `database_url`, one request to the
 * simulator (the project's endpoints, with their compute groups) says which branch the URL's host
 * belongs to, before any connection.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parseDatabaseUrl } from '../src/database/url.js';
import { NeonClient } from '../src/neon/client.js';
import { urlBelongsToBranch } from '../src/checks/url-belongs-to-branch.js';
import { DEFAULT_POLICY, WAIT_STATUS } from '../src/wait/status.js';
import type { WaitResult } from '../src/wait/wait.js';
import { DEFAULT_KEY, project } from '../simulator/scenario.js';
import { startSimulator, type Simulator } from '../simulator/server.js';

const PROJECT = 'calm-sea-12345678';
const MAIN = 'br-main-11111111';
const PREVIEW = 'br-calm-river-a1b2c3d4';
const MAIN_EP = 'ep-bold-sun-111111';
const PREVIEW_EP = 'ep-quiet-lake-222222';
const REGION = 'us-east-2.aws.neon.tech';
/** A compute's host since compute groups: the endpoint's first label plus its binding, on a cell. */
const computeHost = (endpoint: string, binding: string, pooled = false): string =>
  `${endpoint}-${binding}${pooled ? '-pooler' : ''}.c-5.${REGION}`;
const ENDPOINTS = `GET /api/v2/projects/${PROJECT}/endpoints`;
const url = (host: string): string => `postgresql://neondb_owner:npg_secret@${host}/neondb`;

let sim: Simulator;
let client: NeonClient;
beforeAll(async () => {
  sim = await startSimulator({
    scenario: {
      keys: { [DEFAULT_KEY]: { kind: 'personal', user: 'u' } },
      projects: [project(PROJECT, { owner_id: 'u' })],
      operations: [],
      branches: [
        { id: MAIN, project_id: PROJECT, name: 'main', default: true, created: -1000 },
        { id: PREVIEW, project_id: PROJECT, name: 'preview', parent_id: MAIN, created: -500 }
      ],
      endpoints: [
        { id: MAIN_EP, project_id: PROJECT, branch_id: MAIN, created: -1000, bindings: ['abc'] },
        {
          id: PREVIEW_EP,
          project_id: PROJECT,
          branch_id: PREVIEW,
          created: -500,
          bindings: ['ffk', 'qrs']
        }
      ]
    }
  });
  client = new NeonClient({ baseUrl: sim.url, apiKey: DEFAULT_KEY });
});
afterAll(async () => {
  await client?.close();
  await sim?.close();
});

function waited(): WaitResult {
  const now = Date.now();
  return {
    kind: 'operations',
    status: 'finished',
    policy: DEFAULT_POLICY,
    projectId: PROJECT,
    timedOut: false,
    apiUnusable: false,
    operations: [],
    startedAt: now,
    finishedAt: now,
    serviceAheadMs: 0,
    checks: 1
  };
}

/** `branchId` null: the input left out. */
async function check(host: string, branchId: string | null = PREVIEW) {
  const log: string[] = [];
  const before = sim.requests.length;
  const outcome = await urlBelongsToBranch(
    waited(),
    {
      branchId: branchId ?? undefined,
      databaseUrl: parseDatabaseUrl(url(host)),
      wait: true,
      timeoutMs: 30_000
    },
    { client, log: { info: (m: string) => log.push(m), warning: (m: string) => log.push(m) } }
  );
  const requests = sim.requests.slice(before).map((r) => `${r.method} ${r.path}`);
  // How the step would end: as the wait did, or as the check's ending says (the engine's `runChecks`).
  const result = { ...waited(), ...outcome?.ending, database: outcome?.facts, outcome };
  return { result, log, requests };
}

describe('urlBelongsToBranch', () => {
  it("passes the branch's own endpoint host, pooled or not, with one request", async () => {
    for (const host of [`${PREVIEW_EP}.${REGION}`, `${PREVIEW_EP}-pooler.${REGION}`]) {
      const { result, log, requests } = await check(host);
      expect(result.status).toBe('finished');
      expect(result.database).toBeUndefined();
      expect(requests).toEqual([ENDPOINTS]);
      expect(log.join('\n')).toContain(
        `Endpoint ${PREVIEW_EP} of ${host}:5432/neondb belongs to branch ${PREVIEW}`
      );
    }
  });

  it("passes each compute's host of the branch's compute group, pooled or not", async () => {
    for (const host of [
      computeHost(PREVIEW_EP, 'ffk'),
      computeHost(PREVIEW_EP, 'ffk', true),
      computeHost(PREVIEW_EP, 'qrs'),
      computeHost(PREVIEW_EP, 'QRS', true).toUpperCase()
    ]) {
      const { result, log, requests } = await check(host);
      expect(result.status).toBe('finished');
      expect(result.database).toBeUndefined();
      expect(requests).toEqual([ENDPOINTS]);
      expect(log.join('\n')).toContain(`Endpoint ${PREVIEW_EP} of `);
    }
  });

  it('reads a trailing dot as the same host: checked, and passed for the branch', async () => {
    const { result, requests } = await check(`${computeHost(PREVIEW_EP, 'ffk')}.`);
    expect(result.status).toBe('finished');
    expect(requests).toEqual([ENDPOINTS]);
  });

  it.each([
    ['its endpoint, pooled', `${MAIN_EP}-pooler.${REGION}`],
    ['a compute', computeHost(MAIN_EP, 'abc')],
    ['a compute, pooled', computeHost(MAIN_EP, 'abc', true)],
    ['a compute, with a trailing dot', `${computeHost(MAIN_EP, 'abc')}.`]
  ])(
    "refuses another branch's host (%s), naming both branches, without connecting",
    async (_, host) => {
      const { result, requests } = await check(host);
      expect(result.status).toBe(WAIT_STATUS.databaseError);
      expect(result.failure).toBe(
        `input 'database_url' names endpoint ${MAIN_EP}, which belongs to branch ${MAIN}, not to ` +
          `input 'branch_id' ${PREVIEW}: not connecting. Pass the URL of branch ${PREVIEW}.`
      );
      expect(result.database).toMatchObject({ ready: false, attempts: 0 });
      expect(requests).toEqual([ENDPOINTS]);
      expect(JSON.stringify(result)).not.toContain('npg_secret');
    }
  );

  it('refuses a Neon host that no endpoint of the project answers (it cannot be told whose it is)', async () => {
    // Built like the branch's compute host, with a binding the API does not answer: a host is
    // never taken apart to guess its endpoint.
    for (const host of [`ep-lost-bird-333333.${REGION}`, computeHost(PREVIEW_EP, 'zzz')]) {
      const { result } = await check(host);
      expect(result.status).toBe(WAIT_STATUS.databaseError);
      expect(result.failure).toBe(
        `input 'database_url' names host ${host}, which is no host of an endpoint of project ` +
          `${PROJECT}, so it cannot belong to input 'branch_id' ${PREVIEW}: not connecting.`
      );
    }
  });

  it('refuses when the endpoints cannot be read, saying why', async () => {
    sim.inject({ kind: 'status', status: 404 }, { times: 1, match: '/endpoints' });
    const { result } = await check(`${PREVIEW_EP}.${REGION}`);
    expect(result.status).toBe(WAIT_STATUS.databaseError);
    expect(result.failure).toMatch(
      /^Could not check that input 'database_url' \(host ep-quiet-lake-222222\.us-east-2\.aws\.neon\.tech\) belongs to branch br-calm-river-a1b2c3d4, so it was not used: Project calm-sea-12345678 was not found/
    );
  });

  it('does not check a host that is not a Neon host, and says so', async () => {
    const { result, log, requests } = await check('127.0.0.1:5432');
    expect(result.status).toBe('finished');
    expect(requests).toEqual([]);
    expect(log).toEqual([
      "The host 127.0.0.1 is not a Neon endpoint host: not checked against input 'branch_id'."
    ]);
  });

  it('checks nothing without branch_id', async () => {
    const { result, requests } = await check(`${MAIN_EP}.${REGION}`, null);
    expect(result.status).toBe('finished');
    expect(requests).toEqual([]);
  });
});

describe('listEndpoints reads the hosts as answered', () => {
  /** A client whose one answer is this endpoints list. */
  function answering(endpoints: unknown[]): NeonClient {
    const text = JSON.stringify({ endpoints });
    return new NeonClient({
      baseUrl: 'http://127.0.0.1:1/api/v2',
      apiKey: DEFAULT_KEY,
      transport: {
        send: async (method) =>
          method === 'GET'
            ? { status: 200, headers: {}, text }
            : { status: 405, headers: {}, text: '' },
        close: async () => undefined
      }
    });
  }
  const own = { id: PREVIEW_EP, branch_id: PREVIEW, host: `${PREVIEW_EP}.${REGION}` };

  it('takes an endpoint without a compute group (an older answer) by its own host', async () => {
    await expect(answering([own]).listEndpoints(PROJECT, Date.now() + 5000)).resolves.toEqual([
      { id: PREVIEW_EP, branchId: PREVIEW, host: own.host, computeHosts: [] }
    ]);
  });

  it("keeps each compute's hosts that are strings, and no other", async () => {
    const group = {
      computes: [
        { binding_id: 'ffk', compute_host: computeHost(PREVIEW_EP, 'ffk'), compute_pooled_host: 7 },
        null,
        { binding_id: 'qrs', compute_pooled_host: computeHost(PREVIEW_EP, 'qrs', true) }
      ]
    };
    const [endpoint] = await answering([{ ...own, group }]).listEndpoints(
      PROJECT,
      Date.now() + 5000
    );
    expect(endpoint?.computeHosts).toEqual([
      computeHost(PREVIEW_EP, 'ffk'),
      computeHost(PREVIEW_EP, 'qrs', true)
    ]);
  });
});
