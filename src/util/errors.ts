/**
 * Every error the action tells apart; the wait maps each to a status in one table
 * (`wait/conclusion.ts`), the database step its own three endings (`wait/database.ts`).
 */

/** A mistake in the step's `with:` block. The message names the input and the expected form. */
export class InputError extends Error {
  override name = 'InputError';
}

/** A `database_url` that is not a PostgreSQL URL; the message never holds its password. */
export class DatabaseUrlError extends InputError {
  override name = 'DatabaseUrlError';
}

/** The API answered with an error that retrying cannot fix (400, 401, 403, 404, 422, a redirect). */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    message: string,
    readonly status: number,
    readonly requestId?: string
  ) {
    super(message);
  }
}

/** Transient faults lasted until no retry could finish before the deadline. */
export class DeadlineError extends Error {
  override name = 'DeadlineError';
  constructor(
    readonly lastError?: string,
    /** When the last request was sent (epoch ms). */
    readonly lastTryAt?: number,
    /** A `Retry-After` that asked for more time than was left, in ms. */
    readonly retryAfterMs?: number,
    /** When the failing request was first tried (epoch ms): no answer came since. */
    readonly failingSince?: number
  ) {
    super(lastError ? `Deadline reached; last error: ${lastError}` : 'Deadline reached');
  }
}

/** A fault worth another try: network errors, timeouts, 429, 423, 5xx, unreadable 200s. */
export class TransientError extends Error {
  override name = 'TransientError';
  constructor(
    message: string,
    readonly retryAfterMs?: number,
    /** The HTTP status, when the fault was an answer rather than a network error. */
    readonly status?: number
  ) {
    super(message);
  }
}

/** The job was cancelled (SIGINT/SIGTERM) while the action was waiting. */
export class CancelledError extends Error {
  override name = 'CancelledError';
  override message = 'The wait was cancelled';
}

/** One database connection attempt ran out of its share of the time left. */
export class AttemptTimeoutError extends Error {
  override name = 'AttemptTimeoutError';
}
