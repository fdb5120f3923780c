/**
 * The simulator's `postgres` option: a created branch's connection URI points at a real local
 * server, so that `SELECT 1` on the response's URI works in tests and the demo.
 */
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import pg from 'pg';
import { DEFAULT_KEY, project } from '../simulator/scenario.js';
import { createCluster, type Cluster } from '../simulator/postgres.js';
import { startSimulator, type Simulator } from '../simulator/server.js';

const PROJECT = 'calm-sea-12345678';
const PASSWORD = `sim-${Math.random().toString(36).slice(2, 10)}`;
let db: Cluster;
let sim: Simulator;

beforeAll(async () => {
  db = await createCluster();
  await db.start();
  await db.sql(`CREATE ROLE app LOGIN PASSWORD '${PASSWORD}'`, 'CREATE DATABASE appdb OWNER app');
  sim = await startSimulator({
    scenario: {
      keys: { [DEFAULT_KEY]: { kind: 'personal', user: 'u' } },
      projects: [project(PROJECT, { owner_id: 'u' })],
      operations: []
    },
    postgres: { host: db.host, port: db.port, user: 'app', password: PASSWORD, database: 'appdb' }
  });
}, 60_000);
afterAll(async () => {
  await sim?.close();
  await db?.remove();
});

it("SELECT 1 answers on the created branch's connection URI", async () => {
  const res = await fetch(`${sim.url}/projects/${PROJECT}/branches`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${DEFAULT_KEY}` },
    body: JSON.stringify({ endpoints: [{ type: 'read_write' }] })
  });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { connection_uris: Array<{ connection_uri: string }> };
  const client = new pg.Client({ connectionString: body.connection_uris[0]?.connection_uri });
  await client.connect();
  try {
    expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  } finally {
    await client.end();
  }
});
