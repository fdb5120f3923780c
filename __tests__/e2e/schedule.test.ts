import { afterEach, describe, expect, it } from '@jest/globals';
import { operation, pastOperations } from '../../simulator/scenario.js';
import type { Simulator } from '../../simulator/server.js';
import { runAction } from '../helpers/run-action.js';
import { DEFAULT_KEY, PROJECT, simulate } from '../helpers/sim.js';

const sims: Simulator[] = [];
afterEach(async () => {
  await Promise.all(sims.splice(0).map((sim) => sim.close()));
});

/** The 7 s each of these past create_branch operations took, give or take a little. */
const PAST = [6.8, 6.9, 7, 7, 7.05, 7.1, 7.15, 7.25, 6.95, 7.2].map((s) => s * 1000);
/**
 * The awaited one lasts 6.7 s: within the past lengths whatever the phase of the second. Measured
 * to the second, the longest of them is 7 s at least (7 s exactly is always 7), and the wait ages
 * this one at most 0.7 s ahead of its end (its `created_at` is 0.2 s before the first request, to
 * the second), so it never outlasts its history before it ends.
 */
const ENDS_AT = 6_500;

/** The built action awaits a 7 s create_branch (by id) with `history` in the project. */
async function wait(history: ReturnType<typeof pastOperations>) {
  const op = operation(PROJECT, 'create_branch', [
    [-200, 'running'],
    [ENDS_AT, 'finished']
  ]);
  const sim = await simulate([op, ...history]);
  sims.push(sim);
  const run = await runAction({
    inputs: {
      api_key: DEFAULT_KEY,
      api_host: sim.url,
      operation_id: op.id,
      timeout: '1m',
      // The summary's own list is left out: these are the wait's checks.
      summary_limit: '0'
    }
  });
  expect(run.outputs.status).toBe('finished');
  const requests = sim.requests.length;
  // The simulator's clock counts from the first request: when the finishing check came.
  const noticeMs = (sim.requests.at(-1)?.at as number) - ENDS_AT;
  return { requests, noticeMs };
}

describe("the schedule learned from the project's history (dist/index.js)", () => {
  it('notices the end sooner, with no more checks, than without history of that kind', async () => {
    // Side by side: each simulator's clock starts at its own first request.
    const [ladder, learned] = await Promise.all([
      wait(pastOperations(PROJECT, 'start_compute', PAST)),
      wait(pastOperations(PROJECT, 'create_branch', PAST))
    ]);
    // Without history of its kind: 0, 0.6, 1.5, 3, 5.5, then 10.5 s (±10% each), 2.9 s late at best.
    expect(ladder.noticeMs).toBeGreaterThan(1500);
    expect(learned.noticeMs).toBeGreaterThanOrEqual(0);
    expect(learned.noticeMs).toBeLessThan(ladder.noticeMs - 500);
    expect(learned.requests).toBeLessThanOrEqual(ladder.requests);
  }, 60_000);
});
