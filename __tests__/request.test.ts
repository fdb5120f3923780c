import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import type { RequestMethod, Transport } from '../src/neon/http.js';
import { sendRequest } from '../src/neon/send.js';
import { requestRules } from '../src/requests/api-request.js';
import { typicalDurations } from '../src/wait/history.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ANSWER_CLASSES, answerClass, LOOKUP_RULES } from '../src/neon/answer-rules.js';
import { REQUEST_RULES } from '../src/requests/index.js';
import { ApiError, DeadlineError, UnconfirmedError } from '../src/util/errors.js';
import { SimulatedClock } from '../simulator/simulated-wait.js';
import { clientOver, jsonReply } from './helpers/stub-api.js';

const PROJECT = 'spring-example-302709';
const ROOT_DIR = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
const EPOCH = Date.UTC(2026, 0, 1, 12, 0, 0);
const HOLDER = randomUUID();

/** A finished operation of the project's past, `ms` long, created `agoMs` before the epoch. */
function past(action: string, ms: number, agoMs: number) {
  const created = EPOCH - agoMs;
  return {
    id: randomUUID(),
    project_id: PROJECT,
    action,
    status: 'finished',
    failures_count: 0,
    created_at: new Date(created).toISOString(),
    updated_at: new Date(created + ms).toISOString()
  };
}

/**
 * A project whose lock (an apply_config on br-main) holds until `lockedUntil` ms of simulated time;
 * each mutation answers by `answer` (a status, or a thrown network error), or 201 once free.
 * `newer`: finished operations listed before the holder (newest first), paged by `limit` and
 * `cursor` as the API pages them.
 */
function project(
  clock: SimulatedClock,
  lockedUntil: number,
  answer?: () => number,
  newer: Array<Record<string, unknown>> = []
) {
  const sent: Array<{ method: string; at: number }> = [];
  let lists = 0;
  const locked = () => clock.elapsed < lockedUntil;
  /** The project's operations: a page of the list, or the holder by id. */
  const list = (url: string) => {
    lists++;
    const status = locked() ? 'running' : 'finished';
    const created_at = new Date(EPOCH + 1000).toISOString();
    const op = {
      id: HOLDER,
      project_id: PROJECT,
      branch_id: 'br-main',
      action: 'apply_config',
      status,
      created_at
    };
    if (new URL(url).pathname.endsWith(`/operations/${HOLDER}`))
      return jsonReply(200, { operation: op });
    const query = new URL(url).searchParams;
    const limit = Number(query.get('limit') ?? 10);
    const from = Number(query.get('cursor') ?? 0);
    const page = [...newer, op].slice(from, from + limit);
    return jsonReply(200, {
      operations: page,
      pagination: { cursor: String(from + page.length) }
    });
  };
  const transport: Transport = {
    send: async (method: RequestMethod, url: string) => {
      if (new URL(url).pathname.includes('/operations')) return list(url);
      sent.push({ method, at: clock.elapsed });
      const status = answer?.() ?? (locked() ? 423 : 201);
      if (status === 0) throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
      if (status === 423)
        return jsonReply(423, {
          code: 'LOCKED',
          message:
            'project already has running conflicting operations, scheduling of new ones is prohibited'
        });
      if (status >= 300) return jsonReply(status, { message: `refused with ${status}` });
      return jsonReply(201, { branch: { id: 'br-new' }, operations: [] });
    },
    close: async () => undefined
  };
  const client = clientOver(transport, clock);
  const log: string[] = [];
  const send = (method: RequestMethod, timeoutMs = 60_000, rules = requestRules(method)) =>
    sendRequest(
      {
        method,
        path: `/projects/${PROJECT}/branches`,
        body: '{"branch":{"name":"secret-name"}}',
        rules
      },
      clock.now() + timeoutMs,
      {
        client,
        projectId: PROJECT,
        clock,
        random: () => 0.5,
        log: (l) => log.push(l),
        durations: typicalDurations
      }
    );
  return { send, sent, log, lists: () => lists };
}

describe('sendRequest: the retry rules of the OpenAPI document', () => {
  it('a lock of 6 s: the request goes again within 1 s of its end, at most 4 POSTs meanwhile', async () => {
    const clock = new SimulatedClock(EPOCH);
    const p = project(clock, 6000);
    const outcome = await p.send('POST');
    expect(outcome.status).toBe(201);
    const accepted = p.sent.at(-1)?.at ?? 0;
    expect(accepted).toBeGreaterThanOrEqual(6000);
    expect(accepted).toBeLessThanOrEqual(7000);
    expect(p.sent.filter((s) => s.at < 6000).length).toBeLessThanOrEqual(4);
    expect(outcome.holders).toEqual([
      `apply_config ${HOLDER.slice(0, 4)}… on br-main since 12:00:01`
    ]);
    expect(outcome.lockedMs).toBeGreaterThanOrEqual(6000);
    expect(p.log[0]).toMatch(
      /^POST \/projects\/spring-example-302709\/branches: locked by apply_config .* on br-main since 12:00:01 \(attempt 1, locked/
    );
  });

  it('a lock that never ends: a deadline error naming the holder, at most 30 requests in a minute', async () => {
    const clock = new SimulatedClock(EPOCH);
    const p = project(clock, Infinity);
    const error = await p.send('POST').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeadlineError);
    expect((error as Error).message).toMatch(/locked by apply_config .* on br-main since 12:00:01/);
    expect(p.sent.length + p.lists()).toBeLessThanOrEqual(30);
    expect(clock.elapsed).toBeGreaterThan(55_000);
    expect(clock.elapsed).toBeLessThanOrEqual(60_000);
  });

  it.each([20_000, 60_000])(
    'a lock that never ends, a %i ms timeout: the step ends within 1 s of its deadline',
    async (timeoutMs) => {
      const clock = new SimulatedClock(EPOCH);
      const p = project(clock, Infinity);
      const error = await p.send('POST', timeoutMs).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DeadlineError);
      expect(clock.elapsed).toBeGreaterThanOrEqual(timeoutMs - 1000);
      expect(clock.elapsed).toBeLessThanOrEqual(timeoutMs);
    }
  );

  it('a holder older than 25 newer operations: found, and the request goes within 1 s of its end', async () => {
    const clock = new SimulatedClock(EPOCH);
    const newer = Array.from({ length: 25 }, (_, i) => past('suspend_compute', 1000, -2000 - i));
    const p = project(clock, 6000, undefined, newer);
    const outcome = await p.send('POST');
    expect(outcome.holders).toEqual([
      `apply_config ${HOLDER.slice(0, 4)}… on br-main since 12:00:01`
    ]);
    expect(p.log.some((l) => /no operation in progress/.test(l))).toBe(false);
    const accepted = p.sent.at(-1)?.at ?? 0;
    expect(accepted).toBeGreaterThanOrEqual(6000);
    expect(accepted).toBeLessThanOrEqual(7000);
    expect(p.sent.filter((s) => s.at < 6000).length).toBeLessThanOrEqual(2);
  });

  it('the lock ends 4 s before the deadline: not sent (under the 5 s floor), a timeout saying so', async () => {
    const clock = new SimulatedClock(EPOCH);
    const p = project(clock, 16_000);
    const error = await p.send('POST', 20_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeadlineError);
    expect((error as Error).message).toMatch(
      /POST \/projects\/spring-example-302709\/branches not sent: \d(\.\d)?s left, a create_branch needs at least 5s to be waited for$/
    );
    expect(p.sent.every((s) => s.at < 16_000)).toBe(true);
  });

  it("the lock ends 7 s before the deadline: not sent when the project's create_branch takes ~10 s", async () => {
    const clock = new SimulatedClock(EPOCH);
    const history = Array.from({ length: 8 }, (_, i) =>
      past('create_branch', 10_000, 60_000 * (i + 1))
    );
    const p = project(clock, 13_000, undefined, history);
    const error = await p.send('POST', 20_000).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      /not sent: \d(\.\d)?s left, a create_branch takes ~10s here/
    );
    expect(p.sent.every((s) => s.at < 13_000)).toBe(true);
  });

  it('enough time left after the lock: sent (the floor does not stop it)', async () => {
    const clock = new SimulatedClock(EPOCH);
    const p = project(clock, 13_000);
    expect(await p.send('POST', 20_000)).toMatchObject({ status: 201 });
  });

  it('423 with nothing running in the list: a bounded backoff, not a tight loop', async () => {
    const clock = new SimulatedClock(EPOCH);
    const p = project(clock, 0, () => (clock.elapsed < 20_000 ? 423 : 201));
    const outcome = await p.send('PATCH');
    expect(outcome.status).toBe(201);
    expect(p.sent.length).toBeLessThanOrEqual(8);
    expect(p.log.some((l) => /no operation in progress/.test(l))).toBe(true);
  });

  it.each([503, 429])('%i is retried for a POST', async (status) => {
    const clock = new SimulatedClock(EPOCH);
    let n = 0;
    const p = project(clock, 0, () => (n++ < 2 ? status : 201));
    const outcome = await p.send('POST');
    expect(outcome).toMatchObject({ status: 201, attempts: 3 });
  });

  it('no answer to a POST: never sent again, an UnconfirmedError saying what to check', async () => {
    const clock = new SimulatedClock(EPOCH);
    const p = project(clock, 0, () => 0);
    const error = await p.send('POST').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnconfirmedError);
    expect((error as Error).message).toMatch(/may have been applied, so it is not sent again/);
    expect(p.sent).toHaveLength(1);
  });

  it('no answer to a GET: sent again', async () => {
    const clock = new SimulatedClock(EPOCH);
    let n = 0;
    const p = project(clock, 0, () => (n++ < 1 ? 0 : 201));
    expect(await p.send('GET')).toMatchObject({ status: 201, attempts: 2 });
  });

  it("another error: no retry; the API's message, the method and path, never the body", async () => {
    const clock = new SimulatedClock(EPOCH);
    const p = project(clock, 0, () => 409);
    const error = await p.send('POST').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as Error).message).toBe(
      'The request POST /projects/spring-example-302709/branches was refused: HTTP 409: refused with 409.'
    );
    expect(p.sent).toHaveLength(1);
  });
});

describe('sendRequest: each kind by its row of REQUEST_RULES', () => {
  it('create_branch: no answer is sent again (the name makes it idempotent); a 409 then adopts', async () => {
    const clock = new SimulatedClock(EPOCH);
    let n = 0;
    const p = project(clock, 0, () => (n++ < 1 ? 0 : 409));
    const outcome = await p.send('POST', 60_000, REQUEST_RULES.create_branch);
    expect(outcome).toMatchObject({ status: 409, ended: 'adopt', attempts: 2 });
    expect(outcome.unansweredAt).toBe(EPOCH);
    expect(p.log[0]).toMatch(/safe to send again/);
  });

  it('delete_branch: a 404 is "gone", not an error', async () => {
    const clock = new SimulatedClock(EPOCH);
    const p = project(clock, 0, () => 404);
    const outcome = await p.send('DELETE', 60_000, REQUEST_RULES.delete_branch);
    expect(outcome).toMatchObject({ status: 404, ended: 'gone', attempts: 1 });
  });

  it('the rows: every kind retries 429 and 503 alike and awaits the lock on 423, the lookups retry it (the lock is watched with them); only a GET and the named kinds resend without an answer', () => {
    for (const row of [...Object.values(REQUEST_RULES), LOOKUP_RULES])
      expect([row.locked, row.throttled, row.unavailable]).toEqual([
        row === LOOKUP_RULES ? 'retry' : 'await_lock',
        'retry',
        'retry'
      ]);
    const resent = Object.entries(REQUEST_RULES).filter(([, row]) => row.no_answer === 'resend');
    expect(resent.map(([kind]) => kind)).toEqual([
      'read',
      'create_branch',
      'renew_expiry',
      'delete_branch',
      'reset_branch',
      'sweep_branches'
    ]);
    expect(LOOKUP_RULES.no_answer).toBe('resend');
    expect(answerClass(409)).toBe('conflict');
    expect(answerClass(undefined)).toBe('no_answer');
    expect([500, 502, 503, 504].map(answerClass)).toEqual([
      'server_error',
      'server_error',
      'unavailable',
      'server_error'
    ]);
  });

  it("docs/request.md's table of rules is the rows", () => {
    const doc = readFileSync(join(ROOT_DIR, 'docs', 'request.md'), 'utf8');
    const lines = doc.split('\n');
    const start = lines.findIndex((line) => line.startsWith('| kind '));
    const end = lines.findIndex((line, i) => i > start && !line.startsWith('|'));
    const table = lines.slice(start, end).filter((line) => !line.startsWith('| ---'));
    const cells = (line: string) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim());
    const [header = '', ...rows] = table;
    expect(cells(header)).toEqual(['kind', ...ANSWER_CLASSES]);
    const documented = Object.fromEntries(
      rows.map((line) => {
        const [kind = '', ...rules] = cells(line);
        return [
          kind.replace(/`/g, ''),
          Object.fromEntries(rules.map((r, i) => [ANSWER_CLASSES[i], r]))
        ];
      })
    );
    expect(documented).toEqual(REQUEST_RULES);
  });
});
