/**
 * The engine's report after the wait: the recent operations as they are when it is written, not as
 * the wait's last check saw them before a database check.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { runEngine } from '../src/engine.js';
import { checkFacts } from '../src/report/model.js';
import { readSettings } from '../src/settings.js';
import { actionNaming } from '../src/util/errors.js';
import {
  type Cluster,
  createCluster,
  fakeServer,
  type FakeServer,
  wire
} from '../simulator/postgres.js';
import { DEFAULT_KEY, operation, singleProject } from '../simulator/scenario.js';
import { type Simulator, startSimulator } from '../simulator/server.js';
import { actionDefaults } from './helpers/run-action.js';
import { PROJECT } from './helpers/sim.js';

let sim: Simulator | undefined;
let db: FakeServer | undefined;
afterEach(async () => {
  await Promise.all([sim?.close(), db?.close()]);
  [sim, db] = [undefined, undefined];
});

it('lists the operations again after the database check: one that ended meanwhile shows as ended', async () => {
  const awaited = operation(PROJECT, 'create_branch', [[0, 'finished']]);
  // Running in the answer of the wait's check, finished in the next (the database check between).
  const other = operation(
    PROJECT,
    'start_compute',
    [
      [0, 'running'],
      [0, 'finished']
    ],
    { stepPerAnswer: true }
  );
  sim = await startSimulator({ scenario: singleProject(PROJECT, [awaited, other]) });
  // A database that trusts the client and answers SELECT 1.
  db = await fakeServer((socket, write) => {
    write(Buffer.concat([wire.ok(), wire.ready()]));
    socket.on('data', () => write(wire.selectOne()));
  });
  const inputs: Record<string, string> = {
    ...actionDefaults(),
    api_key: DEFAULT_KEY,
    api_host: sim.url,
    project_id: PROJECT,
    operation_id: awaited.id,
    database_url: `postgresql://app@127.0.0.1:${db.port}/app?sslmode=disable`,
    timeout: '30s'
  };
  const settings = readSettings(
    (name) => inputs[name] ?? '',
    () => undefined
  );
  const quiet = { info: () => {}, warning: () => {}, debug: () => {} };
  const report = await runEngine(settings, {
    log: quiet,
    signal: new AbortController().signal,
    named: actionNaming
  });
  expect(report.status).toBe('finished');
  expect(checkFacts(report, 'database')[0]?.ready).toBe(true);
  const { recent } = report.targets[0];
  const shown = recent?.operations.find((op) => op.id === other.id);
  expect(shown?.status).toBe('finished');
  expect(recent?.requests).toBe(1);
});

describe('database_url: response', () => {
  let cluster: Cluster | undefined;
  afterEach(async () => {
    await cluster?.remove();
    cluster = undefined;
  });

  /** The engine on these inputs, against `sim`, with the simulator's project. */
  async function engineOn(extra: Record<string, string>) {
    if (!sim) throw new Error('start the simulator first');
    const inputs: Record<string, string> = {
      ...actionDefaults(),
      api_key: DEFAULT_KEY,
      api_host: sim.url,
      project_id: PROJECT,
      request: 'POST /projects/{project_id}/branches',
      database_url: 'response',
      timeout: '30s',
      ...extra
    };
    const settings = readSettings(
      (name) => inputs[name] ?? '',
      () => undefined
    );
    const quiet = { info: () => {}, warning: () => {}, debug: () => {} };
    const signal = new AbortController().signal;
    return runEngine(settings, { log: quiet, signal, named: actionNaming });
  }

  it("checks the new branch's own URI, even with branch_id naming its parent", async () => {
    cluster = await createCluster();
    await cluster.start();
    const password = `p${Date.now()}`;
    await cluster.sql(
      `CREATE ROLE app LOGIN PASSWORD '${password}'`,
      'CREATE DATABASE appdb OWNER app'
    );
    const postgres = {
      host: cluster.host,
      port: cluster.port,
      user: 'app',
      password,
      database: 'appdb'
    };
    const scenario = { ...singleProject(PROJECT, []), operations: [] };
    sim = await startSimulator({ scenario, postgres, operationMs: 200 });
    const parent = sim.branches(PROJECT)[0]?.id ?? '';
    const body = JSON.stringify({
      branch: { parent_id: parent },
      endpoints: [{ type: 'read_write' }]
    });
    const report = await engineOn({ branch_id: parent, body });
    expect(report.failure).toBeUndefined();
    expect(checkFacts(report, 'database')[0]?.ready).toBe(true);
  }, 60_000);

  it('is a database error when the answer holds no connection URI', async () => {
    sim = await startSimulator({ scenario: singleProject(PROJECT, []), operationMs: 200 });
    const report = await engineOn({ body: JSON.stringify({ branch: { name: 'no-compute' } }) });
    expect(report.status).toBe('database_error');
    expect(report.failure).toMatch(
      /input 'database_url' is response, but the answer to POST .* holds no connection URI/i
    );
  });
});
