import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { escapeText } from '../../src/report/markdown.js';
import { operation } from '../../simulator/scenario.js';
import type { Fault, Simulator } from '../../simulator/server.js';
import { runAction, workflowCommands } from '../helpers/run-action.js';
import { DEFAULT_KEY, PROJECT, simulate, uuid } from '../helpers/sim.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const inputs = (s: Simulator, more: Record<string, string>) => ({
  inputs: {
    api_key: DEFAULT_KEY,
    api_host: s.url,
    project_id: PROJECT,
    interval: '1s',
    timeout: '30s',
    summary_limit: '0',
    ...more
  }
});
const retryAfterDate = () => new Date(Date.now() + 1000).toUTCString();

describe('transient faults are retried and the wait still ends right', () => {
  const faults: Array<[string, () => Fault]> = [
    ['429 with Retry-After in seconds', () => ({ kind: 'status', status: 429, retryAfter: '1' })],
    [
      '429 with Retry-After as an HTTP date',
      () => ({ kind: 'status', status: 429, retryAfter: retryAfterDate() })
    ],
    ['429 without Retry-After', () => ({ kind: 'status', status: 429 })],
    ['423 locked', () => ({ kind: 'status', status: 423 })],
    ['500', () => ({ kind: 'status', status: 500 })],
    ['502', () => ({ kind: 'status', status: 502 })],
    ['503', () => ({ kind: 'status', status: 503 })],
    ['504', () => ({ kind: 'status', status: 504 })],
    ['an HTML error page from the edge', () => ({ kind: 'html' })],
    ...[520, 521, 522, 523, 524].map((status): [string, () => Fault] => [
      `a Cloudflare ${status} page`,
      () => ({ kind: 'html', status })
    ]),
    ['a connection reset', () => ({ kind: 'reset' })],
    ['a 200 with malformed JSON', () => ({ kind: 'malformed' })],
    ['a 200 without the expected fields', () => ({ kind: 'missing-fields' })]
  ];

  it.each(faults)('%s', async (_name, fault) => {
    const op = operation(PROJECT, 'create_branch', [
      [0, 'running'],
      [1500, 'finished']
    ]);
    sim = await simulate([op]);
    sim.inject(fault(), { times: 2, skip: 1 });
    const run = await runAction(inputs(sim, { operation_id: op.id }));
    expect(run.code).toBe(0);
    expect(run.outputs.status).toBe('finished');
    expect(run.stdout.match(/retrying in /g)).toHaveLength(2);
    expect(run.everything).not.toContain(DEFAULT_KEY);
  });

  it('a request that never answers is cut by the deadline and reported as a timeout', async () => {
    const op = operation(PROJECT, 'create_branch', [
      [0, 'running'],
      [1000, 'finished']
    ]);
    sim = await simulate([op]);
    sim.inject({ kind: 'hang' }, { times: Infinity, skip: 1 });
    const run = await runAction(inputs(sim, { operation_id: op.id, timeout: '3s' }));
    expect(run.outputs.status).toBe('timeout');
    expect(run.outputs.timed_out).toBe('true');
    expect(run.stdout).toMatch(
      /::error::Timed out after 3s .*Last error: no answer before the deadline/
    );
    expect(run.durationMs).toBeLessThan(6000);
    expect(run.summary).toContain('timed out');
  });

  it('a storm of 503s ends as timeout at the deadline with the last error, not a flood', async () => {
    const op = operation(PROJECT, 'create_branch', [[0, 'running']]);
    sim = await simulate([op]);
    sim.inject(
      { kind: 'status', status: 503, message: 'service unavailable' },
      { times: Infinity }
    );
    const run = await runAction(inputs(sim, { operation_id: op.id, timeout: '6s' }));
    expect(run.code).toBe(1);
    expect(run.outputs.status).toBe('timeout');
    expect(run.stdout).toMatch(/Last error: HTTP 503: service unavailable/);
    expect(sim.requests.length).toBeLessThanOrEqual(8);
    expect(Number(run.outputs.elapsed_seconds)).toBeLessThanOrEqual(6.2);
  });
});

describe('errors that retrying cannot fix', () => {
  it('a key revoked in the middle of a wait stops it at once', async () => {
    const op = operation(PROJECT, 'create_branch', [
      [0, 'running'],
      [60_000, 'finished']
    ]);
    sim = await simulate([op]);
    const s = sim;
    // Revoked after two answered requests, however slowly the process starts.
    const watch = setInterval(() => {
      if (s.requests.length >= 2) {
        s.revokeKey(DEFAULT_KEY);
        clearInterval(watch);
      }
    }, 5);
    const run = await runAction(inputs(sim, { operation_id: op.id }));
    clearInterval(watch);
    expect(sim.requests.slice(0, 2).map((r) => r.status)).toEqual([200, 200]);
    expect(run.code).toBe(1);
    expect(run.outputs.status).toBe('api_error');
    expect(run.stdout).toMatch(/::error::The API refused the key \(HTTP 401\)/);
    expect(sim.requests.filter((r) => r.status === 401)).toHaveLength(1);
    expect(sim.requests.at(-1)?.status).toBe(401);
    expect(run.durationMs).toBeLessThan(5000);
  });

  it('an unknown project is named, without retries', async () => {
    sim = await simulate([]);
    const run = await runAction(inputs(sim, { project_id: 'no-such-project-1' }));
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /::error::Project no-such-project-1 was not found, or this API key cannot see it/
    );
    expect(sim.requests).toHaveLength(1);
  });

  it('an unknown operation is named, without retries', async () => {
    sim = await simulate([]);
    const id = uuid();
    const run = await runAction(inputs(sim, { operation_id: id }));
    expect(run.stdout).toContain(`Operation ${id} was not found in project ${PROJECT}`);
    expect(sim.requests).toHaveLength(1);
  });

  it('a redirect to another host is not followed, so the key goes nowhere else', async () => {
    const seen: string[] = [];
    const other = createServer((req, res) => {
      seen.push(String(req.headers.authorization));
      res.end('{}');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const port = (other.address() as AddressInfo).port;
    sim = await simulate([]);
    sim.inject(
      { kind: 'redirect', location: `http://127.0.0.1:${port}/steal` },
      { times: Infinity }
    );
    const run = await runAction(inputs(sim, { operation_id: uuid() }));
    await new Promise<void>((resolve) => other.close(() => resolve()));
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/redirects are not followed/);
    expect(seen).toEqual([]);
  });
});

describe('cancellation', () => {
  it('stops polling on SIGINT, sets the outputs, writes the summary and exits quickly', async () => {
    const op = operation(PROJECT, 'create_branch', [[0, 'running']]);
    sim = await simulate([op]);
    // interval 1m: the signal comes while the action sleeps between checks (0, 0.6, 1.5, 3, 5.5 s).
    const signalAt = sim.now() + 4000;
    const run = await runAction({
      ...inputs(sim, { operation_id: op.id, timeout: '5m', interval: '1m' }),
      signalAfterMs: { signal: 'SIGINT', ms: 4000 }
    });
    expect(run.signal).toBeNull();
    expect(run.durationMs).toBeLessThan(6500);
    expect(run.outputs.status).toBe('aborted');
    expect(run.outputs.timed_out).toBe('false');
    expect(JSON.parse(run.outputs.operations as string)[0].status).toBe('running');
    expect(run.summary).toContain('cancelled with the job');
    expect(run.summary).toContain(op.id.slice(0, 8));
    expect(sim.requests.length).toBeGreaterThanOrEqual(3);
    expect(sim.requests.filter((r) => r.at > signalAt + 250)).toEqual([]);
  });

  it('also stops on SIGTERM', async () => {
    const op = operation(PROJECT, 'create_branch', [[0, 'running']]);
    sim = await simulate([op]);
    const run = await runAction({
      ...inputs(sim, { operation_id: op.id, timeout: '5m' }),
      signalAfterMs: { signal: 'SIGTERM', ms: 800 }
    });
    expect(run.durationMs).toBeLessThan(3000);
    expect(run.outputs.status).toBe('aborted');
  });
});

describe('hostile and mistaken input is refused before any request', () => {
  const bad: Array<[string, Record<string, string>, string]> = [
    ['empty api_key', { api_key: '' }, 'api_key'],
    ['whitespace api_key', { api_key: '   ' }, 'api_key'],
    ['timeout not a duration', { timeout: 'soon' }, 'timeout'],
    ['timeout zero', { timeout: '0' }, 'timeout'],
    ['timeout negative', { timeout: '-5m' }, 'timeout'],
    ['timeout absurd', { timeout: '900h' }, 'timeout'],
    ['interval zero', { interval: '0s' }, 'interval'],
    ['interval absurd', { interval: '2d' }, 'interval'],
    ['summary_limit too big', { summary_limit: '5000' }, 'summary_limit'],
    ['summary_limit not a number', { summary_limit: 'lots' }, 'summary_limit'],
    ['wait not a boolean', { wait: 'sometimes' }, 'wait'],
    ['fail_fast not a boolean', { fail_fast: '2' }, 'fail_fast'],
    ['operation_id not a UUID', { operation_id: 'op-123' }, 'operation_id'],
    ['operations not JSON', { operations: '{oops' }, 'operations'],
    ['operations without operations', { operations: '{"branch":{}}' }, 'operations'],
    ['project_id off pattern', { project_id: 'My Project!' }, 'project_id'],
    ['api_host plain http', { api_host: 'http://console.neon.tech/api/v2' }, 'api_host'],
    ['api_host not a URL', { api_host: 'console neon tech' }, 'api_host'],
    [
      'api_host with credentials',
      { api_host: 'https://user:pw@console.neon.tech/api/v2' },
      'api_host'
    ]
  ];

  it.each(bad)('%s', async (_name, more, input) => {
    sim = await simulate([]);
    const run = await runAction(inputs(sim, { operation_id: uuid(), ...more }));
    expect(run.code).toBe(1);
    const commands = workflowCommands(run.stdout);
    expect(commands).toHaveLength(1);
    expect(commands[0]).toMatch(new RegExp(`^::error::Input '${input}' `));
    expect(run.stdout + run.stderr).not.toMatch(/\n\s+at /);
    expect(run.stderr).toBe('');
    expect(sim.requests).toHaveLength(0);
    // Still reported: every output set, and a summary that says what is wrong.
    expect(run.outputs.status).toBe('input_error');
    expect(run.outputs.timed_out).toBe('false');
    expect(run.outputs.operations).toBe('[]');
    expect(run.summary).toContain('Neon operations: input error');
    expect(run.summary).toContain(escapeText(`Input '${input}'`));
  });
});

describe('the API key never appears', () => {
  it('not in debug logs, outputs, summary or errors, even when the API echoes it back', async () => {
    const key = `napi_${uuid().replace(/-/g, '')}`;
    const op = operation(PROJECT, 'create_branch', [
      [0, 'running'],
      [500, 'finished']
    ]);
    sim = await simulate({
      keys: { [key]: { kind: 'personal', user: 'user-1' } },
      projects: [{ id: PROJECT, name: 'p', owner_id: 'user-1' }],
      operations: [op]
    });
    sim.inject({ kind: 'echo-key', status: 500 }, { times: 1 });
    const echoed = await runAction({
      ...inputs(sim, { api_key: key, operation_id: op.id, summary_limit: '5' }),
      env: { RUNNER_DEBUG: '1' }
    });
    expect(echoed.stdout).toMatch(/::debug::GET \/projects\//);
    expect(echoed.stdout).toMatch(
      /retrying in .* after HTTP 500: invalid request: header was "Bearer \*\*\*"/
    );
    expect(echoed.masked).toEqual([key]);
    expect(echoed.everything).not.toContain(key);

    sim.inject({ kind: 'echo-key', status: 400 }, { times: 1 });
    const failed = await runAction({
      ...inputs(sim, { api_key: key, operation_id: op.id }),
      env: { RUNNER_DEBUG: '1' }
    });
    expect(failed.code).toBe(1);
    expect(failed.everything).toContain('Bearer ***');
    expect(failed.everything).not.toContain(key);
  });
});

describe('hostile or odd data from the API', () => {
  it('keeps the key out of the summary even in escaped or shortened form', async () => {
    const key = `napi_${uuid().replace(/-/g, '')}_x:y$z`;
    const op = operation(PROJECT, 'create_branch', [[-100, 'finished']]);
    sim = await simulate({
      keys: { [key]: { kind: 'personal', user: 'user-1' } },
      projects: [{ id: PROJECT, name: 'p', owner_id: 'user-1' }],
      operations: [op]
    });
    sim.inject({ kind: 'echo-key', status: 400 }, { times: 1 });
    const run = await runAction(
      inputs(sim, { api_key: key, operation_id: op.id, summary_limit: '5' })
    );
    expect(run.code).toBe(1);
    expect(run.summary).toContain('Bearer &#42;&#42;&#42;');
    for (const form of [key, escapeText(key), key.slice(0, 20), key.slice(-20)]) {
      expect(run.everything).not.toContain(form);
    }
  });

  it('breaks a legacy ##[command] anywhere in a line of API text', async () => {
    const op = operation(PROJECT, 'apply_config', [
      [0, 'running'],
      [300, 'error', { error: 'db x ##[stop-commands]tok1 and ##[add-mask]abc' }]
    ]);
    sim = await simulate([op]);
    const run = await runAction(inputs(sim, { operation_id: op.id }));
    expect(run.stdout).not.toContain('##[');
    expect(run.stdout).toContain('## [stop-commands]tok1');
    expect(workflowCommands(run.stdout).filter((l) => l.startsWith('::error::'))).toHaveLength(1);
  });

  it('survives impossible dates, durations and an error that is not a string', async () => {
    const op = operation(PROJECT, 'create_branch', [[-100, 'finished']], {
      extra: { created_at: '+275760-09-13T00:00:00Z', total_duration_ms: 1e16, error: { code: 7 } }
    });
    sim = await simulate([op]);
    const run = await runAction(inputs(sim, { operation_id: op.id, summary_limit: '5' }));
    expect(run.code).toBe(0);
    expect(run.outputs.status).toBe('finished');
    expect(run.summary).toContain('Neon operations: finished');
    expect(run.summary).toContain('{&quot;code&quot;&#58;7}');
  });

  it('refuses a proxy variable it cannot read, with every output set', async () => {
    sim = await simulate([]);
    const run = await runAction({
      ...inputs(sim, { operation_id: uuid() }),
      env: { HTTPS_PROXY: 'not a url' }
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /::error::HTTPS_PROXY \/ HTTP_PROXY does not hold a usable proxy URL/
    );
    expect(run.outputs.status).toBe('input_error');
    expect(sim.requests).toHaveLength(0);
  });
});

describe('project mode gates on the work it followed', () => {
  it('fails when an operation it saw in progress ends in error, and at once with fail_fast', async () => {
    const bad = operation(
      PROJECT,
      'start_compute',
      [
        [-100, 'running'],
        [600, 'error', { error: 'no capacity' }]
      ],
      {
        branch_id: 'br-a'
      }
    );
    const slow = operation(
      PROJECT,
      'create_branch',
      [
        [-100, 'running'],
        [3000, 'finished']
      ],
      { branch_id: 'br-a' }
    );
    sim = await simulate([bad, slow]);
    const patient = await runAction(inputs(sim, { branch_id: 'br-a' }));
    expect(patient.code).toBe(1);
    expect(patient.outputs.status).toBe('error');
    expect(patient.stdout).toMatch(
      /::error::Operation\(s\) of branch br-a .* did not succeed: start_compute .* is error .*no capacity/
    );
    // It waited for the slow one (finished at 3 s on the simulator's clock) before failing.
    expect(sim.requests.at(-1)?.at).toBeGreaterThanOrEqual(3000);
    await sim.close();

    const bad2 = operation(
      PROJECT,
      'start_compute',
      [
        [-100, 'running'],
        [600, 'error']
      ],
      { branch_id: 'br-a' }
    );
    const slow2 = operation(
      PROJECT,
      'create_branch',
      [
        [-100, 'running'],
        [30_000, 'finished']
      ],
      { branch_id: 'br-a' }
    );
    sim = await simulate([bad2, slow2]);
    const fast = await runAction(inputs(sim, { branch_id: 'br-a', fail_fast: 'true' }));
    expect(fast.code).toBe(1);
    expect(fast.outputs.status).toBe('error');
    expect(Number(fast.outputs.elapsed_seconds)).toBeLessThan(5);
  });

  it('says "10 projects", not "more than 10", when the key sees exactly ten', async () => {
    sim = await simulate({
      keys: { [DEFAULT_KEY]: { kind: 'organization', org: 'org-a' } },
      projects: Array.from({ length: 10 }, (_, i) => ({
        id: `proj-${i}`,
        name: `p${i}`,
        owner_id: 'u',
        org_id: 'org-a'
      })),
      operations: []
    });
    const run = await runAction({
      inputs: { api_key: DEFAULT_KEY, api_host: sim.url, summary_limit: '0' }
    });
    expect(run.stdout).toMatch(/the API key sees 10 projects: proj-0/);
  });
});

describe('hardening: what an attacker or a broken runner could do to the bytes the step writes', () => {
  it('keeps every line, annotation and output bounded and on one line when the API sends 5 MB', async () => {
    const huge = `${'x'.repeat(2_500_000)}\n::error::forged\n${'y'.repeat(2_500_000)}`;
    const op = operation(PROJECT, 'apply_config', [
      [0, 'running'],
      [200, 'error', { error: huge }]
    ]);
    sim = await simulate([op]);
    const run = await runAction(inputs(sim, { operation_id: op.id, summary_limit: '5' }));
    // The same, from an error answer of the API (its `message`).
    sim.inject({ kind: 'status', status: 400, message: huge }, { times: 1 });
    const refused = await runAction(inputs(sim, { operation_id: op.id, summary_limit: '5' }));
    expect(refused.outputs.status).toBe('api_error');
    for (const each of [run, refused]) {
      expect(each.code).toBe(1);
      const longest = Math.max(...each.stdout.split('\n').map((line) => line.length));
      expect(longest).toBeLessThan(20_000);
      expect(workflowCommands(each.stdout).filter((l) => l.includes('forged'))).toEqual([]);
      expect(each.outputs.operations.length).toBeLessThan(20_000);
      expect(Buffer.byteLength(each.summary)).toBeLessThan(100_000);
    }
  });

  it('still states the verdict, and fails the step, when the outputs file cannot be written', async () => {
    const op = operation(PROJECT, 'start_compute', [
      [0, 'running'],
      [200, 'error', { error: 'no capacity' }]
    ]);
    sim = await simulate([op]);
    // A directory where the runner's output file should be: every write fails (EISDIR).
    const run = await runAction({
      ...inputs(sim, { operation_id: op.id }),
      env: { GITHUB_OUTPUT: '/', GITHUB_STEP_SUMMARY: '/' }
    });
    expect(run.code).toBe(1);
    const commands = workflowCommands(run.stdout);
    expect(commands.some((l) => /^::warning.*Could not set the outputs/.test(l))).toBe(true);
    expect(commands.some((l) => /^::warning.*Could not write the job summary/.test(l))).toBe(true);
    expect(commands.filter((l) => l.startsWith('::error'))).toEqual([
      expect.stringMatching(/start_compute .* is error .*no capacity/)
    ]);
    expect(run.stdout).not.toMatch(/Unexpected failure/);
  });

  it.each([
    ['operations', (id: string) => ({ operation_id: id })],
    ['project', () => ({})]
  ])('treats statuses named like prototype members as unknown in %s mode', async (_mode, extra) => {
    const op = operation(PROJECT, 'create_branch', [
      [0, '__proto__'],
      [300, 'constructor'],
      [600, 'toString'],
      [900, 'finished']
    ]);
    sim = await simulate([op]);
    const run = await runAction(inputs(sim, { ...extra(op.id), summary_limit: '5' }));
    expect(run.code).toBe(0);
    expect(run.outputs.status).toMatch(/^(finished|idle)$/);
    expect(run.stderr).toBe('');
  });

  it('folds bidirectional controls and line separators out of the log, summary and outputs', async () => {
    const tricky = 'safe\u202Edesrever\u2066iso\u2069 line\u2028sep\u2029para';
    const op = operation(PROJECT, 'apply_config', [
      [0, 'running'],
      [200, 'error', { error: tricky }]
    ]);
    sim = await simulate([op]);
    const run = await runAction(inputs(sim, { operation_id: op.id, summary_limit: '5' }));
    const written = [run.stdout, run.summary].join('\n');
    expect(written).toContain('safe desrever iso');
    expect(written).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u2028\u2029]/);
  });
});
