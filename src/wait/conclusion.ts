import { formatDuration, YEAR_MS } from '../util/duration.js';
import {
  actionNaming,
  ApiError,
  CancelledError,
  DeadlineError,
  InputError,
  type Naming,
  NotSentError,
  UnconfirmedError,
  WordedApiError
} from '../util/errors.js';
import { type AwaitedOperation, isSeen } from '../neon/operation.js';
import { oneLine } from '../util/text.js';
import type { LoopEnding } from './loop.js';
import type { WaitSettings } from './wait-settings.js';
import { type Status, WAIT_STATUS } from './status.js';

/** How a wait ended (its mode's conclusion, a timeout, a cancellation or an error): the fields of the result this sets. */
export interface Ending {
  status: Status;
  timedOut?: boolean;
  /** Why the step fails, when it does. */
  failure?: string;
  /** A transient fault still happening at the deadline. */
  lastError?: string;
  /** Since when (epoch ms) that fault's request had gone unanswered. */
  failingSince?: number;
  apiUnusable?: boolean;
}

interface EndingContext {
  settings: WaitSettings;
  startedAt: number;
  signal?: AbortSignal;
  /** Checks that had succeeded before the error: a 404 after some is a deletion, not a typo. */
  checksDone: number;
  named?: Naming;
}

/** The one table from an error to the wait's status and the message the user reads. */
export function endingOf(error: unknown, ctx: EndingContext): Ending {
  // After any of these, nothing more is asked of the API (the summary's extra requests included).
  const final = (status: string, failure: string) => ({ status, failure, apiUnusable: true });
  const gone = error instanceof ApiError && error.status === 404;
  const named = ctx.named ?? actionNaming;
  if (error instanceof CancelledError || ctx.signal?.aborted)
    return final(
      WAIT_STATUS.aborted,
      'Interrupted (SIGINT or SIGTERM) while waiting; the result shows what was seen until then.' +
        (error instanceof CancelledError && error.unanswered ? ` ${error.unanswered}` : '')
    );
  if (error instanceof DeadlineError) return deadlineEnding(ctx, { fault: error });
  if (error instanceof InputError) return final(WAIT_STATUS.inputError, error.words(named));
  if (error instanceof UnconfirmedError) return final(WAIT_STATUS.unconfirmed, error.message);
  // The post step of `watch_job` (whose first request may be the 404): the main step saw the project.
  if (gone && ctx.settings.jobMark)
    return final(
      WAIT_STATUS.apiError,
      `Project ${ctx.settings.jobMark.projectId} is gone: the main step of this job saw it, so it was deleted during the job (or the API key lost access to it).`
    );
  if (gone && ctx.checksDone > 0)
    return final(
      WAIT_STATUS.apiError,
      `What this wait followed disappeared after ${ctx.checksDone} successful check(s): the project, ` +
        `the branch or the operation was deleted during the wait (or the key lost access). ${withHint(error, named)}`
    );
  const message =
    error instanceof ApiError
      ? withHint(error, named)
      : `Unexpected error: ${(error as Error)?.message ?? String(error)}`;
  return final(WAIT_STATUS.apiError, message);
}

/** An API error and the inputs it points at (the client knows none), in the front end's words. */
function withHint(error: ApiError, named: Naming): string {
  const { status, missing } = error;
  const inputs = status === 401 ? ['api_key'] : status >= 300 && status < 400 ? ['api_host'] : [];
  if (missing === 'operation') inputs.push('operation_id', 'operations');
  if (missing === 'branch') inputs.push('branch_id');
  if (missing === 'endpoint') inputs.push('endpoint_id');
  if (missing) inputs.push('project_id');
  const names = inputs.map(named);
  const list = names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0];
  const message = error instanceof WordedApiError ? error.words(named) : error.message;
  return list ? `${message} Check ${list}.` : message;
}

/**
 * The deadline's message, true to what happened: what was still open (else the mode's `scope`), when
 * the last request went, and why none followed (the deadline, a fault that lasted until it, or a
 * `Retry-After` beyond it).
 */
export function deadlineEnding(
  { settings, startedAt, named = actionNaming }: EndingContext,
  { fault, lastCheckAt }: Pick<LoopEnding, 'fault' | 'lastCheckAt'>,
  open: AwaitedOperation[] = [],
  scope?: string
): Ending {
  const stillOpen = open.map((op) =>
    isSeen(op)
      ? `${oneLine(op.action, 60)} ${op.id} (last status ${oneLine(op.status, 40)})`
      : `operation ${op.id} (not seen yet)`
  );
  const what = stillOpen.join('; ') || scope;
  const more = ` Give it more time with ${named('timeout')}.`;
  const limit = formatDuration(settings.timeoutMs);
  const lastAt = fault?.lastTryAt ?? lastCheckAt;
  const at = lastAt === undefined ? '' : ` at ${formatDuration(Math.max(0, lastAt - startedAt))}`;
  const { lastError, failingSince, retryAfterMs } = fault ?? {};
  const ending = { status: WAIT_STATUS.timeout, timedOut: true, lastError, failingSince };
  // Nothing was sent, nothing failed: no retry to speak of, and no API error.
  if (fault instanceof NotSentError)
    return { status: WAIT_STATUS.timeout, timedOut: true, failure: `${fault.why}.${more}` };
  if (retryAfterMs !== undefined) {
    const asked = retryAfterMs > YEAR_MS ? 'more than a year' : formatDuration(retryAfterMs);
    const failure =
      `The API asked to wait ${asked} before the next request (Retry-After), more than the time ` +
      `left before the ${limit} timeout, so the wait stopped${at}` +
      (lastError ? ` (last answer: ${lastError}).` : '.') +
      (what ? ` Still open: ${what}.` : '') +
      more;
    return { ...ending, failure };
  }
  // Not "timed out after 4s": the wait stops as soon as no request fits before the deadline (3.7s).
  const after = lastError
    ? `to retry the failed request${at}. Last error: ${lastError}`
    : `for another check${at && ` after the one${at}`}.`;
  const failure = `${what ? `Still waiting for ${what}: the` : 'The'} ${limit} timeout left no time ${after}${lastError ? '.' : ''}${more}`;
  return { ...ending, failure };
}
