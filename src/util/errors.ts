// Every error the action tells apart; the wait maps each to a status in one table
// (`wait/conclusion.ts`), the database step its own three endings (`checks/select-one.ts`).

/** How a front end names an input mid-sentence: `input 'project_id'` (the action), `--project-id`. */
export type Naming = (input: string) => string;
export const actionNaming: Naming = (input) => `input '${input}'`;

/** A wrong input and the expected form, worded by each front end (`message`: the action's words). */
export class InputError extends Error {
  override name = 'InputError';
  constructor(
    readonly input: string,
    readonly words: (named: Naming) => string
  ) {
    super(words(actionNaming));
  }
}

/** A `database_url` that is not a PostgreSQL URL; the message never holds its password. */
export class DatabaseUrlError extends InputError {
  override name = 'DatabaseUrlError';
  constructor(words: (named: Naming) => string) {
    super('database_url', words);
  }
}

/** The API answered with an error that retrying cannot fix (400, 401, 403, 404, 422, a redirect). */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    message: string,
    readonly status: number,
    readonly requestId?: string,
    /** What a 404 did not find: the inputs to check differ. */
    readonly missing?: 'operation' | 'project' | 'branch' | 'endpoint',
    /** The refusal's JSON, its secrets masked: what a kind reads of it (the branch limit's code). */
    readonly body?: unknown
  ) {
    super(message);
  }
}

/** An API refusal whose message names inputs (the sweep to run at the branch limit): each front end words them. */
export class WordedApiError extends ApiError {
  override name = 'WordedApiError';
  constructor(
    readonly words: (named: Naming) => string,
    status: number,
    body?: unknown
  ) {
    super(words(actionNaming), status, undefined, undefined, body);
  }
}

/**
 * Transient faults lasted until no retry could finish before the deadline. Times in epoch ms: the
 * last request sent, and the first try of the failing request (no answer came since);
 * `retryAfterMs`: a `Retry-After` that asked for more time than was left.
 */
export class DeadlineError extends Error {
  override name = 'DeadlineError';
  constructor(
    readonly lastError?: string,
    readonly lastTryAt?: number,
    readonly retryAfterMs?: number,
    readonly failingSince?: number
  ) {
    super(lastError ? `Deadline reached; last error: ${lastError}` : 'Deadline reached');
  }
}

/**
 * A mutation not sent because the time left could not see it through (`why`): nothing was sent or
 * failed, so it carries no API error; the deadline's message is `why`.
 */
export class NotSentError extends DeadlineError {
  override name = 'NotSentError';
  constructor(readonly why: string) {
    super();
    this.message = why;
  }
}

/** No answer came (a network error, a timeout): the request may have been applied. */
export class TransientError extends Error {
  override name = 'TransientError';
}

/**
 * The job was cancelled (SIGINT/SIGTERM) while the action was waiting. `unanswered`: what a
 * mutation sent and never answered may have done, when the signal came before its answer.
 */
export class CancelledError extends Error {
  override name = 'CancelledError';
  override message = 'The wait was cancelled';
  constructor(readonly unanswered?: string) {
    super();
  }
}

/** One database connection attempt ran out of its share of the time left. */
export class AttemptTimeoutError extends Error {
  override name = 'AttemptTimeoutError';
}

/**
 * No answer came to a POST, PATCH, PUT or DELETE: it may have been applied, so it is never sent
 * again (the OpenAPI document: such requests "are not safe to retry" after a network error).
 */
export class UnconfirmedError extends Error {
  override name = 'UnconfirmedError';
}
