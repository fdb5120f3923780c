/**
 * What an answer means: one row a kind of request (`Rules`), one column a class of answer.
 * The send loop (`NeonClient.send`) reads these rows and nothing else, for every request of the
 * step, its own lookups (`LOOKUP_RULES`) included; `REQUEST_RULES` (`requests/index.ts`) gathers
 * every kind's, and docs/request.md's table is tested against it. "Retry 502 everywhere" is one column.
 */

/** The classes of answer a request can get (`no_answer`: a network error or a timeout). */
export const ANSWER_CLASSES = [
  'accepted',
  'conflict',
  'not_found',
  'locked',
  'unavailable',
  'server_error',
  'throttled',
  'no_answer',
  'other'
] as const;
export type AnswerClass = (typeof ANSWER_CLASSES)[number];

/**
 * What the step does with an answer:
 * - `accept`: the answer is the request's result;
 * - `adopt`: a 409 for a name: the thing with that name exists, and is taken as the result;
 * - `gone`: a 404 for a deletion: what was to be deleted no longer exists, which is what was asked;
 * - `resend`: no answer to a request that is safe to send again (a GET, or one made idempotent by a name);
 * - `unconfirmed`: no answer to a mutation that may have been applied: never sent again;
 * - `await_lock`: 423 Locked: look at the operations holding the project, send again once they end;
 * - `retry`: send again after a backoff (the answer's Retry-After when it has one);
 * - `refuse`: the step ends with the API's error.
 */
export type Rule =
  'accept' | 'adopt' | 'gone' | 'resend' | 'unconfirmed' | 'await_lock' | 'retry' | 'refuse';

/** One row: what each class of answer means for one kind of request. */
export type Rules = Readonly<Record<AnswerClass, Rule>>;

/**
 * The rows of any request by its method: `read` (a GET: safe to send again), `write` (any other
 * method: never sent again once it may have been applied). Each kind of request declares its own
 * row beside them in its module (`requests/`). `LOOKUP_RULES`: the step's own reads (operations,
 * branches, endpoints, projects), which retry a 423 without watching the lock (the lock is
 * watched with lookups).
 */
// prettier-ignore
export const READ_RULES: Rules = { accepted: 'accept', conflict: 'refuse', not_found: 'refuse', locked: 'await_lock', unavailable: 'retry', server_error: 'retry',  throttled: 'retry', no_answer: 'resend',      other: 'refuse' };
// prettier-ignore
export const WRITE_RULES: Rules = { accepted: 'accept', conflict: 'refuse', not_found: 'refuse', locked: 'await_lock', unavailable: 'retry', server_error: 'refuse', throttled: 'retry', no_answer: 'unconfirmed', other: 'refuse' };
// prettier-ignore
export const LOOKUP_RULES: Rules = { accepted: 'accept', conflict: 'refuse', not_found: 'refuse', locked: 'retry',      unavailable: 'retry', server_error: 'retry',  throttled: 'retry', no_answer: 'resend',      other: 'refuse' };

/** The class of an HTTP status (`undefined`: no answer came); `server_error`: a 5xx but 503. */
export function answerClass(status: number | undefined): AnswerClass {
  if (status === undefined) return 'no_answer';
  if (status >= 200 && status < 300) return 'accepted';
  const byStatus: Partial<Record<number, AnswerClass>> = {
    404: 'not_found',
    409: 'conflict',
    423: 'locked',
    429: 'throttled',
    503: 'unavailable'
  };
  return byStatus[status] ?? (status >= 500 && status < 600 ? 'server_error' : 'other');
}

export const ruleFor = (rules: Rules, status: number | undefined): Rule =>
  rules[answerClass(status)];

/** One answer as the exchange read it (`NeonClient.exchange`), its secrets already masked. */
export interface Answer {
  status: number;
  /** Its JSON, redacted (undefined: not JSON). */
  body?: Record<string, unknown>;
  /** `HTTP 409: CODE: message`, for an answer outside 2xx. */
  errorText: string;
  requestId?: string;
  /** `Retry-After` in ms from now (an HTTP date read on the service's clock). */
  retryAfterMs?: number;
  /** The host a redirect pointed to (`elsewhere` when unreadable). */
  redirectedTo: string;
  /** Its first connection URI, unredacted: only the `database_url` output holds it. */
  connectionUri?: string;
}
