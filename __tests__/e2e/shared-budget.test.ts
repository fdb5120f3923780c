import { afterAll, describe, expect, it } from '@jest/globals';
import { operation, type OperationScript } from '../../simulator/scenario.js';
import type { Simulator } from '../../simulator/server.js';
import { runAction } from '../helpers/run-action.js';
import { DEFAULT_KEY, PROJECT, simulate } from '../helpers/sim.js';

const JOBS = 20;
const PER_SECOND = 5;
let sim: Simulator | undefined;
afterAll(async () => sim?.close());

describe('shared rate limit', () => {
  it(`${JOBS} jobs waiting at once under ${PER_SECOND} requests/s all finish`, async () => {
    const ops: OperationScript[] = Array.from({ length: JOBS }, (_, i) =>
      operation(PROJECT, 'create_branch', [
        [0, 'running'],
        [2000 + i * 100, 'finished']
      ])
    );
    // Half the 429s say when to come back, half do not: both must be handled.
    sim = await simulate(ops, { rateLimit: { perSecond: PER_SECOND, retryAfter: true } });
    const s = sim;
    setTimeout(() => s.setRateLimit({ perSecond: PER_SECOND, retryAfter: false }), 3000);
    const runs = await Promise.all(
      ops.map((op) =>
        runAction({
          inputs: {
            api_key: DEFAULT_KEY,
            api_host: s.url,
            project_id: PROJECT,
            operation_id: op.id,
            interval: '5s',
            timeout: '90s',
            summary_limit: '0'
          },
          killAfterMs: 100_000
        })
      )
    );
    const limited = sim.requests.filter((r) => r.status === 429).length;
    const slowest = Math.max(...runs.map((r) => Number(r.outputs.elapsed_seconds)));
    console.log(
      `${JOBS} jobs under ${PER_SECOND} req/s: ${runs.filter((r) => r.code === 0).length} finished, ` +
        `${sim.requests.length} requests, ${limited} answered 429, slowest ${slowest}s`
    );
    expect(runs.map((r) => r.outputs.status)).toEqual(ops.map(() => 'finished'));
    expect(runs.every((r) => r.code === 0)).toBe(true);
    // Retries spread out: no 100 ms slot holds more than a burst's worth of them. Each job awaits
    // its own operation, so a request's job is in its path; each job's first request is left out
    // (when 20 processes start on a busy machine is not the action's doing).
    const firsts = new Set<string>();
    const slots = new Map<number, number>();
    for (const r of sim.requests) {
      const job = r.path.split('/').at(-1) as string;
      if (!firsts.has(job)) {
        firsts.add(job);
        continue;
      }
      slots.set(Math.floor(r.at / 100), (slots.get(Math.floor(r.at / 100)) ?? 0) + 1);
    }
    expect(firsts.size).toBe(JOBS);
    expect(Math.max(...slots.values())).toBeLessThanOrEqual((JOBS * 3) / 4);
  }, 120_000);
});
