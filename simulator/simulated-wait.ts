import { NeonClient } from '../src/neon/client.js';
import type { Transport } from '../src/neon/http.js';
import type { Operation } from '../src/neon/operation.js';
import type { Clock } from '../src/util/clock.js';
import { CancelledError } from '../src/util/errors.js';
import { DEFAULT_POLICY } from '../src/wait/status.js';
import { type WaitResult, waitFor } from '../src/wait/wait.js';
import { DEFAULT_KEY, operation, type OperationScript, singleProject } from './scenario.js';
import { startSimulator } from './server.js';

/**
 * The action's real wait (`waitFor`, as `main` calls it: modes, tracker, schedule, HTTP client, real
 * requests to the simulator on 127.0.0.1) on a simulated clock shared with the simulator: minutes of
 * waiting take a moment, and request counts are exact. Used by the benchmark and the polling-cost
 * tests.
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
  /** Checks the wait made (each may take several requests). */
  checks: number;
  /** Simulated seconds the wait took. */
  seconds: number;
}

export interface SimulatedWaitOptions {
  /** Operations to await, each lasting this long (times `spread` when given). */
  durationMs: number;
  count?: number;
  /** The action's `interval` (default 5 s). */
  intervalMs?: number;
  /** Replaces the action's schedule (another tool's): delay before the next check. */
  delay?: (checksDone: number, random: () => number) => number;
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
  const delay = options.delay;
  try {
    const result = await engineWait({
      baseUrl: sim.url,
      apiKey: DEFAULT_KEY,
      projectId: PROJECT,
      ids: ops.map((o) => o.id),
      timeoutMs: options.maxMs ?? 600_000,
      intervalMs: options.intervalMs ?? 5000,
      clock,
      random,
      ...(delay && { schedule: (n: number) => delay(n, random) })
    });
    return {
      noticeMs: result.status === 'finished' ? clock.elapsed - finishedAt : undefined,
      requests: sim.requests.length,
      checks: result.checks,
      seconds: clock.elapsed / 1000
    };
  } finally {
    await sim.close();
  }
}

export interface EngineWaitOptions {
  baseUrl: string;
  apiKey: string;
  projectId: string;
  /** Operations to await. */
  ids: string[];
  /** The `operations` input: the reply that started them. */
  given?: Operation[];
  timeoutMs: number;
  /** The action's `interval`. */
  intervalMs: number;
  clock: Clock;
  random: () => number;
  transport?: Transport;
  /** Another tool's schedule instead of the action's own. */
  schedule?: (checksDone: number) => number;
}

/**
 * The action's wait for operations of one project, wired as `main` wires it (`waitFor`: modes,
 * tracker, schedule with its slow-down after 429s, HTTP client), silent, on the given clock.
 */
export async function engineWait(options: EngineWaitOptions): Promise<WaitResult> {
  const { clock, random } = options;
  const client = new NeonClient({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    clock,
    random,
    transport: options.transport
  });
  try {
    return await waitFor(
      {
        projectId: options.projectId,
        operationIds: options.ids,
        givenOperations: options.given ?? [],
        wait: true,
        timeoutMs: options.timeoutMs,
        intervalMs: options.intervalMs,
        policy: DEFAULT_POLICY
      },
      {
        client,
        clock,
        random,
        log: { info: () => undefined, warning: () => undefined },
        ...(options.schedule && { schedule: options.schedule })
      }
    );
  } finally {
    await client.close();
  }
}
