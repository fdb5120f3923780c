import { it } from '@jest/globals';

/**
 * A test that waits half a minute or more of real time (a 30 s heartbeat, a 30 s bound), or that
 * repeats seconds of CPU with more seeds (a crowd's), named
 * `[long] …`: `npm run test:long` runs those (CI runs it after `npm test`); `npm test` skips them.
 */
export const itLong = process.env.TEST_LONG ? it : it.skip;
