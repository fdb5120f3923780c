import { NeonClient } from '../../src/neon/client.js';
import type { Transport } from '../../src/neon/http.js';
import type { Clock } from '../../src/util/clock.js';

// A client over a scripted transport, for unit tests that decide each answer themselves (the
// simulator is for the rest). Its base URL is never reached: the transport answers.

/** An answer of the API: `body` as JSON text. */
export const jsonReply = (status: number, body: unknown) => ({
  status,
  headers: {},
  text: JSON.stringify(body)
});

/** A client whose every request goes to `transport`, on `clock`. */
export const clientOver = (transport: Transport, clock: Clock): NeonClient =>
  new NeonClient({ baseUrl: 'http://127.0.0.1:9/api/v2', apiKey: 'k', transport, clock });
