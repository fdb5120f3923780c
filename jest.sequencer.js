import Sequencer from '@jest/test-sequencer';

/**
 * Jest's order, but on a first run the files that wait on real time go first. Jest runs the
 * slowest files first by the durations it cached from earlier runs; with none (a fresh clone, as
 * CI's), it goes by file size, and a small file that waits half a minute on spawned runs, servers
 * and simulated operations in real time (`__tests__/e2e/`, `__tests__/database/`) could start
 * last and end the run alone. Started first, their waits overlap the other files' CPU.
 */
const WAITS_ON_REAL_TIME = /\/__tests__\/(e2e|database)\//;

export default class WaitersFirst extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    if (sorted.some((test) => test.duration != null)) return sorted;
    const waits = (test) => (WAITS_ON_REAL_TIME.test(test.path) ? 1 : 0);
    return [...sorted].sort((a, b) => waits(b) - waits(a));
  }
}
