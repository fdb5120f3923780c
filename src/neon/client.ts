import { type Clock, systemClock } from '../util/clock.js';
import { formatDuration } from '../util/duration.js';
import { ApiError, CancelledError, DeadlineError, TransientError } from '../util/errors.js';
import { redact } from '../util/redact.js';
import { oneLine } from '../util/text.js';
import { createTransport, type Transport } from './http.js';
import { isRetryableStatus, retryAfter, RetryPolicy } from './retry.js';
import {
  isOperation,
  normalizeOperation,
  type Operation,
  type Project,
  RESOURCE_ID,
  UUID
} from './operation.js';
import { ACTION_NAME, ACTION_VERSION } from '../version.js';

/** Neon's own API: the default `api_host`, and the one whose console the report may link to. */
export const NEON_API_HOST = 'https://console.neon.tech/api/v2';

export interface RetryEvent {
  path: string;
  attempt: number;
  error: string;
  delayMs: number;
}

export interface ClientOptions {
  baseUrl: string;
  apiKey: string;
  /** How requests are sent; undici with the environment's proxy settings by default. */
  transport?: Transport;
  /** Upper bound for one request; always also capped by the time left. */
  requestTimeoutMs?: number;
  backoffBaseMs?: number;
  /** First delay after a 429 without Retry-After (default 5 s). */
  throttleBaseMs?: number;
  backoffMaxMs?: number;
  clock?: Clock;
  random?: () => number;
  signal?: AbortSignal;
  onRetry?: (event: RetryEvent) => void;
  onRequest?: (path: string) => void;
}

export interface OperationsPage {
  operations: Operation[];
  cursor?: string;
}

export interface ProjectsPage {
  projects: Project[];
  cursor?: string;
}

export class NeonClient {
  readonly requestTimeoutMs: number;
  private readonly clock: Clock;
  private readonly retry: RetryPolicy;
  private readonly transport: Transport;
  /** Only a transport this client made is closed with it: a given one may serve others too. */
  private readonly ownsTransport: boolean;
  /** Requests sent so far, retries included. */
  requests = 0;
  /** Answers with HTTP 429 so far: the wait slows down when this grows. */
  throttled = 0;

  constructor(private readonly options: ClientOptions) {
    this.requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
    this.clock = options.clock ?? systemClock;
    this.retry = new RetryPolicy(options);
    this.transport = options.transport ?? createTransport();
    this.ownsTransport = options.transport === undefined;
  }

  async getOperation(projectId: string, operationId: string, deadline: number): Promise<Operation> {
    const path = `/projects/${encodeURIComponent(projectId)}/operations/${encodeURIComponent(operationId)}`;
    return this.get(
      path,
      deadline,
      (body) => {
        const op = (body as { operation?: unknown }).operation;
        return isOperation(op) ? checkedOperation(op) : undefined;
      },
      (detail) =>
        `Operation ${operationId} was not found in project ${projectId}, or this API key cannot see ` +
        `that project (${detail}). Check operation_id / operations and project_id.`
    );
  }

  async listOperations(
    projectId: string,
    page: { limit: number; cursor?: string },
    deadline: number
  ): Promise<OperationsPage> {
    const query = new URLSearchParams({ limit: String(page.limit) });
    if (page.cursor) query.set('cursor', page.cursor);
    const path = `/projects/${encodeURIComponent(projectId)}/operations?${query}`;
    const notFound = (detail: string): string =>
      `Project ${projectId} was not found, or this API key cannot see it (${detail}). Check project_id.`;
    const accept = (body: unknown): OperationsPage | undefined => {
      const { operations, pagination } = body as {
        operations?: unknown;
        pagination?: { cursor?: unknown };
      };
      if (!Array.isArray(operations) || !operations.every(isOperation)) return undefined;
      const cursor =
        typeof pagination?.cursor === 'string' && pagination.cursor ? pagination.cursor : undefined;
      return { operations: operations.map(checkedOperation), cursor };
    };
    return this.get(path, deadline, accept, notFound);
  }

  async listProjects(
    page: { limit: number; cursor?: string; orgId?: string },
    deadline: number
  ): Promise<ProjectsPage> {
    const query = new URLSearchParams({ limit: String(page.limit) });
    if (page.cursor) query.set('cursor', page.cursor);
    if (page.orgId) query.set('org_id', page.orgId);
    return this.get(`/projects?${query}`, deadline, (body) => {
      const { projects, pagination } = body as {
        projects?: unknown;
        pagination?: { cursor?: unknown };
      };
      if (!Array.isArray(projects) || !projects.every((p) => typeof p?.id === 'string'))
        return undefined;
      for (const { id } of projects as Project[]) checkId('project id', id, RESOURCE_ID);
      const cursor =
        typeof pagination?.cursor === 'string' && pagination.cursor ? pagination.cursor : undefined;
      return { projects: projects as Project[], cursor };
    });
  }

  /** Lets the process exit: closes kept-alive connections (of a transport it made). */
  async close(): Promise<void> {
    if (this.ownsTransport) await this.transport.close();
  }

  /** GET with retries on transient faults, never past `deadline` (epoch ms). */
  private async get<T>(
    path: string,
    deadline: number,
    accept: (body: unknown) => T | undefined,
    notFound?: (detail: string) => string
  ): Promise<T> {
    let lastError: string | undefined;
    let lastTryAt: number | undefined;
    for (let attempt = 0; ; attempt++) {
      if (this.options.signal?.aborted) throw new CancelledError();
      const remaining = deadline - this.clock.now();
      if (remaining <= 0) throw new DeadlineError(lastError, lastTryAt);
      lastTryAt = this.clock.now();
      try {
        return await this.once(path, Math.min(this.requestTimeoutMs, remaining), accept);
      } catch (error) {
        if (error instanceof ApiError && error.status === 404 && notFound) {
          throw new ApiError(notFound(error.message), 404, error.requestId);
        }
        if (!(error instanceof TransientError)) throw error;
        lastError = error.message;
        if (error.status === 429) this.throttled++;
        const { retryAfterMs } = error;
        const delayMs = this.retry.delay(
          attempt,
          deadline - this.clock.now(),
          retryAfterMs,
          error.status === 429
        );
        if (delayMs === undefined) throw new DeadlineError(lastError, lastTryAt, retryAfterMs);
        this.options.onRetry?.({ path, attempt: attempt + 1, error: error.message, delayMs });
        await this.clock.sleep(delayMs, this.options.signal);
      }
    }
  }

  private async once<T>(
    path: string,
    timeoutMs: number,
    accept: (body: unknown) => T | undefined
  ): Promise<T> {
    const url = `${this.options.baseUrl}${path}`;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = this.options.signal ? AbortSignal.any([this.options.signal, timeout]) : timeout;
    this.requests++;
    this.options.onRequest?.(path);
    let status: number;
    let headers: Record<string, string | string[] | undefined>;
    let text: string;
    try {
      ({ status, headers, text } = await this.transport.get(
        url,
        {
          authorization: `Bearer ${this.options.apiKey}`,
          accept: 'application/json',
          'user-agent': `${ACTION_NAME}/${ACTION_VERSION} (+github-action)`
        },
        signal
      ));
    } catch (error) {
      if (this.options.signal?.aborted) throw new CancelledError();
      if (timeout.aborted) {
        // Cut short by the deadline rather than by the per-request limit: say which.
        throw new TransientError(
          timeoutMs < this.requestTimeoutMs
            ? `no answer before the deadline (${formatDuration(timeoutMs)} were left)`
            : `no answer within ${formatDuration(timeoutMs)}`
        );
      }
      throw new TransientError(describeNetworkError(error));
    }

    // The API's text is scrubbed before anything reads it: a key it echoes (in `action`, `error`,
    // `branch_id`, …) would no longer match once a label or a table had reshaped it.
    text = redact(text);
    let body: unknown;
    let parsed = true;
    try {
      body = JSON.parse(text);
    } catch {
      parsed = false;
    }
    // Real answers carry the id in X-Neon-Ret-Request-Id; the spec's error body has a request_id.
    const requestId =
      header(headers, 'x-neon-ret-request-id') ??
      header(headers, 'x-request-id') ??
      (parsed && typeof (body as { request_id?: unknown })?.request_id === 'string'
        ? (body as { request_id: string }).request_id
        : undefined);

    if (status >= 200 && status < 300) {
      if (!parsed) throw new TransientError(`HTTP ${status} with a body that is not JSON`);
      const value = typeof body === 'object' && body !== null ? accept(body) : undefined;
      if (value === undefined)
        throw new TransientError(`HTTP ${status} without the expected fields`);
      return value;
    }

    const apiMessage = parsed ? errorText(body) : undefined;
    const described = describeHttpError(status, apiMessage, requestId, text, parsed);

    if (isRetryableStatus(status)) {
      throw new TransientError(
        described,
        retryAfter(header(headers, 'retry-after'), this.clock.now()),
        status
      );
    }
    if (status >= 300 && status < 400) {
      const location = header(headers, 'location');
      let where = 'elsewhere';
      try {
        where = location ? new URL(location, url).host : where;
      } catch {
        // An unreadable Location header is still a redirect we will not follow.
      }
      throw new ApiError(
        `HTTP ${status}: the API redirected to ${where}; redirects are not followed, so that the API key ` +
          'is sent only to api_host. Check the api_host input.',
        status,
        requestId
      );
    }
    if (status === 401) {
      throw new ApiError(
        'The API refused the key (HTTP 401): it is missing, invalid or revoked. ' +
          `Check the secret passed as api_key${requestId ? ` (request_id ${requestId})` : ''}.`,
        status,
        requestId
      );
    }
    throw new ApiError(described, status, requestId);
  }
}

/**
 * An id the API sent goes on to outputs (`project_id`, `operations`), URLs and the summary, where a
 * later step may put it in a shell line: it must be an id, as an input would have to be. One that is
 * not means the answer cannot be trusted: an API error, not a fault to retry.
 */
function checkId(what: string, value: unknown, pattern: RegExp): void {
  if (typeof value === 'string' && pattern.test(value)) return;
  throw new ApiError(
    `The API answered with a ${what} that is not a valid id (${oneLine(JSON.stringify(value) ?? String(value), 80)}); ` +
      'it is not passed on.',
    200
  );
}

const OPERATION_IDS = {
  id: UUID,
  project_id: RESOURCE_ID,
  branch_id: RESOURCE_ID,
  endpoint_id: RESOURCE_ID
};

function checkedOperation(op: Operation): Operation {
  const normal = normalizeOperation(op);
  for (const [field, pattern] of Object.entries(OPERATION_IDS)) {
    if (normal[field] != null) checkId(`operation ${field}`, normal[field], pattern);
  }
  return normal;
}

function header(
  headers: Record<string, string | string[] | undefined>,
  name: string
): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** `message`, with the error `code` in front when the API sets one (e.g. PROJECTS_LIMIT_EXCEEDED). */
function errorText(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { code, message } = body as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? oneLine(message, 1000) : undefined;
  const tag = typeof code === 'string' && /^[A-Z0-9_]{1,64}$/.test(code) ? code : undefined;
  return tag && text ? `${tag}: ${text}` : (text ?? tag);
}

function describeHttpError(
  status: number,
  apiMessage: string | undefined,
  requestId: string | undefined,
  text: string,
  parsed: boolean
): string {
  const detail =
    apiMessage ?? (parsed ? '' : text.trim() ? 'a body that is not JSON' : 'an empty body');
  return `HTTP ${status}${detail ? `: ${detail}` : ''}${requestId ? ` (request_id ${requestId})` : ''}`;
}

function describeNetworkError(error: unknown): string {
  const err = error as {
    code?: string;
    message?: string;
    cause?: { code?: string; message?: string };
  };
  const code = err.code ?? err.cause?.code;
  const message = err.cause?.message ?? err.message ?? String(error);
  return `network error${code ? ` ${code}` : ''}: ${oneLine(message, 300)}`;
}
