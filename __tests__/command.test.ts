/**
 * The command in-process: `main()` from src/cli/main.ts with its streams, environment and signal
 * given, against the simulator on 127.0.0.1. What only a spawned bundle shows (stdin, signals, the
 * bundle alone) is in e2e/cli.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { startFakeGitHub } from '../simulator/github.js';
import { operation, project, seededBranches, singleProject } from '../simulator/scenario.js';
import { DROP_COLUMN_AND_TABLE } from '../simulator/schema-diffs.js';
import type { Simulator } from '../simulator/server.js';
import { main } from '../src/cli/main.js';
import { itLong } from './helpers/long.js';
import type { Stream } from '../src/cli/terminal.js';
import { clearSecrets, registerSecret } from '../src/util/redact.js';
import { apiFlags, parseJunit, reportFiles, waitForFlags } from './helpers/command.js';
import { ROOT } from './helpers/run-action.js';
import { DEFAULT_KEY, PROJECT, simulate } from './helpers/sim.js';

let dir: string;
let sim: Simulator | undefined;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'neon-wait-command-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  clearSecrets();
});

/** One run of the command: its exit code and what it wrote (stderr as a pipe receives it). */
async function command(
  args: string[],
  options: {
    env?: Record<string, string>;
    stdin?: string;
    signal?: AbortSignal;
    /** A signal after the wait, as the report files are about to be written. */
    signalAfterWait?: boolean;
    /** What writing the result meets (a full disk), else nothing. */
    stdoutError?: NodeJS.ErrnoException;
  } = {}
) {
  let stdout = '';
  let stderr = '';
  const signal = new AbortController();
  options.signal?.addEventListener('abort', () => signal.abort());
  const stderrStream = { isTTY: false, columns: 80, write: (c: string) => (stderr += c) !== '' };
  const write = (chunk: string, done?: (error?: Error | null) => void): boolean => {
    if (!options.stdoutError) stdout += chunk;
    done?.(options.stdoutError);
    return !options.stdoutError;
  };
  const code = await main(args, {
    stdout: { write },
    stderr: stderrStream as unknown as Stream,
    env: { NEON_API_KEY: DEFAULT_KEY, ...options.env },
    signal: signal.signal,
    writing: () => {
      if (options.signalAfterWait) signal.abort();
      return new AbortController().signal;
    },
    stdin: Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)])
  });
  return { code, stdout, stderr };
}

const files = () => reportFiles(dir);
const api = apiFlags;

describe('the command, in-process', () => {
  it('exit 2: an input error names the flag and sends no request; the JSON result still comes', async () => {
    sim = await simulate([]);
    const junit = files().junit;
    const run = await command([
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

    const unknown = await command(['--wait-forever']);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toContain("Unknown option '--wait-forever'");
    const noKey = await command(['--project-id', PROJECT], { env: { NEON_API_KEY: '' } });
    expect(noKey.code).toBe(2);
    expect(noKey.stdout).toContain('NEON_API_KEY is not set');
    // A failed `curl … |` leaves stdin empty: never read as "wait until the project is idle".
    const empty = await command([...api(sim), '--project-id', PROJECT, '--operations', '-']);
    expect(empty.code).toBe(2);
    expect(empty.stdout).toContain('--operations: stdin is empty.');
    expect(sim.requests).toHaveLength(0);

    // The one input error found with a request, as the help says: no --project-id, several seen.
    await sim.close();
    const two = { ...singleProject(PROJECT, []), projects: [project(PROJECT), project('other-2')] };
    sim = await simulate(two);
    const discovery = await command([...api(sim), '--json']);
    expect(discovery.code).toBe(2);
    expect(JSON.parse(discovery.stdout)).toMatchObject({ status: 'input_error', exit_code: 2 });
    expect(sim.requests.map((r) => r.path)).toEqual(['/api/v2/projects']);
  });

  it('exit 3: the key is refused; --api-key works but is discouraged, and never printed', async () => {
    sim = await simulate([]);
    const key = 'napi_refused_0123456789';
    const run = await command([...api(sim), '--project-id', PROJECT, '--api-key', key, '--json'], {
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
    const run = await command([
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
    const run = await command([
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
      /^timeout after [\d.]+s: Still waiting for create_branch \S+ \(last status running\): the 2s timeout left no time for another check after the one at [\d.]+s\. Give it more time with --timeout\.$/
    );
    const [testcase] = (await parseJunit(out.junit)).cases;
    expect(testcase).toMatchObject({
      outcome: 'failure',
      type: 'timeout',
      body: 'still running at the deadline (timeout 2s)'
    });
  });

  it('--compare-schema: the review in --summary-file, schema_destructive and the changes in --json, a JUnit case that fails only with --fail-on-destructive', async () => {
    sim = await simulate({
      keys: { [DEFAULT_KEY]: { kind: 'personal', user: 'user-1' } },
      projects: [project(PROJECT, { owner_id: 'user-1' })],
      operations: [],
      ...seededBranches(PROJECT, [{ name: 'main' }, { name: 'preview/pr-7' }]),
      schemaDiffs: { 'preview/pr-7': DROP_COLUMN_AND_TABLE }
    });
    const branch = seededBranches(PROJECT, [{ name: 'main' }, { name: 'preview/pr-7' }])
      .branches[1]!;
    const review = async (...more: string[]) => {
      const out = files();
      const flags = ['--project-id', PROJECT, '--branch-id', branch.id, '--compare-schema'];
      const args = [...flags, '--json', '--summary-file', out.summary, '--junit', out.junit];
      const run = await command([...api(sim!), ...args, ...more]);
      const cases = (await parseJunit(out.junit)).cases;
      const summary = readFileSync(out.summary, 'utf8');
      return { ...run, summary, review: cases.find((c) => c.name === 'schema review') };
    };
    const told = await review();
    expect(told.code).toBe(0);
    expect(JSON.parse(told.stdout)).toMatchObject({
      status: 'idle',
      schema_changed: true,
      schema_destructive: true,
      destructive_changes: [
        { action: 'drops', kind: 'table', name: 'posts' },
        { action: 'drops', kind: 'column', name: 'users.name' }
      ]
    });
    expect(told.summary).toContain('- ⚠ drops column <code>users.name</code>');
    expect(told.summary).toContain('```diff\n--- a/neondb');
    expect(told.review).toMatchObject({ outcome: 'passed' });

    const gated = await review('--fail-on-destructive');
    expect(gated.code).toBe(1);
    expect(JSON.parse(gated.stdout)).toMatchObject({ status: 'schema_destructive', exit_code: 1 });
    expect(gated.review).toMatchObject({ outcome: 'failure', type: 'schema_destructive' });
  });

  it('--fail-on decides the exit code, the summary, the timeline and JUnit together', async () => {
    const op = operation(PROJECT, 'create_branch', [
      [0, 'running'],
      [500, 'cancelled']
    ]);
    sim = await simulate([op]);
    const run = async (...flags: string[]) => {
      const out = files();
      const args = ['--project-id', PROJECT, '--operation-id', op.id, ...flags];
      const { code } = await command([
        ...api(sim!),
        ...args,
        '--summary-file',
        out.summary,
        '--junit',
        out.junit
      ]);
      const summary = readFileSync(out.summary, 'utf8');
      const [testcase] = (await parseJunit(out.junit)).cases;
      const bar = summary
        .split('\n')
        .find((line) => line.includes('Create branch') && line.includes(' :'));
      return { code, summary, testcase, bar };
    };
    const failing = await run();
    expect(failing.code).toBe(1);
    // Listed as failing under the headline, which says "after" (not "in") the time taken.
    expect(failing.summary).toMatch(/^- 🚫 .*\*\*Create branch\*\* cancelled$/m);
    expect(failing.summary).toMatch(/cancelled · Create branch after /);
    expect(failing.bar).toMatch(/:crit, /);
    expect(failing.testcase).toMatchObject({ outcome: 'failure', type: 'cancelled' });

    const passing = await run('--fail-on', 'error');
    expect(passing.code).toBe(0);
    expect(passing.summary).not.toMatch(/^- 🚫 /m);
    expect(passing.summary).toMatch(/cancelled · Create branch in /);
    expect(passing.bar).toMatch(/:done, /);
    expect(passing.testcase).toMatchObject({
      outcome: 'skipped',
      message: 'cancelled, which fail_on does not count as a failure'
    });
  });

  it("--summary-file's report lists the project's other recent operations (fetched for it)", async () => {
    const op = operation(PROJECT, 'create_branch', [[0, 'finished']]);
    const other = operation(PROJECT, 'suspend_compute', [[0, 'finished']]);
    sim = await simulate([op, other]);
    const out = files();
    const args = waitForFlags(sim, op.id);
    expect((await command([...args, '--summary-file', out.summary])).code).toBe(0);
    expect(readFileSync(out.summary, 'utf8')).toMatch(/Suspend compute/);
  });

  it('exit 0 with --no-wait: one look; JUnit skips what was not awaited', async () => {
    const op = operation(PROJECT, 'create_branch', [[0, 'running']]);
    sim = await simulate([op]);
    const out = files();
    const run = await command([...waitForFlags(sim, op.id), '--no-wait', '--junit', out.junit]);
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
    const idle = await command(
      [...api(sim), '--project-id', PROJECT, '--no-wait', '--database-url-env', 'APP_DB', '--json'],
      { env: { APP_DB: `postgresql://app:${password}@127.0.0.1:9/app` } }
    );
    expect(idle.code).toBe(0);
    // The URL was read: the result says the database was not checked (the wait was not awaited).
    expect(JSON.parse(idle.stdout)).toMatchObject({ status: 'idle', database_ready: false });

    const file = join(dir, 'database-url');
    writeFileSync(file, `mysql://app:${password}@db.example.com/app\n`);
    const wrong = await command([
      ...api(sim),
      '--project-id',
      PROJECT,
      '--database-url-file',
      file
    ]);
    expect(wrong.code).toBe(2);
    expect(wrong.stdout).toMatch(
      /^input_error after \S+: Invalid --database-url: it does not start with postgresql:\/\//m
    );
    const unset = await command([...api(sim), '--database-url-env', 'NOT_SET_ANYWHERE']);
    expect(unset.code).toBe(2);
    expect(unset.stdout).toContain('--database-url-env: NOT_SET_ANYWHERE is unset or empty.');
    // Empty is refused as unset is, and as --database-url "" is: the check is never skipped silently.
    const empty = await command([...api(sim), '--database-url-env', 'APP_DB'], {
      env: { APP_DB: '' }
    });
    expect(empty.stdout).toContain('--database-url-env: APP_DB is unset or empty.');
    for (const run of [idle, wrong, unset]) expect(run.stdout + run.stderr).not.toContain(password);
  });

  it('--version prints the version; --help lists every option, the environment and the exit codes', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(await command(['--version'])).toEqual({
      code: 0,
      stdout: `${pkg.version}\n`,
      stderr: ''
    });
    const help = await command(['--help']);
    expect(help.code).toBe(0);
    // Every option the issue asks for, and the way to pass the database URL off the command line.
    const flags =
      'project-id org-id branch-id operation-id operations timeout interval fail-fast no-wait api-host ' +
      'summary-limit since database-url database-url-file database-url-env json summary-file junit ' +
      'help version api-key progress quiet';
    for (const flag of flags.split(' '))
      expect(help.stdout).toMatch(new RegExp(`^  (-\\w, )?--${flag} `, 'm'));
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
    expect(help.stdout).toContain(
      '2    usage or input error: no request sent, but for one GET /projects'
    );
  });

  it('reads NEON_PROJECT_ID and NEON_API_HOST when the flags are absent, as neonctl does', async () => {
    const op = operation(PROJECT, 'create_branch', [[0, 'finished']]);
    sim = await simulate([op]);
    const run = await command(['--operation-id', op.id, '--no-wait', '--json'], {
      env: { NEON_API_HOST: sim.url, NEON_PROJECT_ID: PROJECT }
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'finished', project_id: PROJECT });
    // No GET /projects to find it: every request is the given project's, on the given host.
    expect(sim.requests.length).toBeGreaterThan(0);
    for (const { path } of sim.requests) expect(path).toMatch(`/api/v2/projects/${PROJECT}/`);
  });

  itLong(
    '[long] exit 3 within half a minute, whatever --timeout: an API host that never answered, named',
    async () => {
      const server = createServer().listen(0, '127.0.0.1');
      await new Promise((done) => server.once('listening', done));
      const { port } = server.address() as { port: number };
      await new Promise((done) => server.close(done)); // nothing listens there any more
      const run = await command(['--project-id', PROJECT, '--timeout', '6h', '--json'], {
        env: { NEON_API_HOST: `http://127.0.0.1:${port}/api/v2` }
      });
      expect(run.code).toBe(3);
      const result = JSON.parse(run.stdout) as { status: string; elapsed_seconds: number };
      expect(result.status).toBe('api_error');
      expect(result.elapsed_seconds).toBeLessThanOrEqual(30);
      expect(run.stderr).toContain(
        `error: The API host 127.0.0.1:${port} never answered (network error ECONNREFUSED`
      );
    },
    90_000
  );

  it('exit 2: an option given empty is refused, never read as "not given"; no request is sent', async () => {
    sim = await simulate([]);
    for (const [flag, value] of [
      ['--operation-id', ''],
      ['--operation-id', ' , '],
      ['--fail-on', ','],
      ['--fail-on', ' , '],
      ['--database-url', ''],
      ['--junit', '']
    ] as const) {
      const run = await command([...api(sim), '--project-id', PROJECT, flag, value]);
      expect([run.code, run.stdout]).toEqual([2, expect.stringContaining(`: ${flag} is empty.`)]);
    }
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
      const run = await command(['--operations', from], options);
      expect(run.code).toBe(2);
      expect(run.stdout).toMatch(/: --operations: .* holds more than 4 MiB\.$/m);
    }
  });

  it('report files: folders made; a path that cannot be written refused before any request; a failed write fails the run', async () => {
    const op = operation(PROJECT, 'create_branch', [[0, 'finished']]);
    sim = await simulate([op]);
    const at = mkdtempSync(join(dir, 'reports-'));
    const args = waitForFlags(sim, op.id);
    const made = await command([...args, '--junit', join(at, 'a', 'b', 'junit.xml')]);
    expect(made.code).toBe(0);
    expect((await parseJunit(join(at, 'a', 'b', 'junit.xml'))).cases).toHaveLength(1);

    sim.requests.length = 0;
    for (const refused of [
      ['--junit', at],
      ['--summary-file', join(at, 'a', 'b', 'junit.xml', 'x.md')]
    ]) {
      const run = await command([...args, ...refused]);
      expect(run.code).toBe(2);
      expect(run.stdout).toContain(`: ${refused[0]}: ${refused[1]} cannot be written`);
    }
    expect(sim.requests).toHaveLength(0);

    const full = await command([...args, '--summary-file', '/dev/full']);
    expect(full.code).toBe(2);
    expect(full.stdout).toMatch(/^finished after /);
    expect(full.stderr).toContain('error: could not write /dev/full: ENOSPC');
  });

  it('a 3 MB error text from the API makes a small JUnit file', async () => {
    const error = `compute failed: ${'x'.repeat(3_000_000)}`;
    const op = operation(PROJECT, 'start_compute', [[0, 'error', { failures_count: 1, error }]]);
    sim = await simulate([op]);
    const junit = files().junit;
    const run = await command([...waitForFlags(sim, op.id), '--junit', junit]);
    expect(run.code).toBe(1);
    expect(statSync(junit).size).toBeLessThan(10_000);
    expect((await parseJunit(junit)).cases[0]?.body).toMatch(
      /^operation \S+: compute failed: x+…$/
    );
  });

  it("names inputs in its own words, and leaves the API's words as they are", async () => {
    sim = await simulate([]);
    sim.inject({ kind: 'status', status: 400, message: 'invalid branch_id br-x' }, { times: 1 });
    const bad = await command([...api(sim), '--project-id', PROJECT]);
    expect(bad.code).toBe(3);
    expect(bad.stdout).toMatch(/: HTTP 400: invalid branch_id br-x/m);

    sim.inject({ kind: 'redirect', location: 'https://elsewhere.example/api' }, { times: 1 });
    const moved = await command([...api(sim), '--project-id', PROJECT]);
    expect(moved.code).toBe(3);
    expect(moved.stdout).toMatch(/sent only to the API host\. Check --api-host\.$/m);
    expect(moved.stdout + moved.stderr).not.toMatch(/api_host|input '/);
  });
});

describe('the command and its reports, hardened (issue 30, classes 6 to 15)', () => {
  const finishedOp = () => operation(PROJECT, 'create_branch', [[0, 'finished']]);
  const awaiting = (op: { id: string }) => ['--project-id', PROJECT, '--operation-id', op.id];

  it('class 6: a result that cannot be written exits 2 and says so on stderr', async () => {
    const op = finishedOp();
    sim = await simulate([op]);
    const stdoutError = Object.assign(new Error('ENOSPC: no space left on device'), {
      code: 'ENOSPC'
    });
    const run = await command([...api(sim), ...awaiting(op), '--json'], { stdoutError });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('error: could not write the result to stdout.');
  });

  it('class 7: a short password never rewrites the JSON keys or the JUnit markup', async () => {
    const op = finishedOp();
    sim = await simulate([op]);
    for (const secret of ['test', 'time', 'name', 'wait']) registerSecret(secret);
    const junit = files().junit;
    const run = await command([...api(sim), ...awaiting(op), '--json', '--junit', junit]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'finished', timed_out: false });
    expect(readFileSync(junit, 'utf8')).toMatch(/^<\?xml [^\n]*\n<testsuites name=/);
    expect((await parseJunit(junit)).cases).toHaveLength(1);
  });

  it('classes 8 and 9: a signal after the wait is exit 130, and the result says why', async () => {
    const op = finishedOp();
    sim = await simulate([op]);
    const run = await command([...api(sim), ...awaiting(op), '--json'], { signalAfterWait: true });
    expect(run.code).toBe(130);
    expect(JSON.parse(run.stdout)).toMatchObject({
      status: 'finished',
      exit_code: 130,
      message: expect.stringMatching(/^finished after \S+; exit 130: interrupted/) as unknown
    });
  });

  it('a signal while an applied create awaits its answer: exit 130, and the POST may have been applied (issue 44 item 14)', async () => {
    sim = await simulate([]);
    const simulator = sim;
    simulator.inject(
      { kind: 'hang-after-apply' },
      { method: 'POST', match: '/branches', times: 1 }
    );
    const signal = new AbortController();
    // The signal comes once the create is applied: its answer never comes.
    const applied = setInterval(() => {
      if (simulator.branches(PROJECT).some((b) => b.name === 'preview/pr-1')) signal.abort();
    }, 5);
    const create = [...api(sim), '--project-id', PROJECT, '--create-branch', 'preview/pr-1'];
    const run = await command([...create, '--json'], { signal: signal.signal }).finally(() =>
      clearInterval(applied)
    );
    expect(run.code).toBe(130);
    expect(JSON.parse(run.stdout)).toMatchObject({
      status: 'aborted',
      message: expect.stringMatching(
        /^aborted after \S+: Interrupted \(SIGINT or SIGTERM\) while waiting; the result shows what was seen until then\. The request POST \/projects\/\S+\/branches was sent and its answer had not come: it may have been applied\. Check the project's operations and branches /
      ) as unknown
    });
  });

  it('class 9: a report not written (exit 2) is named in the verdict line and the message', async () => {
    const op = finishedOp();
    sim = await simulate([op]);
    const line = await command([...api(sim), ...awaiting(op), '--junit', '/dev/full']);
    expect(line.code).toBe(2);
    expect(line.stdout).toMatch(/^finished after \S+; exit 2: \/dev\/full not written\n$/);
    const json = await command([...api(sim), ...awaiting(op), '--junit', '/dev/full', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      exit_code: 2,
      message: expect.stringContaining('exit 2: /dev/full not written') as unknown
    });
  });

  it('classes 10 to 12: JUnit always has a case, an undescribed operation is named by its id, names are cut', async () => {
    sim = await simulate([]);
    const idle = files().junit;
    expect((await command([...api(sim), '--project-id', PROJECT, '--junit', idle])).code).toBe(0);
    expect((await parseJunit(idle)).cases).toEqual([
      expect.objectContaining({ name: 'wait', outcome: 'passed' })
    ]);
    await sim.close();

    const bare = operation(PROJECT, '', [[0, 'finished']]);
    const huge = operation(PROJECT, 'create_branch', [[0, 'finished']], {
      branch_id: `br-${'x'.repeat(1_000_000)}`
    });
    sim = await simulate([bare, huge]);
    const junit = files().junit;
    const ids = ['--operation-id', `${bare.id},${huge.id}`];
    const run = await command([...api(sim), '--project-id', PROJECT, ...ids, '--junit', junit]);
    expect(run.code).toBe(0);
    expect(statSync(junit).size).toBeLessThan(10_000);
    const cases = (await parseJunit(junit)).cases;
    expect(cases.map((c) => c.name)).toEqual(['operation', 'create_branch']);
    expect(cases[0]?.properties).toMatchObject({ operation_id: bare.id });
    expect(cases[1]?.properties?.branch_id).toMatch(/^br-x+…$/);
  });

  it('class 13: --json stays bounded whatever the shape of the operation', async () => {
    const op = operation(PROJECT, 'create_branch', [[0, 'finished']], {
      extra: { samples: Array.from({ length: 400_000 }, (_, i) => i) }
    });
    sim = await simulate([op]);
    const run = await command([...api(sim), ...awaiting(op), '--json']);
    expect(run.code).toBe(0);
    expect(run.stdout.length).toBeLessThan(1_100_000);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'finished', exit_code: 0 });
  });

  it('class 14: --operations @ (an empty file name) is an input error; stdin is not read', async () => {
    const op = finishedOp();
    sim = await simulate([op]);
    const stdin = JSON.stringify({ operations: [sim.render(op)] });
    const run = await command([...api(sim), '--operations', '@'], { stdin });
    expect(run.code).toBe(2);
    expect(run.stdout).toContain('--operations @ names no file');
    expect(sim.requests).toHaveLength(0);
  });

  it('class 15: --summary-file appends, as to $GITHUB_STEP_SUMMARY, losing nothing written before', async () => {
    const op = finishedOp();
    sim = await simulate([op]);
    const summary = files().summary;
    writeFileSync(summary, '## An earlier step\n\n');
    const run = await command([...api(sim), ...awaiting(op), '--summary-file', summary]);
    expect(run.code).toBe(0);
    const text = readFileSync(summary, 'utf8');
    expect(text).toMatch(/^## An earlier step\n\n### /);
  });
});

describe('the command in CI logs and scripts, in-process', () => {
  it('--quiet: only errors on stderr', async () => {
    const op = operation(PROJECT, 'start_compute', [
      [0, 'scheduling'],
      [300, 'error', { failures_count: 1, error: 'quota exceeded' }]
    ]);
    sim = await simulate([op]);
    const run = await command([...waitForFlags(sim, op.id), '--quiet']);
    expect(run.code).toBe(1);
    // The verdict line says the error: stderr does not say it again.
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(
      /^error after \S+: Operation\(s\) did not succeed: [^\n]*quota exceeded\n$/
    );
    const json = await command([...waitForFlags(sim, op.id), '--quiet', '--json']);
    expect(json.stderr).toMatch(/^error: Operation\(s\) did not succeed: [^\n]*quota exceeded\n$/);
  });

  it('a secret passed as a stray argument is never printed: its position is', async () => {
    const key = 'napi_stray_0123456789abcdef';
    const url = 'postgresql://app:s3cret-Passw0rd@db.example.com/app';
    for (const [args, at] of [
      [['--json', key], 2],
      [[url], 1],
      [['--timeout', '5m', url, '--json'], 3]
    ] as const) {
      const run = await command([...args]);
      expect(run.code).toBe(2);
      expect(run.stdout).toContain(`: Argument ${at} is not an option (its value is not shown)`);
      for (const secret of [key, 's3cret']) expect(run.stdout + run.stderr).not.toContain(secret);
    }
  });

  it('--json: every ending prints one object, usage errors included, with exit_code and message', async () => {
    for (const [args, message] of [
      [['--wait-forever', '--json'], "Unknown option '--wait-forever'"],
      [['--json', '--timeout'], "--timeout <value>' argument missing"],
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
      const run = await command([...args]);
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
      const run = await command([...waitForFlags(sim, op.id), '--timeout', '4s', '--json']);
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

  it('--progress, else its variable: none writes errors only, whatever the variable', async () => {
    const op = operation(PROJECT, 'create_branch', [[0, 'finished']]);
    sim = await simulate([op]);
    const env = { NEON_OPERATIONS_WAIT_PROGRESS: 'none' };
    expect((await command(waitForFlags(sim, op.id), { env })).stderr).toBe('');
    const plain = await command([...waitForFlags(sim, op.id), '--progress', 'plain'], { env });
    expect(plain.stderr).toMatch(/^Waiting for 1 operation/m);
    const wrong = await command(waitForFlags(sim, op.id), {
      env: { NEON_OPERATIONS_WAIT_PROGRESS: 'x' }
    });
    expect(wrong.code).toBe(2);
    expect(wrong.stdout).toContain("--progress must be auto, live, plain or none; got 'x'.");
  });
});

describe('the first ten minutes (issue 37)', () => {
  /** How often `text` appears in what a CI log shows: stdout and stderr merged. */
  const times = (run: { stdout: string; stderr: string }, text: string): number =>
    (run.stdout + run.stderr).split(text).length - 1;

  it('item 2: each error is said once in a CI log (stdout and stderr merged); an unknown flag names the one meant', async () => {
    sim = await simulate([]);
    const typo = await command(['--projcet-id', 'x']);
    expect(typo.code).toBe(2);
    expect(typo.stdout).toMatch(
      /^input_error after \S+: Unknown option '--projcet-id': did you mean --project-id\? \(see --help\)\n$/
    );
    expect(times(typo, 'Unknown option')).toBe(1);
    const duration = await command([...api(sim), '--timeout', '5q']);
    expect(duration.code).toBe(2);
    expect(times(duration, "'5q' is not a duration")).toBe(1);
    const key = await command([...api(sim), '--project-id', PROJECT], {
      env: { NEON_API_KEY: 'napi_refused_0123456789' }
    });
    expect(key.code).toBe(3);
    expect(times(key, 'NEON_API_KEY')).toBe(1);
    const project = await command([...api(sim), '--project-id', 'wrong-project-123456']);
    expect(project.code).toBe(3);
    expect(times(project, 'wrong-project-123456 was not found')).toBe(1);
    // With --json, stdout is data: stderr says the error in words, once.
    const json = await command(['--projcet-id', 'x', '--json']);
    expect(json.stderr.split('\n').filter((l) => l.includes('Unknown option'))).toHaveLength(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 'input_error', exit_code: 2 });
  });

  it('item 2: the format asked for holds for a usage error too (--format json, not only --json)', async () => {
    const run = await command(['--format', 'json', '--wait-forever']);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'input_error', exit_code: 2 });
    const wrong = await command(['--format', 'xml']);
    expect(wrong.code).toBe(2);
    expect(wrong.stdout).toMatch(
      /^input_error after \S+: --format must be text or json; got 'xml'/
    );
  });

  it('item 1: --help in groups, with examples of the four common uses, short names and links to docs/reference.md and docs/cli.md', async () => {
    const { stdout: help } = await command(['--help']);
    const headings = help.split('\n').filter((line) => /^[A-Z].*:$/.test(line));
    expect(headings).toEqual([
      'What to wait for (operation ids, else the branch, else the project until idle):',
      'The request (sent first; then its operations are waited for):',
      'Deadlines and verdict:',
      'Output:',
      'Database (checked after a successful wait):',
      'The API:',
      'About:',
      'JSON fields (--format json):',
      'Environment:',
      'Exit codes:',
      'Examples:'
    ]);
    for (const use of ['--operations -', '--request ', '--branch-id br-', '--database-url-env'])
      expect(help.slice(help.indexOf('Examples:'))).toContain(use);
    expect(help).toContain('docs/reference.md');
    expect(help).toContain('docs/cli.md');
    // Each flag's words stand apart from its name, and say what the command does.
    expect(help).toMatch(/^ {2}NEON_OPERATIONS_WAIT_PROGRESS\n {28}instead of --progress$/m);
    expect(help).not.toMatch(/since since|the step|\(--json fields\)/);
    expect(help).toMatch(/^ {2}-t, --timeout DURATION /m);
    expect(help.split('\n').filter((line) => line.length > 80)).toEqual([]);
    // The short names work as the long ones do.
    const short = await command(['-t', '5q', '-o', 'json']);
    expect(JSON.parse(short.stdout)).toMatchObject({
      status: 'input_error',
      message: expect.stringContaining('--timeout must be a duration') as unknown
    });
  });

  it('item 3: messages one step further: where the body stops being JSON, the API error piped in, where keys are made, how to give more time, no wait line with --no-wait', async () => {
    const op = operation(PROJECT, 'create_branch', [[0, 'finished']]);
    sim = await simulate([op]);
    const post = ['--request', 'POST /projects/{project_id}/branches'];
    const body = await command([
      ...api(sim),
      '--project-id',
      PROJECT,
      ...post,
      '--body',
      '{"a": hunter2}'
    ]);
    expect(body.stdout).toContain(
      '--body must be JSON; it is not valid JSON, from line 1, column 7.'
    );
    expect(body.stdout + body.stderr).not.toContain('hunter2');
    const piped = await command([...api(sim), '--operations', '-'], {
      stdin: '{"code": "", "message": "project not found"}'
    });
    expect(piped.code).toBe(2);
    expect(piped.stdout).toContain(
      'holds an error the API answered, not operations: project not found'
    );
    const noKey = await command(['--project-id', PROJECT], { env: { NEON_API_KEY: '' } });
    expect(noKey.stdout).toContain(
      'Neon console: Account settings, or Organization settings, then API keys'
    );
    const look = await command([...api(sim), '--project-id', PROJECT, '--no-wait']);
    expect(look.code).toBe(0);
    expect(look.stderr).not.toContain('Waiting until');
    // After a request, the wait has what is left of the deadline, and says so.
    const sent = await command([...api(sim), '--project-id', PROJECT, ...post, '--body', '{}']);
    expect(sent.code).toBe(0);
    expect(sent.stderr).toMatch(/^Waiting for \d+ operation.*\(\S+ left\)\.$/m);
    expect(sent.stderr).not.toMatch(/\(timeout /);
  });
});

describe('--dotenv (issue 44, items 8, 13 and 17)', () => {
  /** What bash reads from the file: sourced with `set -a`, and as `$BASH_ENV` (what it exports). */
  const sourced = (file: string) => {
    const script = 'printf "%s\\n" "$DATABASE_URL" "$DATABASE_URL_POOLED" "$PGUSER"';
    // stdin not a socket (Node's pipes are): bash would take itself for sshd's and read ~/.bashrc.
    const bash = (args: string[], env: Record<string, string> = {}) =>
      spawnSync('bash', args, {
        encoding: 'utf8',
        env: { PATH: process.env.PATH, ...env },
        stdio: ['ignore', 'pipe', 'pipe']
      }).stdout;
    return {
      setA: bash(['-c', `set -a; . "$1"; ${script}`, '_', file]),
      exported: bash(['-c', script], { BASH_ENV: file })
    };
  };

  it('a shell that sources the file reads the URL whole, & included; --dotenv-format gitlab writes it bare', async () => {
    sim = await simulate([]);
    const at = mkdtempSync(join(dir, 'dotenv-'));
    const shellFile = join(at, 'branch.env');
    const made = await command([
      ...api(sim),
      '--project-id',
      PROJECT,
      '--create-branch',
      'preview/pr-42',
      '--dotenv',
      shellFile
    ]);
    expect(made.code).toBe(0);
    const gitlabFile = join(at, 'gitlab.env');
    const again = await command([
      ...api(sim),
      '--project-id',
      PROJECT,
      '--create-branch',
      'preview/pr-42',
      '--dotenv',
      gitlabFile,
      '--dotenv-format',
      'gitlab'
    ]);
    expect(again.code).toBe(0);
    // GitLab's reader: KEY=value, one a line, the value as written (it keeps quotes).
    const gitlab = Object.fromEntries(
      readFileSync(gitlabFile, 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)])
    );
    expect(gitlab.DATABASE_URL).toMatch(/^postgresql:\/\/[^']*&channel_binding=require$/);
    const expected = `${gitlab.DATABASE_URL}\n${gitlab.DATABASE_URL_POOLED}\n${gitlab.PGUSER}\n`;
    const read = sourced(shellFile);
    expect(read.setA).toBe(expected);
    expect(read.exported).toBe(expected);
  });

  it('refused before any request without --create-branch: there is no connection to write', async () => {
    const op = operation(PROJECT, 'create_branch', [[0, 'finished']]);
    sim = await simulate([op]);
    const file = join(mkdtempSync(join(dir, 'dotenv-')), 'branch.env');
    const run = await command([...waitForFlags(sim, op.id), '--dotenv', file]);
    expect(run.code).toBe(2);
    expect(run.stdout).toContain(
      '--dotenv writes the connection of the branch --create-branch makes or reuses; without --create-branch there is none to write.'
    );
    expect(sim.requests).toHaveLength(0);
  });

  it('its folders are made, and a path that cannot be written is refused, before any request', async () => {
    sim = await simulate([]);
    const at = mkdtempSync(join(dir, 'dotenv-'));
    const create = [
      ...api(sim),
      '--project-id',
      PROJECT,
      '--no-wait',
      '--create-branch',
      'preview/pr-7'
    ];
    const deep = join(at, 'a', 'b', 'branch.env');
    expect((await command([...create, '--dotenv', deep])).code).toBe(0);
    expect(readFileSync(deep, 'utf8')).toMatch(/^export DATABASE_URL='postgresql:/);

    sim.requests.length = 0;
    const underAFile = join(deep, 'x.env');
    const refused = await command([...create, '--dotenv', underAFile]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toContain(`: --dotenv: ${underAFile} cannot be written`);
    expect(sim.requests).toHaveLength(0);
  });
});

describe('--sweep-branches (issue 43, item 6)', () => {
  it('reads pull requests with GITHUB_TOKEN and GITHUB_REPOSITORY where GITHUB_API_URL says; --json and JUnit carry every matching branch', async () => {
    const token = 'ghs_command_sweep';
    const gh = await startFakeGitHub(
      { [token]: { author: 'github-actions[bot]' } },
      { 1: { state: 'merged' }, 2: { state: 'open' } }
    );
    try {
      sim = await simulate(
        {
          ...singleProject(PROJECT, []),
          ...seededBranches(PROJECT, [
            { name: 'main' },
            { name: 'preview/pr-1' },
            { name: 'preview/pr-2' },
            { name: 'preview/pr-3', protected: true }
          ])
        },
        { operationMs: 200 }
      );
      const junit = files().junit;
      const env = {
        GITHUB_TOKEN: token,
        GITHUB_REPOSITORY: 'octo-org/octo-repo',
        GITHUB_API_URL: gh.url
      };
      const run = await command(
        [
          ...api(sim),
          '--project-id',
          PROJECT,
          '--sweep-branches',
          'preview/pr-{pr}',
          '--json',
          '--junit',
          junit
        ],
        { env }
      );
      expect(run.code).toBe(0);
      const result = JSON.parse(run.stdout) as Record<string, unknown>;
      expect(result.swept).toEqual([
        { id: expect.any(String), name: 'preview/pr-1', reason: 'pull request #1 merged' }
      ]);
      expect(result.sweep).toEqual([
        expect.objectContaining({ name: 'preview/pr-1', done: 'deleted' }),
        expect.objectContaining({
          name: 'preview/pr-2',
          done: 'kept',
          reason: 'open pull request #2'
        }),
        expect.objectContaining({ name: 'preview/pr-3', done: 'kept', reason: 'protected' })
      ]);
      expect(result.branches_count).toBe(3);
      expect(gh.requests.map((r) => r.path)).toEqual([
        '/repos/octo-org/octo-repo/pulls/1',
        '/repos/octo-org/octo-repo/pulls/2'
      ]);
      const cases = readFileSync(junit, 'utf8');
      expect(cases).toContain('name="sweep preview/pr-2"');
      expect(run.stderr + run.stdout).not.toContain(token);
      // Without the token, nothing to decide by: refused, naming the variable, nothing sent.
      const from = sim.requests.length;
      const refused = await command(
        [...api(sim), '--project-id', PROJECT, '--sweep-branches', 'preview/pr-{pr}'],
        { env: { GITHUB_REPOSITORY: 'octo-org/octo-repo' } }
      );
      expect(refused.code).toBe(2);
      expect(refused.stdout + refused.stderr).toContain(
        '--sweep-branches needs --older-than or a token that can read pull requests (GITHUB_TOKEN, with --repository)'
      );
      expect(sim.requests.length).toBe(from);
    } finally {
      await gh.close();
    }
  });
});
