import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { NeonClient } from '../src/neon/client.js';
import type { Transport } from '../src/neon/http.js';
import { compareSchema } from '../src/neon/schema.js';
import { readSchemaDiff } from '../src/database/schema-diff.js';
import { ApiError } from '../src/util/errors.js';
import { DEFAULT_KEY, project, seededBranches } from '../simulator/scenario.js';
import { type Simulator, startSimulator } from '../simulator/server.js';
import { SimulatedClock } from '../simulator/simulated-wait.js';
import { DROP_COLUMN_AND_TABLE } from '../simulator/schema-diffs.js';
import { clientOver, jsonReply } from './helpers/stub-api.js';

const PROJECT = 'quiet-lake-12345678';
const seeded = seededBranches(PROJECT, [{ name: 'main' }, { name: 'preview/pr-7' }]);
const idOf = (name: string): string => seeded.branches.find((b) => b.name === name)?.id as string;
let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({
    scenario: {
      keys: { [DEFAULT_KEY]: { kind: 'personal', user: 'user-1' } },
      projects: [project(PROJECT, { owner_id: 'user-1' })],
      operations: [],
      ...seeded,
      schemaDiffs: { 'preview/pr-7': DROP_COLUMN_AND_TABLE }
    }
  });
});
afterAll(async () => {
  await sim?.close();
});

const soon = (): number => Date.now() + 5000;

describe('compareSchema against the simulator', () => {
  const client = () => new NeonClient({ baseUrl: sim.url, apiKey: DEFAULT_KEY });

  it("answers the branch's diff against its parent, which the review reads", async () => {
    const diff = await compareSchema(
      client(),
      PROJECT,
      idOf('preview/pr-7'),
      idOf('main'),
      'neondb',
      soon()
    );
    expect(diff).toBe(DROP_COLUMN_AND_TABLE);
    expect(readSchemaDiff(diff).destructive.map((d) => `${d.action} ${d.kind} ${d.name}`)).toEqual([
      'drops table posts',
      'drops column users.name'
    ]);
    const request = sim.requests.at(-1);
    expect(request?.route).toBe('GET /projects/{project_id}/branches/{branch_id}/compare_schema');
    expect(request?.query).toEqual({ base_branch_id: idOf('main'), db_name: 'neondb' });
  });

  it("answers an empty diff for a branch whose schema is its parent's", async () => {
    const diff = await compareSchema(
      client(),
      PROJECT,
      idOf('main'),
      idOf('main'),
      'neondb',
      soon()
    );
    expect(diff).toBe('');
  });

  it('is an API error naming what to check when the database is not there', async () => {
    const asked = compareSchema(
      client(),
      PROJECT,
      idOf('preview/pr-7'),
      idOf('main'),
      'nodb',
      soon()
    );
    await expect(asked).rejects.toThrow(ApiError);
    await expect(asked).rejects.toThrow(
      /database nodb was not found in project quiet-lake-12345678/
    );
  });
});

describe('compareSchema on answers the simulator does not give', () => {
  const answering = (body: unknown) => {
    const transport: Transport = {
      send: async (method) => (method === 'GET' ? jsonReply(200, body) : jsonReply(500, {})),
      close: async () => undefined
    };
    return clientOver(transport, new SimulatedClock(0));
  };
  const ask = (body: unknown) =>
    compareSchema(answering(body), PROJECT, 'br-a-1', 'br-b-2', 'neondb', Infinity);

  it("reads an empty object as no change, as Neon's MCP server reads a missing diff", async () => {
    await expect(ask({})).resolves.toBe('');
  });

  it.each([
    ['a diff that is not text', { diff: 42 }, /without a diff \(\{"diff":42\}\)/],
    ['a null diff', { diff: null }, /without a diff/],
    ['other fields and no diff', { message: 'oops' }, /without a diff \(\{"message":"oops"\}\)/]
  ])('is an API error for %s', async (_, body, message) => {
    await expect(ask(body)).rejects.toThrow(ApiError);
    await expect(ask(body)).rejects.toThrow(message);
  });
});
