/**
 * Cancellation as the runner does it, and worse: a burst of SIGINTs a few ms apart, then SIGTERM,
 * each sent only once the action has logged its first line (so no test depends on how fast a
 * process starts). Every cancellation ends with the outputs and the summary.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from '@jest/globals';
import { operation } from '../../simulator/scenario.js';
import type { Simulator } from '../../simulator/server.js';
import { actionDefaults, NODE, parseOutputFile, ROOT } from '../helpers/run-action.js';
import { DEFAULT_KEY, PROJECT, simulate } from '../helpers/sim.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

/** Runs dist/index.js and, after its first line of log, sends `signals` `gapMs` apart. */
async function runAndSignal(
  inputs: Record<string, string>,
  signals: NodeJS.Signals[],
  gapMs: number
): Promise<{
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  outputs: Record<string, string>;
  summary: string;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'neon-wait-signals-'));
  const files = {
    output: join(dir, 'output'),
    summary: join(dir, 'summary'),
    state: join(dir, 'state')
  };
  for (const file of Object.values(files)) writeFileSync(file, '');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    GITHUB_ACTIONS: 'true',
    GITHUB_OUTPUT: files.output,
    GITHUB_STEP_SUMMARY: files.summary,
    GITHUB_STATE: files.state,
    GITHUB_EVENT_NAME: 'push'
  };
  for (const [name, value] of Object.entries({ ...actionDefaults(), ...inputs }))
    env[`INPUT_${name.toUpperCase()}`] = value;
  const child = spawn(NODE, [join(ROOT, 'dist', 'index.js')], { env, cwd: dir });
  let stdout = '';
  let sent = false;
  child.stdout.on('data', async (chunk: Buffer) => {
    stdout += chunk.toString();
    const logged = stdout.split('\n').some((line) => line && !line.startsWith('::add-mask::'));
    if (sent || !logged) return;
    sent = true;
    for (const signal of signals) {
      child.kill(signal);
      await new Promise((resolve) => setTimeout(resolve, gapMs));
    }
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((done) =>
    child.on('close', (c, s) => done([c, s]))
  );
  clearTimeout(killer);
  const outputs = parseOutputFile(readFileSync(files.output, 'utf8'));
  const summary = readFileSync(files.summary, 'utf8');
  rmSync(dir, { recursive: true, force: true });
  return { code, signal, stdout, outputs, summary };
}

it('reports the cancellation, outputs and summary, however many signals come', async () => {
  const op = operation(PROJECT, 'create_branch', [[0, 'running']]);
  sim = await simulate([op]);
  const run = await runAndSignal(
    {
      api_key: DEFAULT_KEY,
      api_host: sim.url,
      project_id: PROJECT,
      operation_id: op.id,
      timeout: '20s'
    },
    ['SIGINT', 'SIGINT', 'SIGINT', 'SIGINT', 'SIGINT', 'SIGTERM', 'SIGINT'],
    3
  );
  // The report is out whatever came after it: a signal that lands while the process is already
  // exiting may end it by that signal, which the runner reads as the same failure.
  expect(run.signal === null ? run.code : 1).toBe(1);
  expect(run.outputs.status).toBe('aborted');
  expect(run.outputs.operation).toContain(op.id);
  expect(run.summary).toMatch(/interrupted/);
  expect(run.stdout).toMatch(/::error::Interrupted \(SIGINT or SIGTERM\) while waiting/);
});
