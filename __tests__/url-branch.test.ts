/**
 * "The URL belongs to the branch": with `branch_id` and `database_url`, one request to the
 * simulator says which branch the URL's endpoint belongs to, before any connection.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parseDatabaseUrl } from '../src/database/url.js';
import { NeonClient } from '../src/neon/client.js';
import { DEFAULT_POLICY, WAIT_STATUS } from '../src/wait/status.js';
import { checkUrlBranch } from '../src/wait/url-branch.js';
import type { WaitResult } from '../src/wait/wait.js';
import { DEFAULT_KEY, project } from '../simulator/scenario.js';
import { startSimulator, type Simulator } from '../simulator/server.js';

const PROJECT = 'calm-sea-12345678';
const MAIN = 'br-main-11111111';
const PREVIEW = 'br-calm-river-a1b2c3d4';
const MAIN_EP = 'ep-bold-sun-111111';
const PREVIEW_EP = 'ep-quiet-lake-222222';
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
        { id: MAIN_EP, project_id: PROJECT, branch_id: MAIN, created: -1000 },
        { id: PREVIEW_EP, project_id: PROJECT, branch_id: PREVIEW, created: -500 }
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
  const result = await checkUrlBranch(
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
  return { result, log, requests };
}

describe('checkUrlBranch', () => {
  it("passes the branch's own endpoint, pooled or not, with one request", async () => {
    for (const host of [
      `${PREVIEW_EP}.us-east-2.aws.neon.tech`,
      `${PREVIEW_EP}-pooler.us-east-2.aws.neon.tech`
    ]) {
      const { result, log, requests } = await check(host);
      expect(result.status).toBe('finished');
      expect(result.database).toBeUndefined();
      expect(requests).toEqual([`GET /api/v2/projects/${PROJECT}/endpoints/${PREVIEW_EP}`]);
      expect(log.join('\n')).toContain(`belongs to branch ${PREVIEW}`);
    }
  });

  it("refuses another branch's endpoint, naming both branches, without connecting", async () => {
    const { result } = await check(`${MAIN_EP}-pooler.us-east-2.aws.neon.tech`);
    expect(result.status).toBe(WAIT_STATUS.databaseError);
    expect(result.failure).toBe(
      `input 'database_url' names endpoint ${MAIN_EP}, which belongs to branch ${MAIN}, not to ` +
        `input 'branch_id' ${PREVIEW}: not connecting. Pass the URL of branch ${PREVIEW}.`
    );
    expect(result.database).toMatchObject({ ready: false, attempts: 0 });
    expect(JSON.stringify(result)).not.toContain('npg_secret');
  });

  it('refuses an endpoint the project does not have (it cannot be told whose it is)', async () => {
    const { result } = await check('ep-lost-bird-333333.us-east-2.aws.neon.tech');
    expect(result.status).toBe(WAIT_STATUS.databaseError);
    expect(result.failure).toMatch(
      /^Could not check that input 'database_url' \(endpoint ep-lost-bird-333333\) belongs to branch br-calm-river-a1b2c3d4, so it was not used: Endpoint ep-lost-bird-333333 was not found/
    );
  });

  it('does not check a host that is not a Neon endpoint host, and says so', async () => {
    const { result, log, requests } = await check('127.0.0.1:5432');
    expect(result.status).toBe('finished');
    expect(requests).toEqual([]);
    expect(log).toEqual([
      "The host 127.0.0.1 is not a Neon endpoint host: not checked against input 'branch_id'."
    ]);
  });

  it('checks nothing without branch_id', async () => {
    const { result, requests } = await check(`${MAIN_EP}.us-east-2.aws.neon.tech`, null);
    expect(result.status).toBe('finished');
    expect(requests).toEqual([]);
  });
});
