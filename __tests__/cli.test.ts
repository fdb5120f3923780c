import { afterEach, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { xml } from '../src/cli/junit.js';
import { type Stream, Terminal } from '../src/cli/terminal.js';
import type { Operation } from '../src/neon/operation.js';
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
});

describe('the terminal writer', () => {
  it('on a terminal, redraws one status line: elapsed time, operations by status, next check', () => {
    let now = 1_000_000;
    const tty = fakeStream(true);
    terminal = new Terminal(tty, now, () => now);
    terminal.start();
    expect(screen(tty.text)).toEqual(['⏳ 0s · starting · first check']);

    terminal.onCheck([op('running'), op('finished'), op('running'), op()], now + 3000);
    expect(screen(tty.text)).toEqual([
      '⏳ 0s · 2 running, 1 finished, 1 not seen yet · next check in 3s'
    ]);

    now += 2000;
    terminal.info('create_branch 1234abcd running → finished');
    // The log line stays above; the status line is drawn again below it, with the time moved on.
    expect(screen(tty.text)).toEqual([
      'create_branch 1234abcd running → finished',
      '⏳ 2s · 2 running, 1 finished, 1 not seen yet · next check in 1s'
    ]);

    now += 1500;
    terminal.onCheck([op('finished')], now + 9_200);
    expect(screen(tty.text).at(-1)).toBe('⏳ 3s · 1 finished · next check in 10s');

    terminal.stop();
    expect(screen(tty.text).at(-1)).toBe(''); // the status line is gone once the command ends
    const written = tty.text.length;
    terminal.info('Result line');
    expect(tty.text.slice(written)).toBe('Result line\n');
  });

  it('keeps the status line within the terminal width, so that \\r still reaches its start', () => {
    const tty = fakeStream(true, 40);
    terminal = new Terminal(tty, 0, () => 0);
    terminal.start();
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
    terminal.start();
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
