import type { Report } from './report/model.js';
import { truncate } from './util/text.js';
import { STATUS_NAMES } from './wait/status.js';

/** One result field: the action's output (action.yml is checked against these) and the command's `--json`. */
interface Output {
  name: string;
  description: string;
  value?: (report: Report) => unknown; // none: only the action's publishing knows it (the summary, the comment)
  text?: (value: unknown) => string; // where `String` would not do
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

const seconds = (r: Report): number => Number(((r.finishedAt - r.startedAt) / 1000).toFixed(1));

// prettier-ignore
export const OUTPUTS: readonly Output[] = [
  { name: 'status', description: `The verdict: ${STATUS_NAMES.slice(0, -1).join(', ')} or ${STATUS_NAMES.at(-1)} (several operations: the worst).`, value: (r) => r.status },
  { name: 'timed_out', description: '`true` when the deadline passed before the wait ended, else `false`.', value: (r) => r.timedOut },
  { name: 'operation', description: 'JSON of the first awaited operation as last seen.', value: (r) => r.operations[0] ?? null },
  { name: 'operations', description: 'JSON array of every awaited operation as last seen.', value: (r) => r.operations },
  { name: 'failures_count', description: 'Sum of failures_count over the awaited operations.', value: (r) => r.operations.reduce((n, op) => n + (Number(op.failures_count) || 0), 0) },
  { name: 'elapsed_seconds', description: 'Seconds spent, with one decimal.', value: seconds, text: (s) => (s as number).toFixed(1) },
  { name: 'project_id', description: 'The project used.', value: (r) => r.projectId ?? '' },
  { name: 'summary', description: 'The job summary as Markdown.' },
  { name: 'comment_url', description: 'URL of the PR comment written or updated, else empty.' },
  { name: 'response', description: 'With request: the JSON of the accepted answer, every password and connection URI replaced by `***`.', value: (r) => r.request?.response },
  { name: 'request_status', description: 'With request: the HTTP status of the accepted answer; empty when no request was asked or none was accepted.', value: (r) => r.request?.status },
  { name: 'request_attempts', description: 'With request: how many times it was sent (423, 429 and 503 answers are retried).', value: (r) => r.request?.attempts },
  { name: 'request_lock', description: 'With request: `{"locked_seconds", "held_by"}` when 423 Locked answered (the operations that held the project), else empty.', value: (r) => (r.request?.holders.length ? { locked_seconds: Number((r.request.lockedMs / 1000).toFixed(1)), held_by: r.request.holders } : undefined) },
  { name: 'branch_id', description: 'With request: the id of the branch the answer holds (`branch.id`), else empty.', value: (r) => answerId(r, 'branch', 'branches') },
  { name: 'endpoint_id', description: 'With request: the id of the first endpoint the answer holds (`endpoint.id` or `endpoints[0].id`), else empty.', value: (r) => answerId(r, 'endpoint', 'endpoints') },
  { name: 'database_url', description: "With request: the answer's first connection URI, a masked output (a secret; not in the command's --json).", secret: (r) => r.request?.databaseUrl },
  { name: 'database_ready', description: 'With database_url: `true` when SELECT 1 answered, else `false`.', value: (r) => r.database?.ready }
];

/** A result value as JSON, every text (the API's are not ours to trust) cut to 4,000 characters. */
export const resultJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? truncate(v, 4000) : v));

/** The run's result as typed values (the command's `--json`); a field without a value is left out. */
export function resultFields(report: Report): Record<string, unknown> {
  const fields = OUTPUTS.map((o) => [o.name, o.value?.(report)] as const);
  return Object.fromEntries(fields.filter(([, value]) => value !== undefined));
}

/** An output's text as the runner keeps it: JSON for objects, '' for none. */
export function outputText(output: Output, value: unknown): string {
  if (value === undefined || value === null) return '';
  return output.text?.(value) ?? (typeof value === 'object' ? resultJson(value) : String(value));
}
