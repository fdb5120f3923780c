import { formatDuration } from '../util/duration.js';
import { ApiError, CancelledError, DeadlineError, InputError } from '../util/errors.js';
import type { WaitResult as LoopResult } from './loop.js';
import type { WaitMode, WaitSettings } from './mode.js';
import { describeOpen } from './modes/describe.js';
import { type ResultStatus, WAIT_STATUS } from './status.js';
import type { OperationTracker } from './tracker.js';

/** How a wait ended, beyond what its mode concluded: the fields of the result this sets. */
export interface Ending {
  status: ResultStatus;
  timedOut?: boolean;
  failure?: string;
  lastError?: string;
  apiUnusable?: boolean;
}

/** The one table from an error to the wait's status and the message the user reads. */
export function endingOf(
  error: unknown,
  signal: AbortSignal | undefined,
  settings: WaitSettings,
  /** Checks that had succeeded before the error: a 404 after some is a deletion, not a typo. */
  checksDone = 0
): Ending {
  if (error instanceof CancelledError || signal?.aborted) {
    return {
      status: WAIT_STATUS.aborted,
      failure: 'The job was cancelled while waiting; outputs and summary show what was seen.',
      apiUnusable: true
    };
  }
  if (error instanceof DeadlineError) {
    return {
      status: WAIT_STATUS.timeout,
      timedOut: true,
      lastError: error.lastError,
      failure:
        error.retryAfterMs !== undefined
          ? retryAfterTooLong(error.retryAfterMs, settings, error.lastError)
          : `Timed out after ${formatDuration(settings.timeoutMs)}: ${error.message}`
    };
  }
  if (error instanceof InputError)
    return { status: WAIT_STATUS.inputError, failure: error.message, apiUnusable: true };
  // The post step of `watch_job` (whose first request may be the 404): the main step saw the project.
  if (error instanceof ApiError && error.status === 404 && settings.jobMark) {
    return {
      status: WAIT_STATUS.apiError,
      failure: `Project ${settings.jobMark.projectId} is gone: the main step of this job saw it, so it was deleted during the job (or the API key lost access to it).`,
      apiUnusable: true
    };
  }
  if (error instanceof ApiError && error.status === 404 && checksDone > 0) {
    return {
      status: WAIT_STATUS.apiError,
      failure:
        `What this wait followed disappeared after ${checksDone} successful check(s): the project, ` +
        `the branch or the operation was deleted during the wait (or the key lost access). ${error.message}`,
      apiUnusable: true
    };
  }
  if (error instanceof ApiError)
    return { status: WAIT_STATUS.apiError, failure: error.message, apiUnusable: true };
  return {
    status: WAIT_STATUS.apiError,
    failure: `Unexpected error: ${(error as Error)?.message ?? String(error)}`,
    apiUnusable: true
  };
}

/** The deadline came while something was still open: say what, and the fault still happening. */
export function timeoutEnding(
  settings: WaitSettings,
  mode: WaitMode,
  tracker: OperationTracker,
  loop: LoopResult
): Ending {
  const open = new Set(tracker.openIds(settings.failFast));
  const stillOpen = tracker
    .list()
    .filter((op) => open.has(op.id))
    .map(describeOpen);
  const what = stillOpen.length ? stillOpen.join('; ') : mode.scope;
  return {
    status: WAIT_STATUS.timeout,
    timedOut: true,
    lastError: loop.lastError,
    failure:
      loop.retryAfterMs !== undefined
        ? `${retryAfterTooLong(loop.retryAfterMs, settings, loop.lastError)} Still open: ${what}.`
        : `Timed out after ${formatDuration(settings.timeoutMs)} waiting for ${what}` +
          (loop.lastError ? `. Last error: ${loop.lastError}` : '.')
  };
}

/** A `Retry-After` longer than the time left: waiting for it would only end at the deadline. */
function retryAfterTooLong(
  retryAfterMs: number,
  settings: WaitSettings,
  lastError: string | undefined
): string {
  const asked = retryAfterMs > 366 * 86_400_000 ? 'more than a year' : formatDuration(retryAfterMs);
  return (
    `The API asked to wait ${asked} before the next request (Retry-After), more than the time left ` +
    `before the ${formatDuration(settings.timeoutMs)} timeout, so the wait stopped there` +
    (lastError ? ` (last answer: ${lastError}).` : '.')
  );
}
