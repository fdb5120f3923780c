import { awaitedOperations, checkFacts, type Report, timedOut } from './report/model.js';
import { redact } from './util/redact.js';
import { truncate } from './util/text.js';
import { BRANCH_WORDS } from './report/branch-words.js';
import { sweptOf } from './report/sweep-words.js';

/** One result field: the action's output (action.yml is checked against these) and the command's `--json`. */
interface Output {
  name: string;
  description: string;
  value?: (report: Report) => unknown; // none: only the action's publishing knows it (the summary, the comment)
  text?: (value: unknown) => string; // where `String` would not do
  /** Its `--json` field's type, for docs/reference.md (with `value`). */
  json?: string;
  /** A secret the runner masks: written as is (not redacted), and never in the command's `--json`. */
  secret?: (report: Report) => string | undefined;
}

/** An id the request's answer holds at `key` (`branch.id`), or in the first item of `list` (`endpoints[0].id`). */
function answerId(report: Report, key: string, list: string): string | undefined {
  const answer = report.request?.response;
  if (!answer || typeof answer !== 'object') return undefined;
  const fields = new Map(Object.entries(answer));
  const items = fields.get(list);
  const first: unknown = fields.get(key) ?? (Array.isArray(items) ? items[0] : undefined);
  const id =
    first && typeof first === 'object' ? new Map(Object.entries(first)).get('id') : undefined;
  return typeof id === 'string' ? id : undefined;
}

/** Whether every check named `name` found `fact` true (`any`: one did); undefined when none says. */
function factTrue(report: Report, name: string, fact: string, any = false): boolean | undefined {
  const values = checkFacts(report, name).map((facts) => facts?.[fact]);
  const said = values.filter((value) => typeof value === 'boolean');
  if (said.length === 0) return undefined;
  return any ? said.some(Boolean) : said.every(Boolean);
}

/** The destructive changes every schema review named; undefined when none was taken. */
function destructiveChanges(report: Report): unknown[] | undefined {
  const lists = checkFacts(report, 'schema review').map((facts) => facts?.destructive);
  const taken = lists.filter((list) => Array.isArray(list));
  return taken.length > 0 ? taken.flat() : undefined;
}

const nonEmpty = (list: unknown[] | undefined): boolean | undefined => list && list.length > 0;

const seconds = (r: Report): number => Number(((r.finishedAt - r.startedAt) / 1000).toFixed(1));

// prettier-ignore
export const OUTPUTS: readonly Output[] = [
  { name: 'status', description: 'The verdict (docs/how-it-decides.md): the operations\' worst status, or the wait\'s own (`idle`, …).', value: (r) => r.status, json: 'string: `finished`, `skipped`, `idle`, `timeout`, `api_error`, `input_error`, … (the action\'s `status`)' },
  { name: 'timed_out', description: '`true` when the deadline passed before the wait ended, else `false`.', value: timedOut, json: 'boolean' },
  { name: 'operation', description: 'JSON of the first awaited operation as last seen.', value: (r) => awaitedOperations(r)[0] ?? null, json: 'object (the first awaited operation as last seen), or `null`' },
  { name: 'operations', description: 'JSON array of every awaited operation as last seen.', value: awaitedOperations, json: 'array of objects' },
  { name: 'failures_count', description: 'Sum of failures_count over the awaited operations.', value: (r) => awaitedOperations(r).reduce((n, op) => n + (Number(op.failures_count) || 0), 0), json: 'number' },
  { name: 'elapsed_seconds', description: 'Seconds spent, with one decimal.', value: seconds, text: (s) => (s as number).toFixed(1), json: 'number' },
  { name: 'project_id', description: 'The project used.', value: (r) => r.targets[0].projectId ?? '', json: 'string, `""` when no project was found' },
  { name: 'summary', description: 'The job summary as Markdown.' },
  { name: 'comment_url', description: 'URL of the PR comment written or updated, else empty.' },
  { name: 'response', description: 'With request: the accepted answer\'s JSON, every secret (password, URI, key, token) replaced by `***`.', value: (r) => r.request?.response , json: 'object (the accepted answer, secrets replaced by `***`), only with a request' },
  { name: 'request_status', description: 'With request: the HTTP status of the accepted answer; empty when no request was asked or none was accepted.', value: (r) => r.request?.status , json: 'number, only with a request that was accepted' },
  { name: 'request_attempts', description: 'With request: how many times it was sent (423, 429 and 503 answers are retried).', value: (r) => r.request?.attempts , json: 'number, only with a request' },
  { name: 'request_lock', description: 'With request: `{"locked_seconds", "held_by"}` when 423 Locked answered (who held the project), else empty.', value: (r) => (r.request?.holders.length ? { locked_seconds: Number((r.request.lockedMs / 1000).toFixed(1)), held_by: r.request.holders } : undefined) , json: 'object `{locked_seconds, held_by}`, only when 423 Locked answered' },
  { name: 'branch_id', description: "The branch created, reused or deleted; with request, the answer's `branch.id`.", value: (r) => r.request?.branch?.id ?? answerId(r, 'branch', 'branches') , json: 'string, only when a branch was named or answered' },
  { name: 'branch_name', description: "That branch's name.", value: (r) => r.request?.branch?.name , json: 'string, only with create_branch or delete_branch' },
  { name: 'branch_outcome', description: 'What the step did to the branch: `created`, `reused`, `reset`, `deleted` or `gone` (already gone).', value: (r) => r.request?.branch?.outcome, json: 'string, only with create_branch or delete_branch once the branch is known' },
  { name: 'swept', description: 'With sweep_branches: JSON array of the branches deleted (dry run: to delete), each `{id, name, reason}`.', value: (r) => r.request?.sweep && sweptOf(r.request.sweep.plan), json: 'array of `{id, name, reason}`, only with sweep_branches' },
  { name: 'branches_count', description: "With sweep_branches: the project's branches after it.", value: (r) => r.request?.sweep?.branchesCount, json: 'number, only with sweep_branches' },
  { name: 'branches_limit', description: "With sweep_branches: the plan's `branches_limit`, when the API answers it.", value: (r) => r.request?.sweep?.branchesLimit, json: 'number, only with sweep_branches' },
  { name: 'created', description: '`true` when this step made the branch, `false` when it reused it.', value: (r) => r.request?.branch && BRANCH_WORDS[r.request.branch.outcome].created , json: 'boolean, only with create_branch once the branch is known' },
  { name: 'parent_branch', description: "The parent's name (or id).", value: (r) => r.request?.branch?.parentName ?? r.request?.branch?.parentId , json: 'string, only with create_branch once the branch is known' },
  { name: 'expires_at', description: 'When the branch expires (RFC 3339), else empty.', value: (r) => r.request?.branch?.expiresAt , json: 'string, only with a branch that expires' },
  { name: 'ready_seconds', description: 'Seconds until the branch was ready.', value: (r) => (r.request?.branch?.readyMs === undefined ? undefined : Number((r.request.branch.readyMs / 1000).toFixed(1))) , json: 'number, only once the branch is ready' },
  { name: 'endpoint_id', description: 'With request: the answer\'s first endpoint id (`endpoint.id` or `endpoints[0].id`), else empty.', value: (r) => answerId(r, 'endpoint', 'endpoints') , json: 'string, only when the answer holds an endpoint' },
  { name: 'database_url', description: "The branch's connection URL (with request: the answer's first URI). Masked; not in --json.", secret: (r) => r.request?.databaseUrl },
  { name: 'database_url_pooled', description: 'Its pooled URL. Masked; not in --json.', secret: (r) => r.request?.branch?.connection?.pooledUrl },
  { name: 'database_host', description: 'The host of `database_url`.', value: (r) => r.request?.branch?.connection?.host, json: 'string, only with create_branch once connected' },
  { name: 'database_host_pooled', description: 'The host of `database_url_pooled`.', value: (r) => r.request?.branch?.connection?.pooledHost, json: 'string, only with create_branch once connected' },
  { name: 'database_ready', description: 'With database_url: `true` when SELECT 1 answered, else `false`.', value: (r) => factTrue(r, 'database', 'ready'), json: 'boolean, only with a database URL' },
  { name: 'schema_changed', description: "With compare_schema: `true` when the branch's schema differs from its parent's, else `false`.", value: (r) => factTrue(r, 'schema review', 'changed', true), json: 'boolean, only once the schema review was taken' },
  { name: 'schema_destructive', description: 'With compare_schema: `true` when the review names a destructive change, else `false`.', value: (r) => nonEmpty(destructiveChanges(r)), json: 'boolean, only once the schema review was taken' },
  { name: 'destructive_changes', description: 'With compare_schema: JSON array of the destructive changes (`action`, `kind`, `name`, …).', value: destructiveChanges, json: 'array of objects `{action, kind, name, on?, from?, to?}`, only once the schema review was taken' }
];

/** The command's own `--json` fields, after the outputs' (`FORMATS.json` in cli/result.ts sets them). */
// prettier-ignore
export const COMMAND_FIELDS: ReadonlyArray<{ name: string; json: string }> = [
  { name: 'exit_code', json: "number: the process's exit code ([exit codes](cli.md#exit-codes))" },
  { name: 'message', json: 'string: the verdict line, why it ended; after a timeout it ends with the last API error, if there was one' },
  { name: 'last_api_error', json: 'string: the error of the request still failing at the deadline, or `null`' },
  { name: 'sweep', json: 'array of `{id, name, done, reason}`: every branch --sweep-branches matched, what was done and why; only with it' }
];

/** The most a result value holds, in characters: 4,000 a text, about 1,000,000 in all. */
const TEXT_CHARS = 4000;
const RESULT_CHARS = 1_000_000;

/**
 * A result value as JSON, bounded whatever its shape (the API's fields are not ours to trust): each
 * text redacted and cut, and once the budget is spent, the rest of every array and of the API's
 * objects left out. A document's own fields (the first level) are kept, scalars before the rest.
 * Redacted value by value: redacting the document would rewrite its keys (`timed_out`).
 */
export function resultJson(value: unknown): string {
  let left = RESULT_CHARS;
  const fit = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') {
      const text = truncate(redact(v), TEXT_CHARS);
      left -= text.length;
      return text;
    }
    if (typeof v !== 'object' || v === null) {
      left -= 8; // a number, true, null
      return v;
    }
    if (Array.isArray(v)) {
      const items: unknown[] = [];
      for (const item of v) {
        if (left <= 0) break;
        items.push(fit(item, depth + 1));
      }
      return items;
    }
    // The budget goes to plain values first; the fields keep their order (documented for --json).
    const entries = Object.entries(v);
    const scalarsFirst = [...entries].sort(
      ([, a], [, b]) => Number(isContainer(a)) - Number(isContainer(b))
    );
    const fitted = new Map<string, unknown>();
    for (const [key, field] of scalarsFirst) {
      if (depth > 0 && left <= 0) break;
      left -= key.length;
      fitted.set(key, fit(field, depth + 1));
    }
    return Object.fromEntries(
      entries.flatMap(([key]) => (fitted.has(key) ? [[key, fitted.get(key)]] : []))
    );
  };
  return JSON.stringify(fit(value, 0));
}

const isContainer = (v: unknown): boolean => typeof v === 'object' && v !== null;

/** The run's result as typed values (the command's `--json`); a field without a value is left out. */
export function resultFields(report: Report): Record<string, unknown> {
  const fields = OUTPUTS.map((o) => [o.name, o.value?.(report)] as const);
  return Object.fromEntries(fields.filter(([, value]) => value !== undefined));
}

/** An output's text as the runner keeps it: JSON for objects, '' for none. */
export function outputText(output: Output, value: unknown): string {
  if (value === undefined || value === null) return '';
  if (output.text) return redact(output.text(value));
  return typeof value === 'object' ? resultJson(value) : redact(String(value));
}
