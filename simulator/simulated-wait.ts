import { NeonClient } from '../src/neon/client.js';
import type { Transport } from '../src/neon/http.js';
import { CancelledError, type Clock } from '../src/util/clock.js';
import { OperationRefresher } from '../src/wait/refresh.js';
import { OperationTracker } from '../src/wait/tracker.js';
import { waitUntil, type WaitResult } from '../src/wait/loop.js';
import { DEFAULT_KEY, operation, type OperationScript, singleProject } from './scenario.js';
import { startSimulator } from './server.js';

/**
 * The action's real waiting loop (watcher, tracker, refresher, HTTP client, real requests to the
 * simulator on 127.0.0.1) on a simulated clock shared with the simulator: minutes of waiting take
 * a moment, and request counts are exact. Used by the benchmark and the polling-cost tests.
 */

/** A seeded generator, so a run can be repeated. */
export function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class SimulatedClock implements Clock {
  elapsed = 0;
  constructor(private readonly epoch: number) {}
  now(): number {
    return this.epoch + this.elapsed;
  }
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw new CancelledError();
    this.elapsed += Math.max(0, ms);
    await new Promise((r) => setImmediate(r));
  }
}

export interface SimulatedWait {
  /** From the last awaited operation's end to the check that saw it; undefined if never seen. */
  noticeMs?: number;
  requests: number;
  /** Simulated seconds the wait took. */
  seconds: number;
}

export interface SimulatedWaitOptions {
  /** Operations to await, each lasting this long (times `spread` when given). */
  durationMs: number;
  count?: number;
  /** Delay before the next check, from the number of checks made so far. */
  delay: (checksDone: number, random: () => number) => number;
  /** Give up after this long (default 10 min). */
  maxMs?: number;
  seed?: number;
  /** Vary each operation's length by ± this fraction (0.2: 80% to 120%). */
  spread?: number;
}

const PROJECT = 'simulated-project-1';

export async function simulatedWait(options: SimulatedWaitOptions): Promise<SimulatedWait> {
  const random = prng(options.seed ?? 1);
  const epoch = Date.UTC(2026, 0, 1);
  const clock = new SimulatedClock(epoch);
  const spread = options.spread ?? 0;
  const ops: OperationScript[] = Array.from({ length: options.count ?? 1 }, () => {
    const created = -Math.round(random() * 300);
    const length = Math.round(options.durationMs * (1 - spread + 2 * spread * random()));
    return operation(PROJECT, 'create_branch', [
      [created, 'running'],
      [created + length, 'finished']
    ]);
  });
  const sim = await startSimulator({
    scenario: singleProject(PROJECT, ops),
    clock: () => clock.elapsed,
    epoch
  });
  const finishedAt = Math.max(...ops.map((o) => o.steps.at(-1)?.at ?? 0));
  const write = process.stdout.write;
  process.stdout.write = () => true; // the tracker logs every status change
  try {
    const result = await engineWait({
      baseUrl: sim.url,
      apiKey: DEFAULT_KEY,
      projectId: PROJECT,
      ids: ops.map((o) => o.id),
      deadline: epoch + (options.maxMs ?? 600_000),
      delay: (n) => options.delay(n, random),
      clock,
      random
    });
    return {
      noticeMs: result.outcome === 'success' ? clock.elapsed - finishedAt : undefined,
      requests: sim.requests.length,
      seconds: clock.elapsed / 1000
    };
  } finally {
    process.stdout.write = write;
    await sim.close();
  }
}

export interface EngineWaitOptions {
  baseUrl: string;
  apiKey: string;
  projectId: string;
  /** Operations to await. */
  ids: string[];
  /** Epoch ms on `clock`. */
  deadline: number;
  delay: (checksDone: number) => number;
  clock: Clock;
  random: () => number;
  transport?: Transport;
}

/**
 * The action's engine awaiting operations of one project (client, tracker, refresher, loop), as
 * the action runs it: the one place that changes when the action's wait does. Throws what the
 * action would report as an API error (401, 404...). Logs status changes on stdout, as the action.
 */
export async function engineWait(options: EngineWaitOptions): Promise<WaitResult> {
  const { clock } = options;
  const client = new NeonClient({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    clock,
    random: options.random,
    transport: options.transport
  });
  const tracker = new OperationTracker(options.ids, [], () => clock.now());
  const refresher = new OperationRefresher(client, options.projectId, tracker, false);
  try {
    return await waitUntil(
      async () => {
        await refresher.refresh(options.deadline);
        return tracker.verdict(false);
      },
      { deadline: options.deadline, delay: options.delay, clock }
    );
  } finally {
    await client.close();
  }
}
