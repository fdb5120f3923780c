import { afterAll, jest } from '@jest/globals';
import * as core from '@actions/core';
import * as github from '@actions/github';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run as runMain } from '../../src/action/main.js';
import { run as runPost } from '../../src/action/post.js';
import { clearSecrets, redact } from '../../src/util/redact.js';
import { type ActionRun, type RunOptions, runnerEnv, runnerFiles, stepRun } from './run-action.js';

/**
 * One step of the action in this process, as `dist/index.js` runs it (`src/util/entry.ts`'s
 * `start`, the real `@actions/core`), with the environment and the runner's files `runAction`
 * gives a spawned run, and the same `ActionRun` back: a test moved here from `__tests__/e2e/`
 * asserts the same things at a fraction of the CPU (no Node start, no bundle to load). What only
 * a spawned run shows stays there: signals, the process's exit, the bundle itself, and one run
 * of each front end that reads the event file from the runner's environment. Real time: the
 * simulator's timelines and the action's polling are the ones a spawned run sees.
 */

/** `@actions/github`'s Context, which its exports do not name: the class of its one `context`. */
const Context = github.context.constructor as new () => typeof github.context;

// `core.summary` keeps the first summary file's path it sees: every run writes to the same one.
const dir = mkdtempSync(join(tmpdir(), 'neon-wait-in-process-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

export async function runInProcess(options: RunOptions): Promise<ActionRun> {
  if (options.signalAfterMs || options.signalWhen || options.killAfterMs)
    throw new Error('signals and a killed step need a spawned run: use runAction');
  const files = runnerFiles(dir, options);
  const savedEnv = process.env;
  process.env = runnerEnv(files, options);
  // `@actions/github` reads the event (GITHUB_EVENT_PATH) once, when a process first imports it:
  // each run here reads its own, as each spawned step does.
  Object.assign(github.context, new Context());
  let stdout = '';
  let stderr = '';
  const out = jest
    .spyOn(process.stdout, 'write')
    .mockImplementation((chunk: string | Uint8Array) => {
      stdout += chunk.toString();
      return true;
    });
  const err = jest
    .spyOn(process.stderr, 'write')
    .mockImplementation((chunk: string | Uint8Array) => {
      stderr += chunk.toString();
      return true;
    });
  core.summary.emptyBuffer();
  const started = Date.now();
  try {
    const work = options.step === 'post' ? runPost : runMain;
    // As `start` does: only a bug reaches here, and fails the step without a stack.
    await work(new AbortController().signal).catch((error: unknown) =>
      core.setFailed(
        `Unexpected failure: ${redact(error instanceof Error ? error.message : String(error))}`
      )
    );
  } finally {
    out.mockRestore();
    err.mockRestore();
    process.env = savedEnv;
    clearSecrets();
  }
  const endedAt = Date.now();
  const code = Number(process.exitCode ?? 0);
  process.exitCode = undefined;
  return stepRun(
    files,
    { code, signal: null, durationMs: endedAt - started, endedAt, signalToExitMs: undefined },
    stdout,
    stderr
  );
}
