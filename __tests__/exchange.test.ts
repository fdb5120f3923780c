import { describe, expect, it } from '@jest/globals';
import type { RequestMethod, Transport } from '../src/neon/http.js';
import { sendRequest } from '../src/neon/send.js';
import { requestRules } from '../src/requests/api-request.js';
import { createBranch } from '../src/requests/create-branch.js';
import { deleteBranch } from '../src/requests/delete-branch.js';
import { SimulatedClock } from '../simulator/simulated-wait.js';
import { clientOver, jsonReply } from './helpers/stub-api.js';

// The drifts between the two paths there were to the API (issue 42): every request now goes
// through one exchange and one loop, so a GET and a mutation read an answer alike.

const PROJECT = 'spring-example-302709';
const EPOCH = Date.UTC(2026, 0, 1, 12, 0, 0);
const HOUR = 3_600_000;

/** A transport whose every answer, GET or not, comes from `answer` (by method and URL). */
const answering = (
  answer: (method: RequestMethod, url: URL) => ReturnType<typeof jsonReply>
): Transport => ({
  send: async (method, url) => answer(method, new URL(url)),
  close: async () => undefined
});

describe('Retry-After given as an HTTP date', () => {
  it.each(['POST', 'GET'] as const)(
    'is read on the service clock for a %s (the service an hour ahead of the runner)',
    async (method) => {
      const clock = new SimulatedClock(EPOCH);
      const sent: number[] = [];
      const serviceDate = (ms: number) => new Date(clock.now() + HOUR + ms).toUTCString();
      const client = clientOver(
        answering(() => {
          sent.push(clock.elapsed);
          const date = { date: serviceDate(0) };
          if (sent.length > 1) return { ...jsonReply(201, { operations: [] }), headers: date };
          const retryAfter = { 'retry-after': serviceDate(10_000) };
          return { ...jsonReply(503, { message: 'busy' }), headers: { ...date, ...retryAfter } };
        }),
        clock
      );
      const deps = { client, projectId: PROJECT, clock, random: () => 0.5, log: () => undefined };
      const request = {
        method,
        path: `/projects/${PROJECT}/branches`,
        rules: requestRules(method)
      };
      const outcome = await sendRequest(request, clock.now() + 60_000, deps);
      expect(outcome).toMatchObject({ status: 201, attempts: 2 });
      // 10 s as the service asked (and up to half as much again, the jitter), not an hour.
      expect(sent[1]).toBeGreaterThanOrEqual(10_000);
      expect(sent[1]).toBeLessThanOrEqual(15_000);
    }
  );
});

describe('a 502 on GET …/connection_uri while a branch is adopted', () => {
  it('is retried like any 5xx on a GET: the adopted branch has its database_url', async () => {
    const clock = new SimulatedClock(EPOCH);
    const uri = 'postgresql://neondb_owner:Secr3tPassw0rd@ep-x-123456.neon.tech/neondb';
    const uris: string[] = [];
    const client = clientOver(
      answering((method, url) => {
        const path = url.pathname.replace('/api/v2', '');
        if (method === 'POST') return jsonReply(409, { message: 'branch already exists' });
        if (path.endsWith('/branches')) {
          const branch = (id: string, name: string, more = {}) => ({
            id,
            name,
            created_at: '2025-12-01T00:00:00Z',
            ...more
          });
          return jsonReply(200, {
            branches: [
              branch('br-main-1', 'main', { default: true }),
              branch('br-pr-1', 'preview/pr-1', { parent_id: 'br-main-1' })
            ]
          });
        }
        if (path.endsWith('/databases'))
          return jsonReply(200, { databases: [{ name: 'neondb', owner_name: 'neondb_owner' }] });
        if (path.endsWith('/connection_uri')) {
          uris.push(url.search);
          if (uris.length === 1) return jsonReply(502, { message: 'bad gateway' });
          return jsonReply(200, { uri });
        }
        return jsonReply(404, { message: 'not found' });
      }),
      clock
    );
    const warnings: string[] = [];
    const done = await createBranch.perform(
      { kind: 'create_branch', name: 'preview/pr-1' },
      clock.now() + 60_000,
      {
        client,
        projectId: PROJECT,
        clock,
        random: () => 0.5,
        log: () => undefined,
        warn: (line) => warnings.push(line)
      }
    );
    expect(warnings).toEqual([]);
    expect(done.outcome.databaseUrl).toBe(uri);
    expect(done.outcome.branch?.connection).toMatchObject({ url: uri, database: 'neondb' });
    // The direct URL twice (the 502, then its answer), then the pooled one.
    expect(uris).toHaveLength(3);
  });
});

describe('a branch list answer without a branches array', () => {
  it.each([{}, { branches: null }, []])(
    'is a malformed answer, an API error: delete_branch does not take the branch as gone (%j)',
    async (body) => {
      const clock = new SimulatedClock(EPOCH);
      const client = clientOver(
        answering(() => jsonReply(200, body)),
        clock
      );
      const log = () => undefined;
      const deps = { client, projectId: PROJECT, clock, log, warn: log };
      const deleting = deleteBranch.perform(
        { kind: 'delete_branch', branch: 'preview/pr-1' },
        clock.now() + 60_000,
        deps
      );
      await expect(deleting).rejects.toThrow(
        `The API answered the list of branches of project ${PROJECT} without a "branches" array: a malformed answer.`
      );
    }
  );
});
