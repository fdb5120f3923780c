/**
 * Facts the docs write in prose, checked against the rows and the code that decides them: the
 * `fail_on` default, the order of the `status` output, what each API status means, which answers a
 * `request` retries, which placeholders it fills. (docs/reference.md's tables are generated, and
 * checked by `readme.test.ts`.)
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { INPUTS } from '../src/inputs.js';
import type { Transport } from '../src/neon/http.js';
import { API_STATUSES, isInProgress } from '../src/neon/operation-status.js';
import { sendRequest } from '../src/neon/send.js';
import { requestRules } from '../src/requests/api-request.js';
import { OUTPUTS } from '../src/outputs.js';
import { readSettings } from '../src/settings.js';
import { InputError } from '../src/util/errors.js';
import { aggregateStatus, DEFAULT_POLICY, FAIL_ON_CHOICES, verdictOf } from '../src/wait/status.js';
import { SimulatedClock } from '../simulator/simulated-wait.js';
import { clientOver, jsonReply } from './helpers/stub-api.js';

const root = resolve(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
const page = (file: string): string => readFileSync(join(root, file), 'utf8');
/** A page's prose on one line, as Prettier may wrap a sentence anywhere. */
const prose = (file: string): string => page(file).replace(/\s+/g, ' ');

/** The backquoted words of a piece of prose, in order: `error` and `cancelled` → error, cancelled. */
const quoted = (text: string | undefined): string[] =>
  [...(text ?? '').matchAll(/`\{?([\w-]+)\}?`/g)].map((m) => m[1] ?? '');

/** The piece of `text` a pattern's first group catches (a test that finds none fails on it). */
function excerpt(text: string, pattern: RegExp): string {
  const found = pattern.exec(text)?.[1];
  expect([pattern.source, found]).toEqual([pattern.source, expect.any(String)]);
  return found ?? '';
}

describe('the fail_on default, as the docs state it', () => {
  it("README's example 2: the statuses that fail the step", () => {
    const text = excerpt(prose('README.md'), /ends in (.*?) \(the statuses `fail_on` lists\)/);
    expect(quoted(text)).toEqual(DEFAULT_POLICY.failOn);
  });

  it("docs/cli.md's JUnit cases: the statuses --fail-on lists by default", () => {
    const text = excerpt(
      prose('docs/cli.md'),
      /the statuses `--fail-on` lists \((.*?) by default\)/
    );
    expect(quoted(text)).toEqual(DEFAULT_POLICY.failOn);
  });
});

/** The phase or verdict a meaning in how-it-decides.md's table starts with (else the meaning). */
function whatTheTableSays(meaning: string): string {
  if (meaning.startsWith('in progress')) return 'in progress';
  if (meaning.startsWith('done: success')) return 'success';
  if (meaning.startsWith('done: the step fails')) return 'failure';
  return meaning;
}

describe('docs/how-it-decides.md', () => {
  const text = prose('docs/how-it-decides.md');
  const table = excerpt(page('docs/how-it-decides.md'), /## Operation statuses\s+([\s\S]*?)\n\n/)
    .split('\n')
    .slice(2)
    .map((line) => line.split('|').map((cell) => cell.trim()));
  const meaningOf = (status: string): string =>
    table.find(([, statuses]) => quoted(statuses).includes(status))?.[2] ?? '';

  it("its table names each of the API's statuses once", () => {
    const named = table.flatMap(([, statuses]) => quoted(statuses));
    expect([...named].sort()).toEqual([...API_STATUSES].sort());
  });

  it.each([...API_STATUSES])('%s: its meaning is the verdict and phase of the rows', (status) => {
    const meaning = meaningOf(status);
    const verdict = verdictOf(status, DEFAULT_POLICY);
    const said = whatTheTableSays(meaning);
    const rows = isInProgress(status) ? 'in progress' : verdict;
    expect([status, said]).toEqual([status, rows]);
    // A status `fail_on` may list says so where its meaning is given.
    if (FAIL_ON_CHOICES.includes(status))
      expect([status, meaning]).toEqual([status, expect.stringContaining('`fail_on`')]);
  });

  it("the status output's order of the worst is aggregateStatus's", () => {
    const chain = excerpt(text, /the worst, in the order (.*?) \(/);
    const groups = chain.split('>').map((group) => group.trim().split('/'));
    const final = API_STATUSES.filter((status) => !isInProgress(status));
    expect(groups.flat()).toEqual(expect.arrayContaining(final));
    groups.forEach((worse, i) =>
      groups.slice(i + 1).forEach((better) => {
        for (const a of worse)
          for (const b of better) {
            expect([a, b, aggregateStatus([b, a])]).toEqual([a, b, a]);
            expect([a, b, aggregateStatus([a, b])]).toEqual([a, b, a]);
          }
      })
    );
  });
});

/** The HTTP statuses `sendRequest` sends a POST again after (answered once, then 201). */
async function retriedStatuses(candidates: number[]): Promise<number[]> {
  const retried: number[] = [];
  for (const status of candidates) {
    const clock = new SimulatedClock(Date.UTC(2026, 0, 1));
    let sent = 0;
    const transport: Transport = {
      send: async (method) =>
        // The project's operations, looked at on a 423: none in progress.
        method === 'GET'
          ? jsonReply(200, { operations: [] })
          : sent++ === 0
            ? jsonReply(status, { message: `answered ${status}` })
            : jsonReply(201, { operations: [] }),
      close: async () => undefined
    };
    const client = clientOver(transport, clock);
    const request = {
      method: 'POST' as const,
      path: '/projects/p/branches',
      rules: requestRules('POST')
    };
    const deps = { client, projectId: 'p', clock, random: () => 0.5, log: () => undefined };
    const outcome = await sendRequest(request, clock.now() + 60_000, deps).catch(() => undefined);
    if (outcome?.status === 201) retried.push(status);
  }
  return retried;
}

describe("the answers a request is sent again after (src/neon/send.ts's rules)", () => {
  const CANDIDATES = [400, 401, 403, 404, 408, 409, 410, 422, 423, 425, 429, 500, 502, 503, 504];
  let retried: number[] = [];

  it('are found by sending', async () => {
    retried = await retriedStatuses(CANDIDATES);
    expect(retried).toContain(423);
  });

  it('the request_attempts output names them (action.yml and docs/reference.md copy the row)', () => {
    const description = OUTPUTS.find((o) => o.name === 'request_attempts')?.description ?? '';
    const listed = excerpt(description, /\(([\d, and]+) answers are retried\)/);
    expect((listed.match(/\d+/g) ?? []).map(Number)).toEqual(retried);
  });

  it("docs/request.md's table: the rows that send again are theirs, and only theirs", () => {
    const table = excerpt(
      page('docs/request.md'),
      /\| answer +\| what the step does +\|\n([\s\S]*?)\n\n/
    );
    const sentAgain = table
      .split('\n')
      .map((line) => line.split('|').map((cell) => cell.trim()))
      .filter(([, , does]) => /^sent again/.test(does ?? ''))
      .flatMap(([, answer]) => (answer?.match(/\b\d{3}\b/g) ?? []).map(Number));
    expect([...sentAgain].sort()).toEqual(retried);
  });
});

/** The input error of a `request` alone (unset inputs), or undefined when it is accepted. */
function requestError(request: string): string | undefined {
  try {
    readSettings(
      (name) => ({ api_key: 'k', request })[name] ?? '',
      () => undefined
    );
  } catch (error) {
    if (error instanceof InputError) return error.message;
    throw error;
  }
  return undefined;
}

describe("the request's placeholders", () => {
  // Every input's name tried as a placeholder: those filled say their input is not set.
  const filled = INPUTS.map((row) => row.name).filter(
    (name) => !requestError(`GET /projects/{${name}}`)?.includes('which is not a placeholder')
  );

  it('are some inputs', () => {
    expect(filled).toContain('project_id');
  });

  it('the error for another names them all', () => {
    const message = requestError('GET /projects/{nope}') ?? '';
    expect(
      quoted(excerpt(message, /only (.*) (?:is|are) filled in/).replace(/\{(\w+)\}/g, '`$1`'))
    ).toEqual(filled);
  });

  it('docs/request.md names them all', () => {
    const text = excerpt(
      prose('docs/request.md'),
      /\(`\/projects\/...`\)\. (.*?) (?:is|are) filled in/
    );
    expect(quoted(text)).toEqual(filled);
  });
});

describe("the command's exit codes", () => {
  /** docs/cli.md's table: every code, one row each. */
  const table = [...page('docs/cli.md').matchAll(/^\| (\d+) +\|/gm)].map((m) => Number(m[1]));

  it("the README's list names every code of docs/cli.md's table, in its order", () => {
    const text = excerpt(prose('README.md'), /the exit code says how it ended \((.*?)\)\./);
    expect([...text.matchAll(/(\d+) [a-zA-Z]/g)].map((m) => Number(m[1]))).toEqual(table);
    expect(table).toEqual(expect.arrayContaining([0, 1, 2, 3, 4, 124, 130]));
  });
});
