import { describe, expect, it } from '@jest/globals';
import { simulatedWait } from '../simulator/simulated-wait.js';

// The action's real loop against the simulator, on a simulated clock: request counts and the
// simulated times of checks are exact, whatever the machine is doing.
const SEEDS = Array.from({ length: 20 }, (_, i) => i + 1);

describe('polling cost and promptness (simulated clock)', () => {
  it('sees an operation that ends 1.2 s in by 1.7 s, with the default 5 s interval', async () => {
    for (const seed of SEEDS) {
      const wait = await simulatedWait({ durationMs: 1200, intervalMs: 5000, seed });
      expect(wait.noticeMs).toBeDefined();
      expect(wait.seconds).toBeLessThanOrEqual(1.7);
    }
  });

  it('spends at most 10 requests on a 25-second operation', async () => {
    for (const seed of SEEDS) {
      const wait = await simulatedWait({ durationMs: 25_000, intervalMs: 5000, seed });
      expect(wait.requests).toBeLessThanOrEqual(10);
    }
  });

  it('does not spend more requests for more awaited operations of one project', async () => {
    const one = await simulatedWait({ durationMs: 30_000, count: 1, intervalMs: 1000 });
    const twenty = await simulatedWait({ durationMs: 30_000, count: 20, intervalMs: 1000 });
    expect(twenty.requests / twenty.seconds).toBeLessThanOrEqual(3);
    expect(twenty.requests).toBeLessThanOrEqual(one.requests + 2);
  });

  it('with a fixed 5 s poll, the same quick operation is seen only at 5 s (the baseline it beats)', async () => {
    const wait = await simulatedWait({ durationMs: 1200, delay: () => 5000 });
    expect(wait.seconds).toBe(5);
  });

  it.each([
    [300, 2],
    [3000, 4]
  ])(
    'costs at most a few List requests per check for %i awaited operations (≤ %i)',
    async (count, perCheck) => {
      const wait = await simulatedWait({ durationMs: 20_000, count, spread: 0.5, seed: 7 });
      expect(wait.noticeMs).toBeDefined();
      expect(wait.requests / wait.checks).toBeLessThanOrEqual(perCheck);
    }
  );
});
