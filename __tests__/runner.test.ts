import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  appendSummary,
  command,
  escapeData,
  getInput,
  setFailed,
  setOutput
} from '../src/action/runner.js';
import { parseOutputFile } from './helpers/run-action.js';

let dir: string;
let written: string[];
const saved = { ...process.env };

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'runner-test-'));
  written = [];
  jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
});
afterEach(() => {
  jest.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
  process.env = { ...saved };
  process.exitCode = undefined;
});

describe('runner protocol', () => {
  it('reads INPUT_ variables the way the runner names them', () => {
    process.env.INPUT_FAIL_FAST = 'true';
    process.env['INPUT_SOME_NAME'] = 'x';
    expect(getInput('fail_fast')).toBe('true');
    expect(getInput('some name')).toBe('x');
    expect(getInput('missing')).toBe('');
  });

  it('escapes %, CR and LF in command data so a message cannot start another command', () => {
    expect(escapeData('50%\r\n::error::x')).toBe('50%25%0D%0A::error::x');
    command('warning', 'a\nb');
    expect(written).toEqual(['::warning::a%0Ab\n']);
  });

  it('writes outputs as heredocs the runner (and our parser) reads back exactly', () => {
    const file = join(dir, 'out');
    writeFileSync(file, '');
    process.env.GITHUB_OUTPUT = file;
    setOutput('summary', 'line 1\nline 2\n| a | b |');
    setOutput('status', 'finished');
    expect(parseOutputFile(readFileSync(file, 'utf8'))).toEqual({
      summary: 'line 1\nline 2\n| a | b |',
      status: 'finished'
    });
  });

  it('falls back to the stdout form without GITHUB_OUTPUT', () => {
    delete process.env.GITHUB_OUTPUT;
    setOutput('status', 'idle');
    expect(written.join('')).toBe('\n::set-output name=status::idle\n');
  });

  it('appends to the step summary and says when there is none', () => {
    const file = join(dir, 'summary');
    writeFileSync(file, 'before\n');
    process.env.GITHUB_STEP_SUMMARY = file;
    expect(appendSummary('### hi')).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('before\n### hi\n');
    delete process.env.GITHUB_STEP_SUMMARY;
    expect(appendSummary('x')).toBe(false);
  });

  it('fails the step with exit code 1 and an error command', () => {
    setFailed('boom');
    expect(process.exitCode).toBe(1);
    expect(written).toEqual(['::error::boom\n']);
  });
});
