import { type Clock, systemClock } from '../util/clock.js';
import { formatDuration } from '../util/duration.js';
import { fieldsOf, textOf } from '../util/json-fields.js';
import { ApiError, CancelledError, DeadlineError, TransientError } from '../util/errors.js';
import { redact, registerSecret } from '../util/redact.js';
import { secretsOf } from '../database/url.js';
import { firstConnectionUri, responseSecrets } from './secrets.js';
import { oneLine } from '../util/text.js';
import { createTransport, type RequestMethod, type Transport } from './http.js';
import {
  isRetryableStatus,
  LAST_TRY_LEAD_MS,
  MIN_GAP_MS,
  MinuteShare,
  retryAfter,
  RetryPolicy,
  type RetryPolicyOptions
} from './retry.js';
import { ServiceClock } from './service-clock.js';
import {
  isOperation,
  normalizeOperation,
  type Operation,
  type Project,
  RESOURCE_ID,
  UUID
} from './operation.js';
import { ACTION_NAME, ACTION_VERSION } from '../version.js';

/** Neon's own API: the default host, and the one whose console the report may link to. */
export const NEON_API_HOST = 'https://console.neon.tech/api/v2';

export type RetryEvent = { path: string; attempt: number; error: string; delayMs: number };

interface ClientOptions extends RetryPolicyOptions {
  baseUrl: string;
  apiKey: string;
  /** How requests are sent; undici with the environment's proxy settings by default. */
  transport?: Transport;
  /** Upper bound for one request; always also capped by the time left. */
  requestTimeoutMs?: number;
  clock?: Clock;
  signal?: AbortSignal;
  onRetry?: (event: RetryEvent) => void;
  onRequest?: (method: string, path: string) => void;
  /** Asks the log's viewer to hide a secret an answer holds (`core.setSecret` in the action). */
  mask?: (secret: string) => void;
}

/** One answer to a `request` input's request: its status, its JSON (redacted), its error text. */
export interface SentAnswer {
  status: number;
  body?: Record<string, unknown>;
  /** `HTTP 409: CODE: message`, for an answer outside 2xx. */
  errorText: string;
  retryAfterMs?: number;
  /** The answer's first connection URI, unredacted: only the `database_url` output holds it. */
  connectionUri?: string;
}

/** An endpoint, its branch and its hosts: its own (`host`) and its computes' (compute groups). */
export interface EndpointHosts {
  id: string;
  branchId: string;
  host: string;
  /** Each compute's `compute_host` and `compute_pooled_host`, as answered. */
  computeHosts: string[];
}

export type OperationsPage = { operations: Operation[]; cursor?: string };
type Body = Record<string, unknown>;
/** What a good answer holds; undefined when it lacks what is needed (the GET is retried). */
type Accept<T> = (body: Body) => T | undefined;

/** Whether the API host has answered any request of this client (an HTTP status is an answer). */
type HostContact =
  { state: 'untried' } | { state: 'unanswered'; since: number } | { state: 'answered' };

export class NeonClient {
  private readonly requestTimeoutMs: number;
  private readonly clock: Clock;
  private readonly retry: RetryPolicy;
  private readonly transport: Transport;
  private readonly headers: Record<string, string>;
  requests = 0;
  /** The service's clock, from the `Date` header of every answer: operations' timestamps are on it. */
  readonly serviceClock = new ServiceClock();
  /** Answers with HTTP 429 so far: the wait slows down when this grows. */
  throttled = 0;
  /** This job's share of the account's minute, learned from every answer and 429 (the lock's looks keep to it). */
  readonly share: MinuteShare;
  /** A host that never answered is tried 30 s from the first request; once it has, until the deadline. */
  private contact: HostContact = { state: 'untried' };

  constructor(private readonly options: ClientOptions) {
    this.requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
    this.clock = options.clock ?? systemClock;
    this.retry = new RetryPolicy(options);
    this.share = new MinuteShare(options.random);
    this.transport = options.transport ?? createTransport();
    this.headers = {
      authorization: `Bearer ${options.apiKey}`,
      accept: 'application/json',
      'user-agent': `${ACTION_NAME}/${ACTION_VERSION} (+github-action)`
    };
  }

  getOperation(projectId: string, operationId: string, deadline: number): Promise<Operation> {
    const path = `/projects/${encodeURIComponent(projectId)}/operations/${encodeURIComponent(operationId)}`;
    const missing = `Operation ${operationId} was not found in project ${projectId}, or this API key cannot see that project`;
    return this.get(path, deadline, (body) => operationOf(body.operation), ['operation', missing]);
  }

  /**
   * `patience`: when to stop retrying faults other than 429 (the caller has another way);
   * `sharing`: after a 429, wait what this job's share of the account's minute says (`MinuteShare`).
   */
  listOperations(
    projectId: string,
    page: { limit: number; cursor?: string },
    deadline: number,
    patience = deadline,
    sharing = false
  ): Promise<OperationsPage> {
    const path = `/projects/${encodeURIComponent(projectId)}/operations?${query(page)}`;
    const missing = `Project ${projectId} was not found, or this API key cannot see it`;
    const accept: Accept<OperationsPage> = (body) => pageOf(body, 'operations', operationOf);
    return this.get(path, deadline, accept, ['project', missing], patience, sharing);
  }

  /**
   * The project's compute endpoints, each with its branch and the hosts the API answers for it
   * (`GET /projects/{id}/endpoints`, one page: the API does not paginate it).
   */
  listEndpoints(projectId: string, deadline: number): Promise<EndpointHosts[]> {
    const path = `/projects/${encodeURIComponent(projectId)}/endpoints`;
    const missing = `Project ${projectId} was not found, or this API key cannot see it`;
    const accept: Accept<EndpointHosts[]> = (body) =>
      pageOf(body, 'endpoints', endpointOf)?.endpoints;
    return this.get(path, deadline, accept, ['project', missing]);
  }

  /**
   * Any GET of the API, its answer's JSON object as is (retried as every GET; a 404 names `notFound`).
   * Not for an answer that holds secrets: those go through `sendOnce`, which masks them.
   */
  getJson(path: string, deadline: number, notFound?: string): Promise<Record<string, unknown>> {
    return this.get(path, deadline, (body) => body, [undefined, notFound]);
  }

  listProjects(
    page: { limit: number; org_id?: string },
    deadline: number
  ): Promise<{ projects: Project[] }> {
    return this.get(`/projects?${query(page)}`, deadline, (body) =>
      pageOf(body, 'projects', projectOf)
    );
  }

  /**
   * Sends one request of the `request` input, once: the caller decides on retries (`request.ts`).
   * Rejects with a `TransientError` without a status when no answer came (the request may have been
   * applied). The body of the answer is parsed from its redacted text.
   */
  async sendOnce(
    method: RequestMethod,
    path: string,
    body: string | undefined,
    timeoutMs: number
  ): Promise<SentAnswer> {
    const url = `${this.options.baseUrl}${path}`;
    const timeout = AbortSignal.timeout(Math.min(timeoutMs, this.requestTimeoutMs));
    const signal = this.options.signal ? AbortSignal.any([this.options.signal, timeout]) : timeout;
    const headers =
      body === undefined ? this.headers : { ...this.headers, 'content-type': 'application/json' };
    this.requests++;
    this.options.onRequest?.(method, path);
    const sentAt = this.clock.now();
    const response = await this.transport
      .send(method, url, headers, body, signal)
      .catch((error: unknown) => {
        if (this.options.signal?.aborted) throw new CancelledError();
        const late = `no answer within ${formatDuration(Math.min(timeoutMs, this.requestTimeoutMs))}`;
        throw new TransientError(timeout.aborted ? late : describeNetworkError(error));
      });
    // A created branch's `created_at` is compared with when this was sent, on the service's clock.
    this.serviceClock.observe([response.headers.date].flat()[0], sentAt, this.clock.now());
    let raw: unknown;
    try {
      raw = JSON.parse(response.text);
    } catch {
      // Not JSON: `errorText` tells so.
    }
    // Masked before anything reads the answer: every later text is redacted of them.
    for (const secret of responseSecrets(raw)) this.maskSecret(secret);
    const text = redact(response.text);
    const parsed: Body | undefined = raw === undefined ? undefined : Object(JSON.parse(text));
    if (response.status === 429) this.share.throttled(this.clock.now());
    else this.share.answer(this.clock.now());
    const header = [response.headers['retry-after']].flat()[0];
    return {
      status: response.status,
      body: parsed,
      errorText: describeHttpError(response.status, parsed, text),
      retryAfterMs: retryAfter(header, this.clock.now()),
      connectionUri: firstConnectionUri(raw)
    };
  }

  /**
   * Masks a secret, and every part of it that would reveal it, as an answer's are on arrival: for
   * one made here from an answer's (a created branch's pooled URL, built from its direct one).
   */
  maskSecret(secret: string): void {
    for (const part of [secret, ...secretsOf(secret)]) {
      registerSecret(part);
      if (part.trim()) this.options.mask?.(part.trim());
    }
  }

  /** Lets the process exit: closes kept-alive connections of a transport it made (a given one may serve others). */
  async close(): Promise<void> {
    if (!this.options.transport) await this.transport.close();
  }

  /**
   * GET with retries on transient faults, never past `deadline` (epoch ms), nor past `patience` but
   * for 429s (a throttled caller waits its turn whatever it asks); a 404 says what was not found.
   */
  private async get<T>(
    path: string,
    deadline: number,
    accept: Accept<T>,
    [missing, notFound]: [ApiError['missing'], string?] = [undefined],
    patience = deadline,
    sharing = false
  ): Promise<T> {
    let lastError: string | undefined;
    let lastTryAt: number | undefined;
    let firstTryAt: number | undefined;
    for (let attempt = 0; ; attempt++) {
      if (this.options.signal?.aborted) throw new CancelledError();
      const now = this.clock.now();
      if (now >= deadline) throw new DeadlineError(lastError, lastTryAt, undefined, firstTryAt);
      lastTryAt = now;
      firstTryAt ??= now;
      if (this.contact.state === 'untried') this.contact = { state: 'unanswered', since: now };
      try {
        return await this.once(path, Math.min(this.requestTimeoutMs, deadline - now), accept);
      } catch (error) {
        if (error instanceof ApiError && error.status === 404 && notFound)
          throw new ApiError(`${notFound} (${error.message}).`, 404, error.requestId, missing);
        if (!(error instanceof TransientError)) throw error;
        const { message, retryAfterMs, status } = error;
        lastError = message;
        if (status === 429) this.throttled++;
        const left = (status === 429 ? deadline : Math.min(deadline, patience)) - this.clock.now();
        // A caller sharing the minute waits what its share says after a 429 (one 429 a job while the
        // account's minute is full), others the backoff.
        const delayMs =
          status === 429 && retryAfterMs === undefined && sharing
            ? this.shareDelay(left)
            : this.retry.delay(attempt, left, retryAfterMs, status === 429);
        if (delayMs === undefined)
          throw new DeadlineError(lastError, lastTryAt, retryAfterMs, firstTryAt);
        const { host } = new URL(this.options.baseUrl);
        const { contact } = this;
        if (contact.state === 'unanswered' && this.clock.now() + delayMs - contact.since > 30_000)
          throw new ApiError(`The API host ${host} never answered (${message}).`, 0);
        this.options.onRetry?.({ path, attempt: attempt + 1, error: message, delayMs });
        await this.clock.sleep(delayMs, this.options.signal);
      }
    }
  }

  /** What the share asks after a 429, or undefined when that passes the last try before the deadline. */
  private shareDelay(leftMs: number): number | undefined {
    const wait = Math.max(MIN_GAP_MS, this.share.waitMs(this.clock.now()));
    return wait <= leftMs - LAST_TRY_LEAD_MS ? wait : undefined;
  }

  private async once<T>(path: string, timeoutMs: number, accept: Accept<T>): Promise<T> {
    const url = `${this.options.baseUrl}${path}`;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = this.options.signal ? AbortSignal.any([this.options.signal, timeout]) : timeout;
    this.requests++;
    this.options.onRequest?.('GET', path);
    const sentAt = this.clock.now();
    const response = await this.transport.get(url, this.headers, signal).catch((error: unknown) => {
      if (this.options.signal?.aborted) throw new CancelledError();
      // Cut short by the deadline rather than by the per-request limit: say which.
      const late =
        timeoutMs < this.requestTimeoutMs
          ? `no answer before the deadline (${formatDuration(timeoutMs)} were left)`
          : `no answer within ${formatDuration(timeoutMs)}`;
      throw new TransientError(timeout.aborted ? late : describeNetworkError(error));
    });

    this.contact = { state: 'answered' };
    if (response.status === 429) this.share.throttled(this.clock.now());
    else this.share.answer(this.clock.now());
    const header = (name: string): string | undefined => [response.headers[name]].flat()[0];
    this.serviceClock.observe(header('date'), sentAt, this.clock.now());
    // The API's text is scrubbed before anything reads it: a key it echoes (in `action`, `error`,
    // `branch_id`, …) would no longer match once a label or a table had reshaped it.
    const { status } = response;
    const text = redact(response.text);
    let body: Body | undefined; // undefined: not JSON (an edge's HTML page, an empty body)
    try {
      body = Object(JSON.parse(text)); // any other JSON (null, a number) has none of the fields read
    } catch {
      // Told apart below.
    }
    // Real answers carry the id in X-Neon-Ret-Request-Id; the spec's error body has a request_id.
    const bodyId = typeof body?.request_id === 'string' ? body.request_id : undefined;
    const requestId = header('x-neon-ret-request-id') ?? header('x-request-id') ?? bodyId;
    const ref = requestId ? ` (request_id ${requestId})` : '';

    if (status >= 200 && status < 300) {
      const value = body && accept(body);
      if (value !== undefined) return value;
      const why = body ? 'without the expected fields' : 'with a body that is not JSON';
      throw new TransientError(`HTTP ${status} ${why}`);
    }
    const errorText = `${describeHttpError(status, body, text)}${ref}`;
    if (isRetryableStatus(status))
      // An HTTP-date Retry-After is on the service's clock.
      throw new TransientError(
        errorText,
        retryAfter(header('retry-after'), this.serviceClock.toService(this.clock.now())),
        status
      );
    // An unreadable Location header is still a redirect not to follow.
    const location = header('location') ?? '';
    const where = URL.canParse(location, url) ? new URL(location, url).host : 'elsewhere';
    const message =
      status === 401
        ? `The API refused the key (HTTP 401): it is missing, invalid or revoked${ref}.`
        : status >= 300 && status < 400
          ? `HTTP ${status}: the API redirected to ${where}; redirects are not followed, so that the ` +
            'API key is sent only to the API host.'
          : errorText;
    throw new ApiError(message, status, requestId);
  }
}

const query = (params: Record<string, string | number | undefined>) =>
  new URLSearchParams(
    Object.entries(params).flatMap(([k, v]): [string, string][] => (v ? [[k, String(v)]] : []))
  );

/** A List answer: every item readable (else undefined: an unreadable answer) and the next cursor. */
function pageOf<K extends string, T>(body: Body, key: K, item: (value: unknown) => T | undefined) {
  const { [key]: list, pagination } = body as Record<string, { cursor?: unknown } | undefined>;
  const items = Array.isArray(list) ? list.map(item) : [undefined];
  if (items.includes(undefined)) return undefined;
  const cursor = pagination?.cursor;
  return { [key]: items, ...(typeof cursor === 'string' && cursor && { cursor }) } as {
    [key in K]: T[];
  } & { cursor?: string };
}

/**
 * An id the API sent goes on to outputs, URLs and the summary, where a later step may put it in a
 * shell line: it must be an id. One that is not makes the answer untrustworthy: an API error.
 */
function checkId(what: string, value: unknown, pattern: RegExp): void {
  if (typeof value === 'string' && pattern.test(value)) return;
  const shown = oneLine(JSON.stringify(value) ?? String(value), 80);
  throw new ApiError(
    `The API answered with a ${what} that is not a valid id (${shown}); it is not passed on.`,
    200
  );
}

/** An operation, the ids the action names checked; other fields are data passed on as written. */
function operationOf(value: unknown): Operation | undefined {
  if (!isOperation(value)) return undefined;
  const op = normalizeOperation(value);
  checkId('operation id', op.id, UUID);
  checkId('operation "project_id"', op.project_id, RESOURCE_ID);
  return op;
}

function endpointOf(value: unknown): EndpointHosts | undefined {
  const fields = fieldsOf(value);
  const [id, branchId, host] = ['id', 'branch_id', 'host'].map((key) => textOf(fields, key));
  if (id === undefined || branchId === undefined || host === undefined) return undefined;
  checkId('endpoint id', id, RESOURCE_ID);
  checkId('endpoint "branch_id"', branchId, RESOURCE_ID);
  return { id, branchId, host, computeHosts: computeHostsOf(fields.get('group')) };
}

/** The hosts of a compute group's computes; an endpoint without a group (older answers) has none. */
function computeHostsOf(group: unknown): string[] {
  const computes = fieldsOf(group).get('computes');
  if (!Array.isArray(computes)) return [];
  return computes.flatMap((compute: unknown) => {
    const fields = fieldsOf(compute);
    const hosts = [textOf(fields, 'compute_host'), textOf(fields, 'compute_pooled_host')];
    return hosts.filter((host): host is string => host !== undefined && host !== '');
  });
}

function projectOf(value: unknown): Project | undefined {
  const id = (value as Project | undefined)?.id;
  if (typeof id !== 'string') return undefined;
  checkId('project id', id, RESOURCE_ID);
  return value as Project;
}

/** `HTTP 503: CODE: message` from the API's error body (`code` when it sets one), or what the body was. */
function describeHttpError(status: number, body: Body | undefined, text: string): string {
  const { code, message } = body ?? {};
  const apiMessage = typeof message === 'string' ? oneLine(message, 1000) : undefined;
  const tag = typeof code === 'string' && /^[A-Z0-9_]{1,64}$/.test(code) ? code : undefined;
  const what = text.trim() ? 'a body that is not JSON' : 'an empty body';
  const detail = body ? [tag, apiMessage].filter(Boolean).join(': ') : what;
  return `HTTP ${status}${detail ? `: ${detail}` : ''}`;
}

function describeNetworkError(error: unknown): string {
  type Err = { code?: string; message?: string; cause?: Err };
  const { cause, code = cause?.code, message = String(error) } = error as Err;
  return `network error${code ? ` ${code}` : ''}: ${oneLine(cause?.message ?? message, 300)}`;
}
