import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import {
  closeSync,
  constants,
  cpSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync
} from 'node:fs';
import { readFile } from 'node:fs/promises';
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
  options: {
    env?: Record<string, string>;
    /** What stdin holds; `null` leaves it open, never ending. */
    stdin?: string | null;
    signalOnStderr?: NodeJS.Signals;
    /** With `signalOnStderr`: signal once stderr matches this (by default, at its first line). */
    signalWhen?: RegExp;
    started?: (child: ChildProcess) => void;
  } = {}
): Promise<Run> {
  const child = spawn(NODE, [command, ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: dir, NEON_API_KEY: DEFAULT_KEY, ...options.env }
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  let signalled = false;
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    // A signal once the command has said something: it is running, however slowly it started.
    if (options.signalOnStderr && !signalled && (options.signalWhen ?? /./).test(stderr)) {
      signalled = true;
      child.kill(options.signalOnStderr);
    }
  });
  child.stdin.on('error', () => undefined); // a command that stopped reading closes its stdin
  if (options.stdin !== null) child.stdin.end(options.stdin ?? '');
  options.started?.(child);
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
    const open = operation(PROJECT, 'create_branch', [[0, 'running']], { branch_id: 'br-a-1' });
    sim = await simulate([op, open]);
    const out = files();
    const run = await cli([
      ...api(sim),
      '--project-id',
      PROJECT,
      '--operation-id',
      `${op.id},${open.id}`,
      '--junit',
      out.junit
    ]);

    expect(run.code).toBe(1);
    expect(run.stdout.split('\n')).toHaveLength(2); // one line and its newline
    expect(run.stdout).toMatch(
      /^error after \S+: Operation\(s\) did not succeed: start_compute .*quota exceeded/
    );
    const junit = await parseJunit(out.junit);
    expect(junit).toMatchObject({ tests: 2, failures: 1, errors: 0 });
    const [testcase, cutShort] = junit.cases;
    expect(testcase).toMatchObject({
      outcome: 'failure',
      type: 'error',
      message: 'error (failures_count 3)'
    });
    // The operation still running when the other failed: skipped, with nothing of the other's text.
    expect(cutShort).toEqual({
      classname: `neon-operations-wait.${PROJECT}`,
      name: 'create_branch br-a-1',
      time: expect.any(Number),
      outcome: 'skipped',
      message: 'still running when the wait ended (error)'
    });
    // Markup arrives intact; a control character XML cannot carry arrives as U+FFFD.
    expect(testcase?.body).toBe(`operation ${op.id}: quota exceeded <&> "x"\uFFFD`);
  });

  it('exit 2: an input error names the flag and sends no request; the JSON result still comes', async () => {
    sim = await simulate([]);
    const junit = files().junit;
    const run = await cli([
      ...api(sim),
      '--operation-id',
      'not-a-uuid',
      '--json',
      '--junit',
      junit
    ]);
    expect(run.code).toBe(2);
    // Not an empty suite: one error case, which GitLab shows.
    expect((await parseJunit(junit)).cases).toEqual([
      expect.objectContaining({ name: 'wait', outcome: 'error', type: 'input_error' })
    ]);
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
    expect(unset.stderr).toContain('--database-url-env: NOT_SET_ANYWHERE is unset or empty.');
    // Empty is refused as unset is, and as --database-url "" is: the check is never skipped silently.
    const empty = await cli([...api(sim), '--database-url-env', 'APP_DB'], { env: { APP_DB: '' } });
    expect(empty.stderr).toContain('--database-url-env: APP_DB is unset or empty.');
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
    for (const text of [
      'NEON_API_KEY',
      'NEON_PROJECT_ID',
      'NEON_API_HOST',
      '\n  124 ',
      '\n  130 ',
      '\n  3 ',
      '\n  2 '
    ])
      expect(help.stdout).toContain(text);
  });

  it('reads NEON_PROJECT_ID and NEON_API_HOST when the flags are absent, as neonctl does', async () => {
    const op = operation(PROJECT, 'create_branch', [[0, 'finished']]);
    sim = await simulate([op]);
    const run = await cli(['--operation-id', op.id, '--no-wait', '--json'], {
      env: { NEON_API_HOST: sim.url, NEON_PROJECT_ID: PROJECT }
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'finished', project_id: PROJECT });
    expect(sim.requests.map((r) => r.path)).toEqual([
      `/api/v2/projects/${PROJECT}/operations/${op.id}`
    ]);
  });

  it('exit 3 within half a minute, whatever --timeout: an API host that never answered, named', async () => {
    const server = createServer().listen(0, '127.0.0.1');
    await new Promise((done) => server.once('listening', done));
    const { port } = server.address() as { port: number };
    await new Promise((done) => server.close(done)); // nothing listens there any more
    const run = await cli(['--project-id', PROJECT, '--timeout', '6h', '--json'], {
      env: { NEON_API_HOST: `http://127.0.0.1:${port}/api/v2` }
    });
    expect(run.code).toBe(3);
    const result = JSON.parse(run.stdout) as { status: string; elapsed_seconds: number };
    expect(result.status).toBe('api_error');
    expect(result.elapsed_seconds).toBeLessThanOrEqual(30);
    expect(run.stderr).toContain(
      `error: The API host 127.0.0.1:${port} never answered (network error ECONNREFUSED`
    );
  }, 90_000);

  it('exit 2: an option given empty is refused, never read as "not given"; no request is sent', async () => {
    sim = await simulate([]);
    for (const [flag, value] of [
      ['--operation-id', ''],
      ['--operation-id', ' , '],
      ['--database-url', ''],
      ['--junit', '']
    ] as const) {
      const run = await cli([...api(sim), '--project-id', PROJECT, flag, value]);
      expect([run.code, run.stderr]).toEqual([
        2,
        expect.stringContaining(`error: ${flag} is empty.`)
      ]);
    }
    expect(sim.requests).toHaveLength(0);
  });

  it('reads stdin and FIFOs without blocking: --timeout and SIGINT end a read that never ends', async () => {
    sim = await simulate([]);
    const fifo = join(mkdtempSync(join(dir, 'fifo-')), 'database-url');
    spawnSync('mkfifo', [fifo]);
    let writer: number | undefined;
    // The FIFO has a writer that never writes: SIGINT once the command holds it open to read.
    const run = await cli(
      [...api(sim), '--project-id', PROJECT, '--database-url-file', fifo, '--json'],
      {
        started: (child) => {
          const poll = setInterval(() => {
            try {
              writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
            } catch {
              return; // no reader yet
            }
            clearInterval(poll);
            child.kill('SIGINT');
          }, 20);
        }
      }
    );
    if (writer !== undefined) closeSync(writer);
    expect(run.code).toBe(130);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'aborted' });

    const stdin = await cli([...api(sim), '--operations', '-', '--timeout', '2s'], { stdin: null });
    expect(stdin.code).toBe(2);
    expect(stdin.stderr).toContain(
      'error: --operations: stdin could not be read: nothing came before the --timeout'
    );
    // A --timeout too long for a timer is refused as such, not read as a deadline already past.
    const op = {
      id: '6d9313ca-5fca-4001-bf9b-8b97ef5edb2c',
      project_id: PROJECT,
      action: 'a',
      status: 'running'
    };
    const long = await cli(['--operations', '-', '--timeout', '1000000h'], {
      stdin: JSON.stringify([op])
    });
    expect(long.stderr).toMatch(/^error: --timeout must be a duration from 1s to 6h/m);
    expect(sim.requests).toHaveLength(0);
  });

  it('exit 2: --operations past 4 MiB, from stdin or a file, is refused', async () => {
    const big = JSON.stringify({ operations: [], padding: 'x'.repeat(4 * 1024 * 1024) });
    const file = join(dir, 'big.json');
    writeFileSync(file, big);
    for (const [from, options] of [
      ['-', { stdin: big }],
      [`@${file}`, {}]
    ] as const) {
      const run = await cli(['--operations', from], options);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/^error: --operations: .* holds more than 4 MiB\.$/m);
    }
  });

  it('report files: folders made; a path that cannot be written refused before any request; a failed write fails the run', async () => {
    const op = operation(PROJECT, 'create_branch', [[0, 'finished']]);
    sim = await simulate([op]);
    const at = mkdtempSync(join(dir, 'reports-'));
    const args = [...api(sim), '--project-id', PROJECT, '--operation-id', op.id];
    const made = await cli([...args, '--junit', join(at, 'a', 'b', 'junit.xml')]);
    expect(made.code).toBe(0);
    expect((await parseJunit(join(at, 'a', 'b', 'junit.xml'))).cases).toHaveLength(1);

    sim.requests.length = 0;
    for (const refused of [
      ['--junit', at],
      ['--summary-file', join(at, 'a', 'b', 'junit.xml', 'x.md')]
    ]) {
      const run = await cli([...args, ...refused]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`error: ${refused[0]}: ${refused[1]} cannot be written`);
    }
    expect(sim.requests).toHaveLength(0);

    const full = await cli([...args, '--summary-file', '/dev/full']);
    expect(full.code).toBe(2);
    expect(full.stdout).toMatch(/^finished after /);
    expect(full.stderr).toContain('error: could not write /dev/full: ENOSPC');
  });

  it('a FIFO as --junit: written to its reader; with no reader, SIGTERM still ends the run with its verdict', async () => {
    const op = operation(PROJECT, 'create_branch', [[0, 'finished']]);
    sim = await simulate([op]);
    const fifo = join(mkdtempSync(join(dir, 'fifo-')), 'junit.xml');
    spawnSync('mkfifo', [fifo]);
    const args = [...api(sim), '--project-id', PROJECT, '--operation-id', op.id, '--junit', fifo];
    const read = readFile(fifo, 'utf8');
    expect((await cli(args)).code).toBe(0);
    expect((await readJunit(await read)).cases).toEqual([
      expect.objectContaining({ outcome: 'passed' })
    ]);

    const lonely = await cli(args, {
      signalOnStderr: 'SIGTERM',
      signalWhen: /Waiting for a reader of/
    });
    expect(lonely.code).toBe(130);
    expect(lonely.stdout).toMatch(/^finished after /);
    expect(lonely.stderr).toContain(`error: could not write ${fifo}`);
  });

  it('a 3 MB error text from the API makes a small JUnit file', async () => {
    const error = `compute failed: ${'x'.repeat(3_000_000)}`;
    const op = operation(PROJECT, 'start_compute', [[0, 'error', { failures_count: 1, error }]]);
    sim = await simulate([op]);
    const junit = files().junit;
    const run = await cli([
      ...api(sim),
      '--project-id',
      PROJECT,
      '--operation-id',
      op.id,
      '--junit',
      junit
    ]);
    expect(run.code).toBe(1);
    expect(statSync(junit).size).toBeLessThan(10_000);
    expect((await parseJunit(junit)).cases[0]?.body).toMatch(
      /^operation \S+: compute failed: x+…$/
    );
  });

  it("installs alone from npm pack: a package of its own, no dependencies, the action's version", () => {
    const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    const pkg = JSON.parse(readFileSync(join(dir, 'bin', 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(pkg).toMatchObject({
      name: 'neon-operations-wait',
      version: root.version,
      license: 'MIT',
      type: 'module',
      bin: { 'neon-operations-wait': 'index.js' },
      engines: { node: expect.any(String) }
    });
    expect(pkg).not.toHaveProperty('dependencies');
    const npm = (...args: string[]): string => {
      const run = spawnSync('npm', args, {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, npm_config_cache: join(dir, 'npm-cache') }
      });
      expect(run.stderr).not.toMatch(/ERR!/);
      expect(run.status).toBe(0);
      return run.stdout.trim();
    };
    const packed = JSON.parse(
      npm('pack', join(dir, 'bin'), '--pack-destination', dir, '--json')
    ) as Array<{
      filename: string;
      files: Array<{ path: string }>;
    }>;
    expect(packed[0]?.files.map((f) => f.path).sort()).toEqual(
      expect.arrayContaining(['LICENSE', 'index.js', 'licenses.txt', 'package.json'])
    );
    const prefix = join(dir, 'global');
    npm(
      'install',
      '-g',
      '--offline',
      '--no-audit',
      '--no-fund',
      '--prefix',
      prefix,
      join(dir, packed[0]?.filename ?? '')
    );
    const version = spawnSync(join(prefix, 'bin', 'neon-operations-wait'), ['--version'], {
      encoding: 'utf8'
    });
    expect(version.stdout).toBe(`${root.version}\n`);
  }, 60_000);

  it('npm run simulator prints the lines to paste; its operations start at the first request', async () => {
    const child = spawn(NODE, [join(ROOT, '.build', 'scripts', 'simulator.js')], {
      stdio: ['ignore', 'pipe', 'inherit']
    });
    try {
      let out = '';
      await new Promise<void>((done) =>
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (/^ {2}operations: /m.test(out)) done();
        })
      );
      const env = Object.fromEntries(
        [...out.matchAll(/^ {2}export (\w+)=(\S+)$/gm)].map((m) => [m[1], m[2]])
      );
      expect(Object.keys(env)).toEqual(['NEON_API_KEY', 'NEON_API_HOST', 'NEON_PROJECT_ID']);
      const [, json, command] =
        /^ {2}echo '(.*)' \| node dist\/cli\/index\.js (.*)$/m.exec(out) ?? [];
      const run = await cli([...(command ?? '').split(' '), '--json'], {
        env: env as Record<string, string>,
        stdin: json
      });
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({
        status: 'finished',
        project_id: env.NEON_PROJECT_ID
      });
      // Still in progress when the command first looked: they start at its first request.
      expect(run.stderr).toMatch(/→ finished/);
    } finally {
      child.kill('SIGTERM');
    }
  }, 60_000);
});
