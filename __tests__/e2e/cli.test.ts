import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { operation } from '../../simulator/scenario.js';
import type { Simulator } from '../../simulator/server.js';
import { readJunit } from '../helpers/junit.js';
import { NODE, ROOT } from '../helpers/run-action.js';
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

function cli(
  args: string[],
  options: { env?: Record<string, string>; stdin?: string; signalOnStderr?: NodeJS.Signals } = {}
): Promise<Run> {
  const child = spawn(NODE, [command, ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: dir, NEON_API_KEY: DEFAULT_KEY, ...options.env }
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    // A signal once the command has said something: it is running, however slowly it started.
    if (!stderr && options.signalOnStderr) child.kill(options.signalOnStderr);
    stderr += chunk.toString();
  });
  child.stdin.end(options.stdin ?? '');
  const killer = setTimeout(() => child.kill('SIGKILL'), 45_000);
  return new Promise((done) =>
    child.on('close', (code) => {
      clearTimeout(killer);
      done({ code, stdout, stderr });
    })
  );
}

const files = (): { junit: string; summary: string } => {
  const at = mkdtempSync(join(dir, 'run-'));
  return { junit: join(at, 'junit.xml'), summary: join(at, 'summary.md') };
};

/** The JUnit file as a JUnit reader (junit2json) reads it, not as text. */
const parseJunit = (path: string) => readJunit(readFileSync(path, 'utf8'));

const api = (s: Simulator): string[] => ['--api-host', s.url, '--interval', '1s'];

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
      project_id: PROJECT
    });
    expect(typeof result.elapsed_seconds).toBe('number');
    expect((result.operation as { id: string }).id).toBe(create.id);
    expect((result.operations as Array<{ status: string }>).map((o) => o.status)).toEqual([
      'finished',
      'finished'
    ]);
    expect(result).not.toHaveProperty('database_ready');

    const junit = await parseJunit(out.junit);
    expect(junit).toMatchObject({ tests: 2, failures: 0, errors: 0 });
    expect(junit.cases.map((c) => [c.classname, c.name, c.outcome])).toEqual([
      [`neon-operations-wait.${PROJECT}`, 'create_branch', 'passed'],
      [`neon-operations-wait.${PROJECT}`, 'start_compute', 'passed']
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
    const [testcase] = (await parseJunit(out.junit)).cases;
    expect(testcase).toMatchObject({
      outcome: 'failure',
      type: 'error',
      message: 'error (failures_count 3)'
    });
    // Markup arrives intact; a control character XML cannot carry arrives as U+FFFD.
    expect(testcase?.body).toBe(`operation ${op.id}: quota exceeded <&> "x"\uFFFD`);
  });

  it('exit 2: an input error names the flag and sends no request; the JSON result still comes', async () => {
    sim = await simulate([]);
    const run = await cli([...api(sim), '--operation-id', 'not-a-uuid', '--json']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--operation-id must hold operation ids .* 'not-a-uuid' is not one/);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'input_error', timed_out: false });
    expect(sim.requests).toHaveLength(0);

    const unknown = await cli(['--wait-forever']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--wait-forever'");
    const noKey = await cli(['--project-id', PROJECT], { env: { NEON_API_KEY: '' } });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('NEON_API_KEY is not set');
    // A failed `curl … |` leaves stdin empty: never read as "wait until the project is idle".
    const empty = await cli([...api(sim), '--project-id', PROJECT, '--operations', '-']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('--operations: stdin is empty.');
    expect(sim.requests).toHaveLength(0);
  });

  it('exit 3: the key is refused; --api-key works but is discouraged, and never printed', async () => {
    sim = await simulate([]);
    const key = 'napi_refused_0123456789';
    const run = await cli([...api(sim), '--project-id', PROJECT, '--api-key', key, '--json'], {
      env: { NEON_API_KEY: '' }
    });
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'api_error' });
    expect(run.stderr).toContain('--api-key is visible to other processes');
    // The API's refusal names where the key came from here, not the action's input.
    expect(run.stderr).toMatch(/^error: .*NEON_API_KEY/m);
    expect(run.stdout + run.stderr).not.toContain('api_key');
    expect(sim.requests.length).toBeGreaterThan(0);
    expect(run.stdout + run.stderr).not.toContain(key);
  });

  it('exit 3: the API unreachable until the deadline', async () => {
    const server = createServer().listen(0, '127.0.0.1');
    await new Promise((done) => server.once('listening', done));
    const { port } = server.address() as { port: number };
    await new Promise((done) => server.close(done)); // nothing listens there any more
    const run = await cli([
      '--api-host',
      `http://127.0.0.1:${port}/api/v2`,
      '--project-id',
      PROJECT,
      '--timeout',
      '2s',
      '--json'
    ]);
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'timeout', timed_out: true });
    expect(run.stderr).toMatch(/^error: .*ECONNREFUSED/m);
  });

  it('exit 124: the deadline passed (operations from @file); JSON says timed_out, JUnit fails the open operation as timed out', async () => {
    const op = operation(PROJECT, 'create_branch', [[0, 'running']]);
    sim = await simulate([op]);
    const out = files();
    const response = join(dir, 'response.json');
    writeFileSync(response, JSON.stringify({ operations: [sim.render(op)] }));
    const run = await cli([
      ...api(sim),
      '--operations',
      `@${response}`,
      '--timeout',
      '2s',
      '--json',
      '--junit',
      out.junit
    ]);
    expect(run.code).toBe(124);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'timeout', timed_out: true });
    const [testcase] = (await parseJunit(out.junit)).cases;
    expect(testcase).toMatchObject({
      outcome: 'failure',
      type: 'timeout',
      body: 'still running at the deadline (timeout 2s)'
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
      expect(JSON.parse(run.stdout)).toMatchObject({ status: 'aborted', timed_out: false });
      expect((await parseJunit(out.junit)).cases.map((c) => [c.outcome, c.type])).toEqual([
        ['skipped', undefined],
        ['error', 'aborted']
      ]);
      expect(readFileSync(out.summary, 'utf8')).toContain('Neon operations');
    }
  );

  it('exit 0 with --no-wait: one look; JUnit skips what was not awaited', async () => {
    const op = operation(PROJECT, 'create_branch', [[0, 'running']]);
    sim = await simulate([op]);
    const out = files();
    const run = await cli([
      ...api(sim),
      '--project-id',
      PROJECT,
      '--operation-id',
      op.id,
      '--no-wait',
      '--junit',
      out.junit
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^running after /);
    expect(sim.requests).toHaveLength(1);
    expect((await parseJunit(out.junit)).cases[0]).toMatchObject({
      outcome: 'skipped',
      message: 'not awaited (--no-wait); it was running'
    });
  });

  it('reads the database URL from a named variable or a file, never printing its password', async () => {
    sim = await simulate([]);
    const password = 's3cret-Passw0rd';
    const idle = await cli(
      [...api(sim), '--project-id', PROJECT, '--no-wait', '--database-url-env', 'APP_DB', '--json'],
      { env: { APP_DB: `postgresql://app:${password}@127.0.0.1:9/app` } }
    );
    expect(idle.code).toBe(0);
    // The URL was read: the result says the database was not checked (the wait was not awaited).
    expect(JSON.parse(idle.stdout)).toMatchObject({ status: 'idle', database_ready: false });

    const file = join(dir, 'database-url');
    writeFileSync(file, `mysql://app:${password}@db.example.com/app\n`);
    const wrong = await cli([...api(sim), '--project-id', PROJECT, '--database-url-file', file]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(
      /^error: Invalid --database-url: it does not start with postgresql:\/\//m
    );
    const unset = await cli([...api(sim), '--database-url-env', 'NOT_SET_ANYWHERE']);
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain('--database-url-env: NOT_SET_ANYWHERE is not set.');
    for (const run of [idle, wrong, unset]) expect(run.stdout + run.stderr).not.toContain(password);
  });

  it('bundles neither @actions/core nor @actions/github (its licenses file, made from the module list)', () => {
    // dist/cli/licenses.txt names every package of the command's bundle (scripts/licenses.ts; CI
    // checks it against the build), and it is committed: the test needs no earlier build.
    const text = readFileSync(join(ROOT, 'dist', 'cli', 'licenses.txt'), 'utf8');
    const names = [...text.matchAll(/^(@?[^@\s]+)@\S+ \(/gm)].map((m) => m[1]);
    expect(names).toContain('undici');
    expect(names.filter((n) => /^@(actions|octokit)\//.test(n as string))).toEqual([]);
  });

  it('--version prints the version; --help lists every option, the environment and the exit codes', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(await cli(['--version'])).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    // Every option the issue asks for, and the way to pass the database URL off the command line.
    const flags =
      'project-id org-id branch-id operation-id operations timeout interval fail-fast no-wait api-host ' +
      'summary-limit since database-url database-url-file database-url-env json summary-file junit ' +
      'help version api-key';
    for (const flag of flags.split(' '))
      expect(help.stdout).toMatch(new RegExp(`^  --${flag} `, 'm'));
    for (const text of ['NEON_API_KEY', '\n  124 ', '\n  130 ', '\n  3 ', '\n  2 '])
      expect(help.stdout).toContain(text);
  });
});
