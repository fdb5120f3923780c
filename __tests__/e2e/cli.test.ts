import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { operation } from '../../simulator/scenario.js';
import type { Simulator } from '../../simulator/server.js';
import { NODE, ROOT } from '../helpers/run-action.js';
import { apiFlags, parseJunit, reportFiles } from '../helpers/command.js';
import { DEFAULT_KEY, PROJECT, simulate } from '../helpers/sim.js';

/**
 * The bundled command (dist/cli/), copied alone to a temporary folder, so every run also proves
 * that it needs nothing else: no node_modules, no other file of the repository.
 */
let dir: string;
let command: string;
let sim: Simulator | undefined;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'neon-wait-cli-'));
  cpSync(join(ROOT, 'dist', 'cli'), join(dir, 'bin'), { recursive: true });
  command = join(dir, 'bin', 'index.js');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface CliOptions {
  env?: Record<string, string>;
  stdin?: string;
  signalOnStderr?: NodeJS.Signals;
  /** Each chunk of stderr as it arrives. */
  onStderr?: (chunk: string, child: ChildProcess) => void;
  killAfterMs?: number;
  /** On a pseudo-terminal (util-linux `script`), as CircleCI and Buildkite run a step: stdout then holds all. */
  pty?: boolean;
}

const envOf = (options: CliOptions) => ({
  PATH: process.env.PATH ?? '',
  HOME: dir,
  NEON_API_KEY: DEFAULT_KEY,
  ...options.env
});

function cli(args: string[], options: CliOptions = {}): Promise<Run> {
  const line = [NODE, command, ...args].map((arg) => `'${arg}'`).join(' ');
  const [file, argv] = options.pty
    ? ['script', ['-qefc', line, '/dev/null']]
    : [NODE, [command, ...args]];
  const child = spawn(file, argv, { cwd: dir, env: envOf(options) });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    // A signal once the command has said something: it is running, however slowly it started.
    if (!stderr && options.signalOnStderr) child.kill(options.signalOnStderr);
    stderr += chunk.toString();
    options.onStderr?.(chunk.toString(), child);
  });
  child.stdin.end(options.stdin ?? '');
  const killer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 45_000);
  return new Promise((done) =>
    child.on('close', (code) => {
      clearTimeout(killer);
      done({ code, stdout, stderr });
    })
  );
}

const files = () => reportFiles(dir);
const api = apiFlags;

describe('the command (dist/cli/ alone, as a user runs it)', () => {
  it('exit 0: reads a create-branch response from stdin, prints JSON, writes JUnit and the summary', async () => {
    const create = operation(PROJECT, 'create_branch', [
      [0, 'running'],
      [1500, 'finished']
    ]);
    const start = operation(PROJECT, 'start_compute', [
      [0, 'scheduling'],
      [2200, 'finished']
    ]);
    sim = await simulate([create, start]);
    const response = {
      branch: { id: 'br-new-1' },
      operations: [sim.render(create), sim.render(start)]
    };
    const out = files();
    const run = await cli(
      [
        ...api(sim),
        '--operations',
        '-',
        '--json',
        '--junit',
        out.junit,
        '--summary-file',
        out.summary
      ],
      { stdin: JSON.stringify(response) }
    );

    expect(run.code).toBe(0);
    expect(run.stdout.endsWith('\n')).toBe(true);
    const result = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(result).toMatchObject({
      status: 'finished',
      timed_out: false,
      failures_count: 0,
      project_id: PROJECT,
      exit_code: 0,
      message: expect.stringMatching(/^finished after [\d.]+m?s$/),
      last_api_error: null
    });
    expect(typeof result.elapsed_seconds).toBe('number');
    expect((result.operation as { id: string }).id).toBe(create.id);
    expect((result.operations as Array<{ status: string }>).map((o) => o.status)).toEqual([
      'finished',
      'finished'
    ]);
    expect(result).not.toHaveProperty('database_ready');

    const junit = parseJunit(out.junit);
    expect(junit).toMatchObject({ tests: 2, failures: 0 });
    expect(junit.cases.map((c) => [c.name, c.failure, c.skipped])).toEqual([
      [`create_branch ${create.id}`, null, null],
      [`start_compute ${start.id}`, null, null]
    ]);
    expect(readFileSync(out.summary, 'utf8')).toContain('Neon operations: finished');
    // stderr: the action's plain lines, no workflow command, no escape sequence, never the key.
    expect(run.stderr).toMatch(/^Waiting for 2 operation\(s\) of project /m);
    expect(run.stderr).not.toMatch(/^\s*::/m);
    expect(run.stderr).not.toContain('\u001b');
    expect(run.stdout + run.stderr).not.toContain(DEFAULT_KEY);
  });

  it('exit 1: an operation ended in error; the verdict line and a JUnit failure with its error text', async () => {
    const error = 'quota exceeded <&> "x"\u0001';
    const op = operation(PROJECT, 'start_compute', [
      [0, 'scheduling'],
      [400, 'error', { failures_count: 3, error }]
    ]);
    sim = await simulate([op]);
    const out = files();
    const run = await cli([
      ...api(sim),
      '--project-id',
      PROJECT,
      '--operation-id',
      op.id,
      '--junit',
      out.junit
    ]);

    expect(run.code).toBe(1);
    expect(run.stdout.split('\n')).toHaveLength(2); // one line and its newline
    expect(run.stdout).toMatch(
      /^error after \S+: Operation\(s\) did not succeed: start_compute .*quota exceeded/
    );
    const [testcase] = parseJunit(out.junit).cases;
    expect(testcase?.failure?.type).toBe('error');
    // Markup arrives intact; a control character XML cannot carry arrives as U+FFFD.
    expect(testcase?.failure?.text).toBe(`error (failures_count 3): quota exceeded <&> "x"\uFFFD`);
    const json = await cli([
      ...api(sim),
      '--project-id',
      PROJECT,
      '--operation-id',
      op.id,
      '--json'
    ]);
    expect(JSON.parse(json.stdout)).toMatchObject({
      status: 'error',
      exit_code: 1,
      message: expect.stringMatching(/^error after \S+: Operation\(s\) did not succeed: .*quota/)
    });
  });

  it.each(['SIGINT', 'SIGTERM'] as const)(
    'exit 130: %s stops the wait; the result and the report files are still written',
    async (signal) => {
      const op = operation(PROJECT, 'create_branch', [[0, 'running']]);
      sim = await simulate([op]);
      const out = files();
      const run = await cli(
        [
          ...api(sim),
          '--project-id',
          PROJECT,
          '--operation-id',
          op.id,
          '--timeout',
          '1m',
          '--json'
        ].concat(['--junit', out.junit, '--summary-file', out.summary]),
        { signalOnStderr: signal }
      );
      expect(run.code).toBe(130);
      expect(JSON.parse(run.stdout)).toMatchObject({ status: 'aborted', exit_code: 130 });
      // The command's words, not the action's (a job, its outputs and summary).
      expect(run.stderr).toContain('error: Interrupted (SIGINT or SIGTERM) while waiting;');
      expect(run.stderr).not.toMatch(/job|outputs|summary/);
      expect(parseJunit(out.junit).cases[0]?.failure?.type).toBe('aborted');
      expect(readFileSync(out.summary, 'utf8')).toContain('Neon operations: interrupted');
    }
  );

  it('bundles neither @actions/core nor @actions/github (its licenses file, made from the module list)', () => {
    // dist/cli/licenses.txt names every package of the command's bundle (scripts/licenses.ts; CI
    // checks it against the build), and it is committed: the test needs no earlier build.
    const text = readFileSync(join(ROOT, 'dist', 'cli', 'licenses.txt'), 'utf8');
    const names = [...text.matchAll(/^(@?[^@\s]+)@\S+ \(/gm)].map((m) => m[1]);
    expect(names).toContain('undici');
    expect(names.filter((n) => /^@(actions|octokit)\//.test(n as string))).toEqual([]);
  });

  it('--version runs from the bundle alone', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(await cli(['--version'])).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  });
});

describe('the command in CI logs, pipes and scripts', () => {
  const waitFor = (s: Simulator, id: string): string[] => [
    ...api(s),
    '--project-id',
    PROJECT,
    '--operation-id',
    id
  ];

  it('on a terminal: the live line, unless TERM=dumb, a CI variable or the style variable says plain', async () => {
    const op = operation(PROJECT, 'create_branch', [
      [0, 'running'],
      [1500, 'finished']
    ]);
    sim = await simulate([op]);
    const live = await cli(waitFor(sim, op.id), { pty: true, env: { TERM: 'xterm' } });
    expect(live.code).toBe(0);
    expect(live.stdout).toContain('\r\u001b[K⏳ 0s · ');
    for (const env of [
      { TERM: 'dumb' } as Record<string, string>,
      { TERM: 'xterm', CI: 'true' },
      { TERM: 'xterm', JENKINS_URL: 'https://jenkins.example.com/' },
      { TERM: 'xterm', NEON_OPERATIONS_WAIT_PROGRESS: 'plain' }
    ]) {
      const plain = await cli(waitFor(sim, op.id), { pty: true, env });
      expect(plain.code).toBe(0);
      expect(plain.stdout).toMatch(/^Waiting for 1 operation/m);
      expect(plain.stdout).not.toContain('\u001b');
    }
  });

  it('piped: a heartbeat at least every 30s while nothing changes, saying what is pending and the time left', async () => {
    // Finished 5s after the second heartbeat is due: a late timer cannot reorder them.
    const op = operation(PROJECT, 'create_branch', [
      [0, 'running'],
      [65_000, 'finished']
    ]);
    sim = await simulate([op]);
    const arrivals: number[] = [];
    const run = await cli([...waitFor(sim, op.id), '--interval', '2s', '--timeout', '3m'], {
      killAfterMs: 110_000,
      onStderr: () => arrivals.push(Date.now())
    });
    expect(run.code).toBe(0);
    const beats = run.stderr.split('\n').filter((line) => line.startsWith('still waiting'));
    expect(beats).toHaveLength(2);
    for (const beat of beats)
      expect(beat).toMatch(
        /^still waiting after [\dms]+ · 1 running · next check in \ds · 2m[\ds]* left$/
      );
    const gaps = arrivals.slice(1).map((at, i) => at - (arrivals[i] as number));
    expect(Math.max(...gaps)).toBeLessThan(32_000);
  }, 120_000);

  it('a reader that goes away (| head -n 1) loses that stream only: the wait, the JUnit file and the exit code go on', async () => {
    const op = operation(PROJECT, 'create_branch', [
      [0, 'running'],
      [1000, 'finished']
    ]);
    sim = await simulate([op]);
    const out = files();
    const run = await cli([...waitFor(sim, op.id), '--junit', out.junit], {
      onStderr: (_chunk, child) => {
        child.stdout?.destroy();
        child.stderr?.destroy();
      }
    });
    expect(run.code).toBe(0);
    expect(parseJunit(out.junit).cases.map((c) => c.failure)).toEqual([null]);
  });
});
