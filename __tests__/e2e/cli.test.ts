import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { type ChildProcess, spawn, spawnSync, type StdioOptions } from 'node:child_process';
import { closeSync, constants, cpSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { operation } from '../../simulator/scenario.js';
import type { Simulator } from '../../simulator/server.js';
import { itLong } from '../helpers/long.js';
import { NODE, ROOT } from '../helpers/run-action.js';
import { apiFlags, parseJunit, reportFiles, waitForFlags } from '../helpers/command.js';
import { readJunit } from '../helpers/junit.js';
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
  /** What stdin holds; `null` leaves it open, never ending. */
  stdin?: string | null;
  signalOnStderr?: NodeJS.Signals;
  /** With `signalOnStderr`: signal once stderr matches this (by default, at its first line). */
  signalWhen?: RegExp;
  started?: (child: ChildProcess) => void;
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
  let signalled = false;
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    // A signal once the command has said something: it is running, however slowly it started.
    if (options.signalOnStderr && !signalled && (options.signalWhen ?? /./).test(stderr)) {
      signalled = true;
      child.kill(options.signalOnStderr);
    }
    options.onStderr?.(chunk.toString(), child);
  });
  child.stdin.on('error', () => undefined); // a command that stopped reading closes its stdin
  if (options.stdin !== null) child.stdin.end(options.stdin ?? '');
  options.started?.(child);
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
      name: 'create_branch',
      time: expect.any(Number),
      outcome: 'skipped',
      message: 'still running when the wait ended (error)',
      properties: { operation_id: open.id, branch_id: 'br-a-1' }
    });
    // Markup arrives intact; a control character XML cannot carry arrives as U+FFFD.
    expect(testcase?.body).toBe(`operation ${op.id}: quota exceeded <&> "x"\uFFFD`);
    const json = await cli([...waitForFlags(sim, op.id), '--json']);
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
        [...waitForFlags(sim, op.id), '--timeout', '1m', '--json'].concat([
          '--junit',
          out.junit,
          '--summary-file',
          out.summary
        ]),
        { signalOnStderr: signal }
      );
      expect(run.code).toBe(130);
      expect(JSON.parse(run.stdout)).toMatchObject({ status: 'aborted', exit_code: 130 });
      // The command's words, not the action's (a job, its outputs and summary).
      expect(run.stderr).toContain('error: Interrupted (SIGINT or SIGTERM) while waiting;');
      expect(run.stderr).not.toMatch(/job|outputs|summary/);
      expect((await parseJunit(out.junit)).cases.map((c) => [c.outcome, c.type])).toEqual([
        ['skipped', undefined],
        ['error', 'aborted']
      ]);
      expect(readFileSync(out.summary, 'utf8')).toContain('Neon operations: interrupted');
    }
  );

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
    expect(stdin.stdout).toContain(
      ': --operations: stdin could not be read: nothing came before the --timeout'
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
    expect(long.stdout).toMatch(/: --timeout must be a duration from 1s to 6h/);
    expect(sim.requests).toHaveLength(0);
  });

  it('a FIFO as --junit: written to its reader; with no reader, SIGTERM still ends the run with its verdict', async () => {
    const op = operation(PROJECT, 'create_branch', [[0, 'finished']]);
    sim = await simulate([op]);
    const fifo = join(mkdtempSync(join(dir, 'fifo-')), 'junit.xml');
    spawnSync('mkfifo', [fifo]);
    const args = [...waitForFlags(sim, op.id), '--junit', fifo];
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
    // As a user runs it (it compiles the scripts itself: a fresh clone has no .build/); its own
    // process group, so that npm and the simulator under it end together.
    const child = spawn('npm', ['run', '--silent', 'simulator'], {
      cwd: ROOT,
      detached: true,
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
      process.kill(-(child.pid as number), 'SIGTERM');
    }
  }, 60_000);

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
  it('on a terminal: the live line, unless TERM=dumb, a CI variable or the style variable says plain', async () => {
    const op = operation(PROJECT, 'create_branch', [
      [0, 'running'],
      [1500, 'finished']
    ]);
    sim = await simulate([op]);
    const live = await cli(waitForFlags(sim, op.id), { pty: true, env: { TERM: 'xterm' } });
    expect(live.code).toBe(0);
    expect(live.stdout).toContain('\r\u001b[K⏳ 0s · ');
    for (const env of [
      { TERM: 'dumb' } as Record<string, string>,
      { TERM: 'xterm', CI: 'true' },
      { TERM: 'xterm', JENKINS_URL: 'https://jenkins.example.com/' },
      { TERM: 'xterm', NEON_OPERATIONS_WAIT_PROGRESS: 'plain' }
    ]) {
      const plain = await cli(waitForFlags(sim, op.id), { pty: true, env });
      expect(plain.code).toBe(0);
      expect(plain.stdout).toMatch(/^Waiting for 1 operation/m);
      expect(plain.stdout).not.toContain('\u001b');
    }
  });

  itLong(
    '[long] piped: a heartbeat at least every 30s while nothing changes, saying what is pending and the time left',
    async () => {
      // Finished 5s after the second heartbeat is due: a late timer cannot reorder them.
      const op = operation(PROJECT, 'create_branch', [
        [0, 'running'],
        [65_000, 'finished']
      ]);
      sim = await simulate([op]);
      const arrivals: number[] = [];
      const run = await cli([...waitForFlags(sim, op.id), '--interval', '2s', '--timeout', '3m'], {
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
    },
    120_000
  );

  it('a reader that goes away (| head -n 1) loses that stream only: the wait, the JUnit file and the exit code go on', async () => {
    const op = operation(PROJECT, 'create_branch', [
      [0, 'running'],
      [1000, 'finished']
    ]);
    sim = await simulate([op]);
    const out = files();
    const run = await cli([...waitForFlags(sim, op.id), '--junit', out.junit], {
      onStderr: (_chunk, child) => {
        child.stdout?.destroy();
        child.stderr?.destroy();
      }
    });
    expect(run.code).toBe(0);
    expect((await parseJunit(out.junit)).cases.map((c) => c.outcome)).toEqual(['passed']);
  });
});

describe('the command on streams it cannot write (issue 30, class 6)', () => {
  /** The command with stdout or stderr on a full disk (/dev/full), the other one a pipe. */
  function onFullDisk(args: string[], full: 'stdout' | 'stderr'): Promise<Run> {
    const disk = openSync('/dev/full', 'w');
    const stdio: StdioOptions =
      full === 'stdout' ? ['ignore', disk, 'pipe'] : ['ignore', 'pipe', disk];
    const child = spawn(NODE, [command, ...args], { cwd: dir, env: envOf({}), stdio });
    closeSync(disk);
    let text = '';
    (full === 'stdout' ? child.stderr : child.stdout)?.on('data', (c: Buffer) => (text += c));
    const killer = setTimeout(() => child.kill('SIGKILL'), 45_000);
    return new Promise((done) =>
      child.on('close', (code) => {
        clearTimeout(killer);
        done(
          full === 'stdout'
            ? { code, stdout: '', stderr: text }
            : { code, stdout: text, stderr: '' }
        );
      })
    );
  }

  it('stderr on a full disk changes nothing: the wait, the result, JUnit and exit 0', async () => {
    const op = operation(PROJECT, 'create_branch', [
      [0, 'running'],
      [1000, 'finished']
    ]);
    sim = await simulate([op]);
    const out = files();
    const run = await onFullDisk(
      [...waitForFlags(sim, op.id), '--junit', out.junit, '--json'],
      'stderr'
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'finished', exit_code: 0 });
    expect((await parseJunit(out.junit)).cases.map((c) => c.outcome)).toEqual(['passed']);
  });

  it('stdout on a full disk: exit 2, said on stderr without a stack trace', async () => {
    const op = operation(PROJECT, 'create_branch', [[0, 'finished']]);
    sim = await simulate([op]);
    const run = await onFullDisk([...waitForFlags(sim, op.id), '--json'], 'stdout');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('error: could not write the result to stdout.');
    expect(run.stderr).not.toMatch(/^\s+at /m);
  });
});

describe('reports to our own streams (issue 36, class 8)', () => {
  it('--junit /dev/stdout under a Node parent (stdout a socket): written there, no wait for a reader', async () => {
    const op = operation(PROJECT, 'create_branch', [[0, 'finished']]);
    sim = await simulate([op]);
    // cli() spawns as execa and zx do: stdio 'pipe', which Node makes a socket pair.
    const run = await cli([...waitForFlags(sim, op.id), '--junit', '/dev/stdout']);
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain('Waiting for a reader');
    const [xmlText, verdict] = run.stdout.split('</testsuites>\n');
    expect((await readJunit(`${xmlText}</testsuites>\n`)).cases).toEqual([
      expect.objectContaining({ name: 'create_branch', outcome: 'passed' })
    ]);
    expect(verdict).toMatch(/^finished after \S+\n$/);
  });
});
