import {
  isOperation,
  normalizeOperation,
  type Operation,
  RESOURCE_ID,
  UUID
} from './neon/operation.js';
import type { EngineSettings } from './engine.js';
import { NEON_API_HOST } from './neon/client.js';
import { parseDuration, YEAR_MS } from './util/duration.js';
import { InputError } from './util/errors.js';
import { redactUrl, registerSecret } from './util/redact.js';
import { type DatabaseTarget, parseDatabaseUrl, secretsOf } from './database/url.js';

export { InputError };

/**
 * Everything a run was asked to do, read and checked once before any request is sent: the action's
 * inputs (`INPUT_*`) or the command's flags, by the action's input names. This is the only module
 * that interprets them.
 */
export interface Settings extends EngineSettings {
  commentOnPr: boolean;
  commentTag: string;
  githubToken: string;
}

/** Reads one input by its name in action.yml, untrimmed ('' when unset): each reader decides what spaces mean. */
export type InputReader = (name: string) => string;

const MAX_TIMEOUT_MS = 6 * 3_600_000; // a GitHub-hosted job cannot run longer
const MAX_INTERVAL_MS = 3_600_000;

/**
 * @param input reads one input by name (the runner's `INPUT_*`, or the command line's flags)
 * @param mask asks whoever shows the log to hide a secret (the runner's `::add-mask::`); every
 *   secret is also redacted from what the product writes, whatever `mask` does
 */
export function readSettings(input: InputReader, mask: (secret: string) => void): Settings {
  const get = (name: string): string => input(name).trim();
  const secret = (value: string): void => {
    mask(value.trim());
    registerSecret(value);
  };

  const apiKey = input('api_key');
  // Masked before anything else can print them, even a message about another input.
  if (apiKey.trim()) secret(apiKey);
  const databaseUrl = input('database_url');
  for (const value of databaseUrl.trim() ? secretsOf(databaseUrl) : []) secret(value);
  if (apiKey.trim() === '') {
    throw new InputError(
      "Input 'api_key' is required: pass a Neon API key from a secret, e.g. api_key: ${{ secrets.NEON_API_KEY }}."
    );
  }
  if (/\s/.test(apiKey.trim())) {
    throw new InputError("Input 'api_key' must be a single token without spaces or newlines.");
  }
  // An HTTP header carries visible ASCII only: anything else would fail every request until the
  // deadline. The key itself is never quoted.
  if (!/^[\x21-\x7e]+$/.test(apiKey.trim())) {
    throw new InputError(
      "Input 'api_key' must be a Neon API key of visible ASCII characters (letters, digits, punctuation); " +
        'it holds a character no HTTP header can carry (such as a zero-width space, a letter outside ' +
        'ASCII or a control character). Copy the key into the secret again.'
    );
  }

  const projectId = optionalId('project_id', get('project_id'));
  const orgId = optionalId('org_id', get('org_id'));
  const branchId = optionalId('branch_id', get('branch_id'));
  const idsFromInput = parseOperationIds(get('operation_id'));
  const givenOperations = parseOperationsJson(get('operations'));

  const projectsOfOperations = new Set(givenOperations.map((op) => op.project_id));
  if (projectsOfOperations.size > 1) {
    throw new InputError(
      `Input 'operations' holds operations of several projects (${[...projectsOfOperations].join(', ')}); ` +
        'wait for one project per step.'
    );
  }
  const [projectOfOperations] = projectsOfOperations;
  if (projectId && projectOfOperations && projectOfOperations !== projectId) {
    throw new InputError(
      `Input 'operations' belongs to project '${projectOfOperations}', but input 'project_id' is '${projectId}'.`
    );
  }

  const timeoutMs = durationInput('timeout', get('timeout') || '10m', 1000, MAX_TIMEOUT_MS, '6h');
  const intervalMs = durationInput(
    'interval',
    get('interval') || '5s',
    1000,
    MAX_INTERVAL_MS,
    '1h'
  );

  return {
    apiKey: apiKey.trim(),
    apiHost: parseApiHost(get('api_host') || NEON_API_HOST),
    projectId: projectId ?? projectOfOperations,
    orgId,
    branchId,
    operationIds: [...new Set([...idsFromInput, ...givenOperations.map((op) => op.id)])],
    givenOperations,
    wait: booleanInput('wait', get('wait'), true),
    timeoutMs,
    intervalMs,
    failFast: booleanInput('fail_fast', get('fail_fast'), false),
    summary: booleanInput('summary', get('summary'), true),
    summaryLimit: integerInput('summary_limit', get('summary_limit'), 20, 0, 1000),
    commentOnPr: booleanInput('comment_on_pr', get('comment_on_pr'), false),
    commentTag: commentTagInput(get('comment_tag')),
    githubToken: input('github_token').trim(),
    databaseUrl: databaseUrlInput(databaseUrl.trim()),
    watchJob: booleanInput('watch_job', get('watch_job'), false),
    sinceMs: sinceInput(get('since'), Date.now())
  };
}

const ISO_TIME =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;
/** ISO 8601's basic format (20261125, 20261125T100000Z), rewritten in the extended one above. */
const ISO_BASIC = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2}(?:\.\d+)?)?(Z|[+-]\d{4})?)?$/i;

/** Epoch ms of an ISO 8601 time in either format, else NaN. */
function isoTime(value: string): number {
  const basic = ISO_BASIC.exec(value);
  const [, y, mo, d, h, mi, sec, zone = ''] = basic ?? [];
  const text = !basic
    ? value
    : `${y}-${mo}-${d}` +
      (h ? `T${h}:${mi}${sec ? `:${sec}` : ''}${zone.replace(/^([+-]\d\d)(\d\d)$/, '$1:$2')}` : '');
  return ISO_TIME.test(text) ? Date.parse(text) : NaN;
}

/**
 * `since`: an ISO 8601 time (e.g. a pull request's created_at) or a duration back from now. A bare
 * number is neither (`20261125` is a date; `90` would be seconds only for `timeout`), so it is refused.
 */
export function sinceInput(value: string, now: number): number | undefined {
  if (value === '') return undefined;
  const bare = /^\d+(\.\d+)?$/.test(value);
  const back = bare ? undefined : parseDuration(value);
  const at = back !== undefined ? now - back : isoTime(value);
  if (!Number.isFinite(at) || now - at > YEAR_MS || at > now + 86_400_000) {
    throw new InputError(
      "Input 'since' must be an ISO 8601 time such as 2026-11-26T10:00:00Z or 20261126 (for example " +
        '${{ github.event.pull_request.created_at }}) or a duration back from now such as 2h or 7d, ' +
        `within the last year; got '${printable(value)}'` +
        (bare && Number.isNaN(at) ? ', a number without a unit.' : '.')
    );
  }
  return at;
}

/** Parsed now (a malformed URL is an input error), used after the wait. */
function databaseUrlInput(value: string): DatabaseTarget | undefined {
  return value === '' ? undefined : parseDatabaseUrl(value);
}

function optionalId(name: string, value: string): string | undefined {
  if (value === '') return undefined;
  if (!RESOURCE_ID.test(value)) {
    throw new InputError(
      `Input '${name}' must be a Neon id of lower-case letters, digits and hyphens (1 to 60), e.g. ` +
        `${name === 'branch_id' ? 'br-wispy-meadow-118737' : name === 'org_id' ? 'org-morning-bread-81040908' : 'spring-example-302709'}; got '${printable(value)}'.`
    );
  }
  return value;
}

export function parseOperationIds(value: string): string[] {
  if (value === '') return [];
  const ids = value.split(/[\s,]+/).filter(Boolean);
  for (const id of ids) {
    if (!UUID.test(id)) {
      throw new InputError(
        `Input 'operation_id' must hold operation ids (UUIDs such as d8ac46eb-a757-42b1-9907-f78322ee394e) ` +
          `separated by commas, spaces or newlines; '${printable(id)}' is not one.`
      );
    }
  }
  return [...new Set(ids.map((id) => id.toLowerCase()))];
}

export function parseOperationsJson(value: string): Operation[] {
  if (value === '') return [];
  const expected =
    "Input 'operations' must be JSON: the body of the response that started the work " +
    '(an object with an "operations" array) or that array itself';
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new InputError(`${expected}; it is not valid JSON (${(error as Error).message}).`);
  }
  const list = Array.isArray(parsed)
    ? parsed
    : typeof parsed === 'object' &&
        parsed !== null &&
        Array.isArray((parsed as { operations?: unknown }).operations)
      ? (parsed as { operations: unknown[] }).operations
      : undefined;
  if (!list) throw new InputError(`${expected}; it has no "operations" array.`);
  if (list.length === 0) {
    throw new InputError(
      `${expected}; its "operations" array is empty, so there is nothing to wait for.`
    );
  }
  return list.map((item, index) => {
    if (!isOperation(item) || !UUID.test(item.id) || !RESOURCE_ID.test(item.project_id)) {
      throw new InputError(
        `${expected}; item ${index} is not an operation (it needs a UUID "id", a "project_id", an "action" and a "status").`
      );
    }
    return normalizeOperation(item);
  });
}

function durationInput(
  name: string,
  value: string,
  min: number,
  max: number,
  maxText: string
): number {
  const ms = parseDuration(value);
  if (ms === undefined || ms < min || ms > max) {
    const why = ms === undefined ? 'not a duration' : ms < min ? 'too short' : 'too long';
    throw new InputError(
      `Input '${name}' must be a duration from 1s to ${maxText}, such as 90, 90s, 15m, 1h or 1m30s; ` +
        `'${printable(value)}' is ${why}.`
    );
  }
  return ms;
}

/** Whether a summary is wanted, read leniently: a step whose inputs are wrong still gets one unless it was asked off. */
export function summaryWanted(input: InputReader): boolean {
  return !/^(false|False|FALSE)$/.test(input('summary').trim());
}

/** As `core.getBooleanInput` reads them (the YAML 1.2 core schema's booleans), with our message. */
function booleanInput(name: string, value: string, fallback: boolean): boolean {
  if (value === '') return fallback;
  if (/^(true|True|TRUE)$/.test(value)) return true;
  if (/^(false|False|FALSE)$/.test(value)) return false;
  throw new InputError(
    `Input '${name}' must be true or false (true, True, TRUE, false, False or FALSE); got '${printable(value)}'.`
  );
}

function integerInput(
  name: string,
  value: string,
  fallback: number,
  min: number,
  max: number
): number {
  if (value === '') return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) {
    throw new InputError(
      `Input '${name}' must be a whole number from ${min} to ${max}; got '${printable(value)}'.`
    );
  }
  return n;
}

function commentTagInput(value: string): string {
  if (!/^[\w .:/@+-]{0,100}$/.test(value) || value.includes('--')) {
    throw new InputError(
      `Input 'comment_tag' must be up to 100 letters, digits, spaces or . _ : / @ + - (no "--"); got '${printable(value)}'.`
    );
  }
  return value;
}

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export function parseApiHost(value: string): string {
  const expected =
    `Input 'api_host' must be the API's base URL, such as ${NEON_API_HOST} ` +
    '(https; plain http only for 127.0.0.1, ::1 or localhost)';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InputError(`${expected}; '${printable(redactUrl(value))}' is not a URL.`);
  }
  if (url.username || url.password) {
    throw new InputError(`${expected}; it must not hold credentials: pass the key in 'api_key'.`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    throw new InputError(`${expected}; '${url.protocol}//${url.host}' is not allowed.`);
  }
  if (url.search || url.hash || /[?#]/.test(value)) {
    throw new InputError(`${expected}; it must not have a query or a fragment.`);
  }
  return url.href.replace(/\/+$/, '');
}

/** An input value quoted in an error message: bounded, one line. */
function printable(value: string): string {
  const flat = value.replace(/\s+/g, ' ');
  return flat.length > 60 ? `${flat.slice(0, 57)}...` : flat;
}
