import { type Clock, systemClock } from '../util/clock.js';
import { formatDuration } from '../util/duration.js';
import { ApiError, CancelledError, DeadlineError, TransientError } from '../util/errors.js';
import { redact, registerSecret } from '../util/redact.js';
import { secretsOf } from '../util/url-secrets.js';
import { oneLine } from '../util/text.js';
import { firstConnectionUri, responseSecrets } from './secrets.js';
import type { RequestMethod, Transport } from './http.js';
import { createTransport } from './transport.js';
import { type Answer, LOOKUP_RULES, ruleFor, type Rule, type Rules } from './answer-rules.js';
import {
  LAST_TRY_LEAD_MS,
  MIN_GAP_MS,
  MinuteShare,
  retryAfter,
  RetryPolicy,
  type RetryPolicyOptions
} from './retry.js';
import { ServiceClock } from './service-clock.js';
import {
  type EndpointHosts,
  endpointOf,
  listOf,
  operationOf,
  type OperationsPage,
  projectOf,
  projectPath,
  type Project
} from './resources.js';
import type { Operation } from './operation.js';
import { ACTION_NAME, ACTION_VERSION } from '../version.js';

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

/** A request as sent: its path is filled in and relative to the API base; `rules` is its row. */
export interface ApiRequest {
  method: RequestMethod;
  path: string;
  /** JSON text, sent as given. */
  body?: string;
  rules: Rules;
  /** The action of the first operation it starts (a typed kind says it): its history says how long it takes. */
  action?: string;
}

/** The tries of one request so far: what a deadline error or a log line says of them. */
export interface Tries {
  attempts: number;
  firstAt?: number;
  lastAt?: number;
  /** The last answer's error (or why none came). */
  lastError?: string;
  /** The last answer's `Retry-After` (ms). */
  retryAfterMs?: number;
}

/** What the send loop's caller adds to the rules: what it says, and what it does between tries. */
export interface SendOptions<T> {
  /** What an answer taken holds; undefined when it lacks what is needed (sent again, as a fault). */
  parse: (answer: Answer) => T | undefined;
  /** The answer's error as messages say it (`errorText` by default). */
  said?: (answer: Answer) => string;
  /** Until when faults other than 429 are retried (epoch ms; the caller has another way). */
  patience?: number;
  /** After a 429 without `Retry-After`, wait what this job's share of the minute says (`MinuteShare`). */
  sharing?: boolean;
  retry?: RetryPolicy;
  /** Before each send, with the time left: an error to end with instead (a deadline, the mutation floor). */
  beforeSend?: (leftMs: number, tries: Tries) => Error | undefined;
  onSend?: (tries: Tries) => void;
  onRetry?: (tries: Tries, delayMs: number, answer: Answer | undefined) => void;
  /** `await_lock`: true once the lock is released (sent again at once), false to back off as `retry`. */
  awaitLock?: (answer: Answer, tries: Tries) => Promise<boolean>;
  refused: (answer: Answer) => Error;
  unconfirmed?: (why: string) => Error;
  timedOut: (tries: Tries) => Error;
}

/** What the send loop ends with: the answer taken, the rule it met, what it holds. */
type Sent<T> = { answer: Answer; rule: Extract<Rule, 'accept' | 'adopt' | 'gone'>; value: T };

/** What a good answer holds; undefined when it lacks what is needed (the GET is retried). */
type Accept<T> = (body: Record<string, unknown>, answer: Answer) => T | undefined;

/** A host that never answered is tried this long from the first request; once it has, until the deadline. */
const FIRST_CONTACT_MS = 30_000;

export class NeonClient {
  private readonly requestTimeoutMs: number;
  private readonly clock: Clock;
  private readonly retry: RetryPolicy;
  private readonly transport: Transport;
  private readonly headers: Record<string, string>;
  requests = 0;
  /** The service's clock, from the `Date` header of every answer: operations' timestamps are on it. */
  readonly serviceClock = new ServiceClock();
  /** Answers with HTTP 429 to the lookups so far: the wait slows down when this grows. */
  throttled = 0;
  /** This job's share of the account's minute, learned from every answer and 429 (the lock's looks keep to it). */
  readonly share: MinuteShare;
  /** When the first request was sent, until the API host answers one (an HTTP status is an answer). */
  private unansweredSince?: number;
  private answered = false;

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
    const path = `${projectPath(projectId)}/operations/${encodeURIComponent(operationId)}`;
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
    const path = `${projectPath(projectId)}/operations?${query(page)}`;
    const missing = `Project ${projectId} was not found, or this API key cannot see it`;
    const accept: Accept<OperationsPage> = (body) => {
      const list = listOf(body, 'operations', operationOf, 'cursor');
      return list && { operations: list.items, ...(list.next && { cursor: list.next }) };
    };
    return this.get(path, deadline, accept, ['project', missing], patience, sharing);
  }

  /**
   * The project's compute endpoints, each with its branch and the hosts the API answers for it
   * (`GET /projects/{id}/endpoints`, one page: the API does not paginate it).
   */
  listEndpoints(projectId: string, deadline: number): Promise<EndpointHosts[]> {
    const path = `${projectPath(projectId)}/endpoints`;
    const missing = `Project ${projectId} was not found, or this API key cannot see it`;
    const accept: Accept<EndpointHosts[]> = (body) => listOf(body, 'endpoints', endpointOf)?.items;
    return this.get(path, deadline, accept, ['project', missing]);
  }

  /**
   * Any GET of the API, its answer's JSON object as is (retried as every GET): a 404 says
   * `notFound`, and `missing` names what, for the inputs to check.
   */
  getJson(
    path: string,
    deadline: number,
    notFound?: string,
    missing?: ApiError['missing']
  ): Promise<Record<string, unknown>> {
    return this.get(path, deadline, (body) => body, [missing, notFound]);
  }

  /** A branch's connection URI (`GET …/connection_uri`), unredacted: only the outputs hold it. */
  async connectionUri(path: string, deadline: number): Promise<string | undefined> {
    return (await this.get(path, deadline, (_, answer) => ({ uri: answer.connectionUri }))).uri;
  }

  async listProjects(
    page: { limit: number; org_id?: string },
    deadline: number
  ): Promise<{ projects: Project[] }> {
    const accept: Accept<Project[]> = (body) => listOf(body, 'projects', projectOf)?.items;
    return { projects: await this.get(`/projects?${query(page)}`, deadline, accept) };
  }

  /**
   * The one exchange with the API: every request of the step, whatever its method, goes here and
   * nowhere else. One timeout (the client's, cut to the time left), counted; the service's clock
   * read from its `Date`; the answer's secrets masked before anything reads it, then its text
   * redacted and parsed, its request id and `Retry-After` (an HTTP date on the service's clock)
   * read. Rejects with a `TransientError` when no answer came (the request may have been applied).
   */
  async exchange(
    method: RequestMethod,
    path: string,
    body: string | undefined,
    leftMs: number
  ): Promise<Answer> {
    const url = `${this.options.baseUrl}${path}`;
    const timeoutMs = Math.min(leftMs, this.requestTimeoutMs);
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = this.options.signal ? AbortSignal.any([this.options.signal, timeout]) : timeout;
    const headers =
      body === undefined ? this.headers : { ...this.headers, 'content-type': 'application/json' };
    this.requests++;
    this.options.onRequest?.(method, path);
    const sentAt = this.clock.now();
    if (!this.answered) this.unansweredSince ??= sentAt;
    const sending = this.transport.send(method, url, headers, body, signal);
    const response = await sending.catch((error: unknown) => {
      if (this.options.signal?.aborted) throw new CancelledError();
      // Cut short by the deadline rather than by the per-request limit: say which.
      const late =
        timeoutMs < this.requestTimeoutMs
          ? `no answer before the deadline (${formatDuration(timeoutMs)} were left)`
          : `no answer within ${formatDuration(timeoutMs)}`;
      throw new TransientError(timeout.aborted ? late : describeNetworkError(error));
    });
    const now = this.clock.now();
    this.answered = true;
    if (response.status === 429) this.share.throttled(now);
    else this.share.answer(now);
    const header = (name: string): string | undefined => [response.headers[name]].flat()[0];
    // A created branch's `created_at` is compared with when this was sent, on the service's clock.
    this.serviceClock.observe(header('date'), sentAt, now);
    let raw: unknown; // undefined: not JSON (an edge's HTML page, an empty body)
    try {
      raw = JSON.parse(response.text);
    } catch {
      // Told apart by `errorText` and the parsers.
    }
    // Masked before anything reads the answer, and the text scrubbed: a key it echoes (in `action`,
    // `error`, …) would no longer match once a label or a table had reshaped it.
    for (const secret of responseSecrets(raw)) this.maskSecret(secret);
    const text = redact(response.text);
    const unchanged = text === response.text;
    // Any other JSON (null, a number) has none of the fields read.
    const parsed: Answer['body'] =
      raw === undefined ? undefined : Object(unchanged ? raw : JSON.parse(text));
    // Real answers carry the id in X-Neon-Ret-Request-Id; the spec's error body has a request_id.
    const bodyId = typeof parsed?.request_id === 'string' ? parsed.request_id : undefined;
    // An unreadable Location header is still a redirect not to follow.
    const location = header('location') ?? '';
    return {
      status: response.status,
      body: parsed,
      errorText: describeHttpError(response.status, parsed, text),
      requestId: header('x-neon-ret-request-id') ?? header('x-request-id') ?? bodyId,
      retryAfterMs: retryAfter(header('retry-after'), this.serviceClock.toService(now)),
      redirectedTo: URL.canParse(location, url) ? new URL(location, url).host : 'elsewhere',
      connectionUri: firstConnectionUri(raw)
    };
  }

  /**
   * The one send loop: sends `request` until its row of rules (`answer-rules.ts`) accepts an
   * answer or ends the step, never past `deadline` (epoch ms), nor past `patience` but for 429s (a
   * throttled caller waits its turn whatever it asks). No answer is sent again only when the row
   * says `resend`, and a host that never answered is given up `FIRST_CONTACT_MS` from the first
   * request. `options` words what happens, and adds what the caller needs between tries.
   */
  async send<T>(request: ApiRequest, deadline: number, options: SendOptions<T>): Promise<Sent<T>> {
    const { retry = this.retry, patience = deadline, said = (a) => a.errorText } = options;
    const { signal } = this.options;
    const tries: Tries = { attempts: 0 };
    for (let backoff = 0; ;) {
      if (signal?.aborted) throw new CancelledError();
      const now = this.clock.now();
      if (now >= deadline) throw options.timedOut(tries);
      const early = options.beforeSend?.(deadline - now, tries);
      if (early) throw early;
      tries.attempts++;
      tries.firstAt ??= now;
      tries.lastAt = now;
      options.onSend?.(tries);
      let answer: Answer | undefined;
      try {
        answer = await this.exchange(request.method, request.path, request.body, deadline - now);
      } catch (error) {
        if (!(error instanceof TransientError)) throw error;
        if (ruleFor(request.rules, undefined) === 'unconfirmed' && options.unconfirmed)
          throw options.unconfirmed(error.message);
        [tries.lastError, tries.retryAfterMs] = [error.message, undefined];
      }
      const rule = ruleFor(request.rules, answer?.status);
      if (answer) {
        [tries.lastError, tries.retryAfterMs] = [said(answer), answer.retryAfterMs];
        if (rule === 'accept' || rule === 'adopt' || rule === 'gone') {
          const value = options.parse(answer);
          if (value !== undefined) return { answer, rule, value };
          const why = answer.body ? 'without the expected fields' : 'with a body that is not JSON';
          tries.lastError = `HTTP ${answer.status} ${why}`;
        } else if (rule === 'refuse' || rule === 'unconfirmed') throw options.refused(answer);
        else if (
          rule === 'await_lock' &&
          options.awaitLock &&
          (await options.awaitLock(answer, tries))
        )
          continue;
      }
      const status = answer?.status;
      const left = (status === 429 ? deadline : Math.min(deadline, patience)) - this.clock.now();
      // A caller sharing the minute waits what its share says after a 429 (one 429 a job while the
      // account's minute is full), others the backoff.
      const delayMs =
        status === 429 && tries.retryAfterMs === undefined && options.sharing
          ? this.shareDelay(left)
          : retry.delay(backoff++, left, tries.retryAfterMs, status === 429);
      if (delayMs === undefined) throw options.timedOut(tries);
      const since = this.answered ? undefined : this.unansweredSince;
      if (since !== undefined && this.clock.now() + delayMs - since > FIRST_CONTACT_MS) {
        const { host } = new URL(this.options.baseUrl);
        throw new ApiError(`The API host ${host} never answered (${tries.lastError}).`, 0);
      }
      options.onRetry?.(tries, delayMs, answer);
      await this.clock.sleep(delayMs, signal);
    }
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

  /** A lookup: a GET by the `lookup` row, its answer read by `accept`; a 404 says what was not found. */
  private async get<T>(
    path: string,
    deadline: number,
    accept: Accept<T>,
    [missing, notFound]: [ApiError['missing'], string?] = [undefined],
    patience = deadline,
    sharing = false
  ): Promise<T> {
    const sent = await this.send({ method: 'GET', path, rules: LOOKUP_RULES }, deadline, {
      parse: (answer) => (answer.body ? accept(answer.body, answer) : undefined),
      said: (answer) => `${answer.errorText}${ref(answer)}`,
      patience,
      sharing,
      onRetry: (tries, delayMs, answer) => {
        if (answer?.status === 429) this.throttled++;
        const error = tries.lastError ?? '';
        this.options.onRetry?.({ path, attempt: tries.attempts, error, delayMs });
      },
      refused: (answer) => lookupError(answer, missing, notFound),
      timedOut: (tries) =>
        new DeadlineError(tries.lastError, tries.lastAt, tries.retryAfterMs, tries.firstAt)
    });
    return sent.value;
  }

  /** What the share asks after a 429, or undefined when that passes the last try before the deadline. */
  private shareDelay(leftMs: number): number | undefined {
    const wait = Math.max(MIN_GAP_MS, this.share.waitMs(this.clock.now()));
    return wait <= leftMs - LAST_TRY_LEAD_MS ? wait : undefined;
  }
}

/** A lookup refused: the key (401), a redirect not followed, what a 404 did not find, or the API's error. */
function lookupError(answer: Answer, missing: ApiError['missing'], notFound?: string): ApiError {
  const { status, requestId } = answer;
  const said = `${answer.errorText}${ref(answer)}`;
  if (status === 404 && notFound)
    return new ApiError(`${notFound} (${said}).`, 404, requestId, missing);
  const message =
    status === 401
      ? `The API refused the key (HTTP 401): it is missing, invalid or revoked${ref(answer)}.`
      : status >= 300 && status < 400
        ? `HTTP ${status}: the API redirected to ${answer.redirectedTo}; redirects are not followed, so that the ` +
          'API key is sent only to the API host.'
        : said;
  return new ApiError(message, status, requestId);
}

/** ` (request_id …)`: how a message names the request the service answered (none when it gave no id). */
const ref = ({ requestId }: Answer) => (requestId ? ` (request_id ${requestId})` : '');

const query = (params: Record<string, string | number | undefined>) =>
  new URLSearchParams(
    Object.entries(params).flatMap(([k, v]): [string, string][] => (v ? [[k, String(v)]] : []))
  );

/** `HTTP 503: CODE: message` from the API's error body (`code` when it sets one), or what the body was. */
function describeHttpError(status: number, body: Answer['body'], text: string): string {
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
