import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { usageError } from '../src/cli/args.js';
import { exitCode, FORMATS, leftBehind } from '../src/cli/result.js';
import { jsonErrorPlace } from '../src/util/json-error.js';
import { xml } from '../src/cli/junit.js';
import { HEARTBEAT_MS, progressStyle, type Stream, Terminal } from '../src/cli/terminal.js';
import type { Operation } from '../src/neon/operation.js';
import type { Report } from '../src/report/model.js';
import { makeReport, type ReportFields } from './helpers/builders.js';
import { clearSecrets, registerSecret } from '../src/util/redact.js';

/** A stream that records what is written, as a terminal (`isTTY`) or a pipe would receive it. */
function fakeStream(isTTY: boolean, columns = 80): Stream & { text: string } {
  const stream = {
    isTTY,
    columns,
    text: '',
    write(chunk: string) {
      stream.text += chunk;
      return true;
    }
  };
  return stream as unknown as Stream & { text: string };
}

/** What a terminal shows: each `\r\x1b[K` clears the line, so only what follows the last one stays. */
function screen(text: string): string[] {
  return text.split('\n').map((line) => line.split('\r\x1b[K').at(-1) as string);
}

const op = (status?: string): Operation => ({ id: 'x', status }) as Operation;

let terminal: Terminal | undefined;
afterEach(() => {
  terminal?.stop();
  clearSecrets();
  jest.useRealTimers();
});

describe('the terminal writer', () => {
  it('on a terminal, redraws one status line: elapsed time, operations by status, next check', () => {
    let now = 1_000_000;
    const tty = fakeStream(true);
    terminal = new Terminal(tty, now, () => now);
    terminal.start('live', now + 600_000);
    expect(screen(tty.text)).toEqual(['⏳ 0s · starting · first check · 10m left']);

    terminal.onCheck([op('running'), op('finished'), op('running'), op()], now + 3000);
    expect(screen(tty.text)).toEqual([
      '⏳ 0s · 2 running, 1 finished, 1 not seen yet · next check in 3s · 10m left'
    ]);

    now += 2000;
    terminal.info('create_branch 1234abcd running → finished');
    // The log line stays above; the status line is drawn again below it, with the time moved on.
    expect(screen(tty.text)).toEqual([
      'create_branch 1234abcd running → finished',
      '⏳ 2s · 2 running, 1 finished, 1 not seen yet · next check in 1s · 9m58s left'
    ]);

    now += 1500;
    terminal.onCheck([op('finished')], now + 9_200);
    expect(screen(tty.text).at(-1)).toBe('⏳ 3s · 1 finished · next check in 10s · 9m57s left');

    terminal.stop();
    expect(screen(tty.text).at(-1)).toBe(''); // the status line is gone once the command ends
    const written = tty.text.length;
    terminal.info('Result line');
    expect(tty.text.slice(written)).toBe('Result line\n');
  });

  it('keeps the status line within the terminal width, so that \\r still reaches its start', () => {
    const tty = fakeStream(true, 40);
    terminal = new Terminal(tty, 0, () => 0);
    terminal.start('live', 60_000);
    terminal.onCheck(
      Array.from({ length: 9 }, (_, i) => op(`status_${i}`)),
      5000
    );
    const line = screen(tty.text).at(-1) as string;
    expect(Array.from(line).length).toBe(39);
    expect(line.endsWith('…')).toBe(true);
  });

  it('elsewhere, writes the plain lines only: no escape sequence, no workflow command, no secret', () => {
    registerSecret('napi_secret_key_1234');
    const pipe = fakeStream(false);
    terminal = new Terminal(pipe, 0, () => 0);
    terminal.start('plain', 60_000);
    terminal.onCheck([op('running')], 5000);
    terminal.info(
      '::error::from the API\n##[warning]x \u001b[31mred\u001b[0m napi_secret_key_1234'
    );
    terminal.warning('careful', 'Title');
    expect(pipe.text).toBe(
      '» ::error::from the API\n## [warning]x  [31mred [0m ***\nwarning: Title: careful\n'
    );
  });
});

describe('progress styles', () => {
  it('piped: plain lines, and a heartbeat (what is pending, time left) after 30s without a line', () => {
    jest.useFakeTimers({ now: 0 });
    const pipe = fakeStream(false);
    terminal = new Terminal(pipe, 0);
    terminal.start('plain', 120_000);
    terminal.info('Waiting for 1 operation(s)');
    terminal.onCheck([op('running'), op('finished')], 5000);
    jest.advanceTimersByTime(HEARTBEAT_MS - 1);
    expect(pipe.text).toBe('Waiting for 1 operation(s)\n');
    jest.advanceTimersByTime(1);
    // Another line restarts the count: the next heartbeat comes 30s after it.
    jest.advanceTimersByTime(10_000);
    terminal.info('create_branch x running → finished');
    jest.advanceTimersByTime(HEARTBEAT_MS);
    expect(pipe.text.split('\n')).toEqual([
      'Waiting for 1 operation(s)',
      'still waiting after 30s · 1 running, 1 finished · checking · 1m30s left',
      'create_branch x running → finished',
      'still waiting after 1m10s · 1 running, 1 finished · checking · 50s left',
      ''
    ]);
    terminal.stop();
    jest.advanceTimersByTime(10 * HEARTBEAT_MS);
    expect(pipe.text.split('\n')).toHaveLength(5);
  });

  it('none (--quiet): errors only', () => {
    const pipe = fakeStream(true);
    terminal = new Terminal(pipe, 0, () => 0);
    terminal.start('none', 60_000);
    terminal.onCheck([op('running')], 5000);
    terminal.info('Waiting');
    terminal.warning('careful');
    terminal.stop();
    terminal.error('Operation(s) did not succeed');
    expect(pipe.text).toBe('error: Operation(s) did not succeed\n');
  });

  it('auto: live only on a terminal that is not dumb, outside CI; a style given forces it', () => {
    expect(progressStyle('', {}, true)).toBe('live');
    expect(progressStyle('auto', {}, false)).toBe('plain');
    for (const env of [
      { TERM: 'dumb' },
      { CI: 'true' },
      { GITLAB_CI: 'true' },
      { CIRCLECI: 'true' }
    ]) {
      expect(progressStyle('', env, true)).toBe('plain');
    }
    for (const name of ['BUILDKITE', 'JENKINS_URL', 'BUILD_ID', 'TF_BUILD', 'TEAMCITY_VERSION']) {
      expect(progressStyle('', { [name]: 'x' }, true)).toBe('plain');
    }
    expect(progressStyle('', { CI: 'false' }, true)).toBe('live');
    expect(progressStyle('live', { CI: 'true' }, false)).toBe('live');
    expect(progressStyle('none', {}, true)).toBe('none');
    expect(() => progressStyle('fancy', {}, true)).toThrow(
      "Input 'progress' must be auto, live, plain or none; got 'fancy'."
    );
  });
});

describe('usage errors', () => {
  const options: ParseArgsOptionsConfig = {
    json: { type: 'boolean' },
    timeout: { type: 'string' }
  };
  const message = (args: string[]): string => {
    try {
      parseArgs({ args, options, strict: true });
    } catch (error) {
      return usageError(error, args, options);
    }
    throw new Error('parsed');
  };

  it('name a stray argument by its position, never quote it (it may be a secret)', () => {
    expect(message(['--timeout', '5m', '--json', 'napi_secret'])).toBe(
      'Argument 4 is not an option (its value is not shown), and --json takes no value: ' +
        'this command takes options only (see --help).'
    );
    expect(message(['postgresql://app:pw@host/db'])).toBe(
      'Argument 1 is not an option (its value is not shown): this command takes options only (see --help).'
    );
    expect(message(['--wait-forever'])).toBe("Unknown option '--wait-forever' (see --help).");
  });
});

describe('the ending', () => {
  const timeout = (failingSince?: number): Report =>
    makeReport({
      startedAt: 1000,
      finishedAt: 61_000,
      status: 'timeout',
      timedOut: true,
      timeoutMs: 60_000,
      failure: 'Still waiting for x (timeout 1m)',
      ...(failingSince !== undefined && { lastError: 'HTTP 503', failingSince })
    });

  it('after a timeout, exit 3 only when the API failed from the first half of the wait to its end', () => {
    expect(exitCode(timeout())).toBe(124);
    expect(exitCode(timeout(60_500))).toBe(124); // one failure in the last second
    expect(exitCode(timeout(31_001))).toBe(124);
    expect(exitCode(timeout(31_000))).toBe(3);
    expect(exitCode(timeout(1000))).toBe(3); // never answered
  });

  it('--json: the typed fields, the exit code, why it ended and the last API error', () => {
    const ending = (report: Report) => ({ report, code: exitCode(report), reasons: [] });
    const result = JSON.parse(FORMATS.json.render(ending(timeout(1000)))) as Record<
      string,
      unknown
    >;
    expect(result).toMatchObject({
      status: 'timeout',
      exit_code: 3,
      message: 'timeout after 1m: Still waiting for x (timeout 1m)',
      last_api_error: 'HTTP 503'
    });
    expect(FORMATS.text.render(ending(timeout()))).toBe(
      'timeout after 1m: Still waiting for x (timeout 1m)\n'
    );
  });
});

describe('JUnit text', () => {
  it('escapes markup and replaces what XML 1.0 cannot carry, as an XML parser reads it back', () => {
    const text = 'a <b> & "c" \'d\'\ttab\nline\u0000\u0007\u001b\ud800 lone \ufffe 😀 end';
    const doc = `<r a="${xml(text)}">${xml(text)}</r>`;
    const parsed = spawnSync(
      'python3',
      [
        '-c',
        'import sys, json, xml.etree.ElementTree as ET\nr = ET.fromstring(sys.stdin.read())\nprint(json.dumps([r.get("a"), r.text]))'
      ],
      { input: doc, encoding: 'utf8' }
    );
    expect(parsed.stderr).toBe('');
    const expected = 'a <b> & "c" \'d\'\ttab\nline\uFFFD\uFFFD\uFFFD\uFFFD lone \uFFFD 😀 end';
    // Attribute and text alike keep tabs and line breaks (an attribute would fold raw ones).
    expect(JSON.parse(parsed.stdout)).toEqual([expected, expected]);
  });
});

describe('where JSON stops being JSON (issue 37 item 3)', () => {
  it('names the line and column, never the text', () => {
    expect(jsonErrorPlace('{"branch": {"name": "preview"}}')).toBeUndefined();
    expect(jsonErrorPlace('{"a": 1,}')).toBe('line 1, column 9');
    expect(jsonErrorPlace('not json')).toBe('line 1, column 2');
    expect(jsonErrorPlace('{"branch": {"name": x}}')).toBe('line 1, column 21');
    expect(jsonErrorPlace('{\n  "a": nul,\n}')).toBe('line 2, column 11');
    expect(jsonErrorPlace('[1, 2]x')).toBe('line 1, column 7');
    expect(jsonErrorPlace('{"a": 1')).toBe('its end');
    expect(jsonErrorPlace('"abc')).toBe('its end');
  });
});

describe('what an interruption or a timeout leaves behind (issue 37 item 4)', () => {
  const open = {
    id: '6d9313ca-5fca-4001-bf9b-8b97ef5edb2c',
    project_id: 'p-1',
    action: 'create_branch',
    status: 'running',
    failures_count: 0,
    created_at: '2026-11-26T10:00:00Z',
    updated_at: '2026-11-26T10:00:01Z'
  };
  const cut = (fields: ReportFields): Report =>
    makeReport({
      startedAt: 1000,
      finishedAt: 61_000,
      status: 'aborted',
      operations: [open],
      request: {
        method: 'POST',
        path: '/projects/p-1/branches',
        status: 201,
        attempts: 1,
        lockedMs: 0,
        holders: [],
        response: { branch: { id: 'br-misty-sun-1a2b3c4d' }, operations: [open] }
      },
      ...fields
    });

  it('names what the request made and what still runs at Neon, and that it goes on there', () => {
    expect(leftBehind(cut({}))).toBe(
      'Left behind: POST /projects/p-1/branches was accepted; its answer names branch ' +
        'br-misty-sun-1a2b3c4d. Still running at Neon, and going on there: create_branch ' +
        '6d9313ca-5fca-4001-bf9b-8b97ef5edb2c (running).'
    );
    expect(leftBehind(cut({ status: 'timeout', timedOut: true }))).toContain('br-misty-sun');
    // Nothing to say when the wait ended, or when no request was accepted.
    expect(leftBehind(cut({ status: 'finished' }))).toBeUndefined();
    expect(leftBehind(cut({ request: undefined }))).toBeUndefined();
  });
});

describe('the progress line during a lock (issue 37 item 6)', () => {
  it('says the project is locked and by what, not "starting · first check"', () => {
    let now = 1_000_000;
    const tty = fakeStream(true);
    terminal = new Terminal(tty, now, () => now);
    terminal.start('live', now + 60_000);
    const sending = {
      method: 'POST',
      path: '/projects/p-1/branches',
      attempts: 1,
      lockedMs: 0
    } as const;
    terminal.onRequest({ ...sending, holders: [] });
    expect(screen(tty.text).at(-1)).toBe('⏳ 0s · sending POST /projects/p-1/branches · 1m left');
    now += 30_000;
    terminal.onRequest({ ...sending, holders: ['create_branch br-quiet-sun-07272eb0'] });
    expect(screen(tty.text).at(-1)).toBe(
      '⏳ 30s · project locked by create_branch br-quiet-sun-07272eb0 · 30s left'
    );
  });
});
