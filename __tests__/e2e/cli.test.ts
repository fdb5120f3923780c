import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { operation, project, singleProject } from '../../simulator/scenario.js';
import type { Simulator } from '../../simulator/server.js';
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

const files = (): { junit: string; summary: string } => {
  const at = mkdtempSync(join(dir, 'run-'));
  return { junit: join(at, 'junit.xml'), summary: join(at, 'summary.md') };
};

interface JunitCase {
  name: string;
  failure: { type: string; message: string; text: string } | null;
  skipped: string | null;
}

/** The JUnit file as an XML parser reads it (Python's xml.etree), not as text. */
function parseJunit(path: string): { tests: number; failures: number; cases: JunitCase[] } {
  const script = `
import json, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
cases = []
for c in root.iter('testcase'):
    f, s = c.find('failure'), c.find('skipped')
    cases.append({'name': c.get('name'),
                  'failure': None if f is None else {'type': f.get('type'), 'message': f.get('message'), 'text': f.text},
                  'skipped': None if s is None else s.get('message')})
print(json.dumps({'tests': int(root.get('tests')), 'failures': int(root.get('failures')), 'cases': cases}))`;
  const run = spawnSync('python3', ['-c', script, path], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout);
}

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

    // The one input error found with a request, as the help says: no --project-id, several seen.
    await sim.close();
    const two = { ...singleProject(PROJECT, []), projects: [project(PROJECT), project('other-2')] };
    sim = await simulate(two);
    const discovery = await cli([...api(sim), '--json']);
    expect(discovery.code).toBe(2);
    expect(JSON.parse(discovery.stdout)).toMatchObject({ status: 'input_error', exit_code: 2 });
    expect(sim.requests.map((r) => r.path)).toEqual(['/api/v2/projects']);
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
    expect(JSON.parse(run.stdout)).toMatchObject({
      status: 'timeout',
      timed_out: true,
      exit_code: 3,
      last_api_error: expect.stringContaining('ECONNREFUSED')
    });
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
    const result = JSON.parse(run.stdout) as { message: string };
    expect(result).toMatchObject({ status: 'timeout', timed_out: true, exit_code: 124 });
    // Stopped before 2s when no check fitted: the message says so, not "timed out after 2s".
    expect(result.message).toMatch(
      /^timeout after [\d.]+s: Still waiting for create_branch \S+ \(last status running\): the 2s timeout left no time for another check after the one at [\d.]+s\.$/
    );
    const [testcase] = parseJunit(out.junit).cases;
    expect(testcase?.failure).toMatchObject({
      type: 'timeout',
      text: 'still running at the deadline (timeout 2s)'
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
    expect(parseJunit(out.junit).cases[0]?.skipped).toBe('not awaited (--no-wait); it was running');
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
      'help version api-key progress quiet';
    for (const flag of flags.split(' '))
      expect(help.stdout).toMatch(new RegExp(`^  --${flag} `, 'm'));
    for (const text of ['NEON_API_KEY', '\n  124 ', '\n  130 ', '\n  3 ', '\n  2 '])
      expect(help.stdout).toContain(text);
    expect(help.stdout).toContain(
      '2    usage or input error: no request sent, but for one GET /projects'
    );
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

  it('--quiet: only errors on stderr', async () => {
    const op = operation(PROJECT, 'start_compute', [
      [0, 'scheduling'],
      [300, 'error', { failures_count: 1, error: 'quota exceeded' }]
    ]);
    sim = await simulate([op]);
    const run = await cli([...waitFor(sim, op.id), '--quiet']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error: Operation\(s\) did not succeed: [^\n]*quota exceeded\n$/);
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

  it('a secret passed as a stray argument is never printed: its position is', async () => {
    const key = 'napi_stray_0123456789abcdef';
    const url = 'postgresql://app:s3cret-Passw0rd@db.example.com/app';
    for (const [args, at] of [
      [['--json', key], 2],
      [[url], 1],
      [['--timeout', '5m', url, '--json'], 3]
    ] as const) {
      const run = await cli([...args]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(
        `error: Argument ${at} is not an option (its value is not shown)`
      );
      for (const secret of [key, 's3cret']) expect(run.stdout + run.stderr).not.toContain(secret);
    }
  });

  it('--json: every ending prints one object, usage errors included, with exit_code and message', async () => {
    for (const [args, message] of [
      [['--wait-forever', '--json'], "Unknown option '--wait-forever'"],
      [['--json', '--timeout'], "Option '--timeout <value>' argument missing"],
      [
        ['--json', '--progress', 'fancy'],
        "--progress must be auto, live, plain or none; got 'fancy'"
      ],
      // Read after the settings: the key is known by then, and redacted.
      [
        ['--json', '--progress', DEFAULT_KEY],
        "--progress must be auto, live, plain or none; got '***'"
      ]
    ] as const) {
      const run = await cli([...args]);
      expect(run.code).toBe(2);
      expect(JSON.parse(run.stdout)).toMatchObject({
        status: 'input_error',
        exit_code: 2,
        message: expect.stringContaining(message)
      });
    }
  });

  it.each([503, 429])(
    'exit 124, not 3: the API answered every check, then failed (HTTP %i) near the deadline',
    async (status) => {
      const op = operation(PROJECT, 'create_branch', [[0, 'running']]);
      sim = await simulate([op]);
      sim.inject({ kind: 'status', status }, { times: Infinity, from: 3000 });
      const run = await cli([...waitFor(sim, op.id), '--timeout', '4s', '--json']);
      expect(sim.requests[0]?.status).toBe(200);
      expect(sim.requests.at(-1)?.status).toBe(status);
      expect(run.code).toBe(124);
      expect(JSON.parse(run.stdout)).toMatchObject({
        status: 'timeout',
        exit_code: 124,
        last_api_error: expect.stringContaining(`HTTP ${status}`)
      });
    }
  );
});
