import type { Report } from './report/model.js';
import { truncate } from './util/text.js';
import { STATUS_NAMES } from './wait/status.js';

/** One result field: the action's output (action.yml is checked against these) and the command's `--json`. */
interface Output {
  name: string;
  description: string;
  value?: (report: Report) => unknown; // none: only the action's publishing knows it (the summary, the comment)
  text?: (value: unknown) => string; // where `String` would not do
  /** Its `--json` field's type, for docs/cli.md (with `value`). */
  json?: string;
}

const seconds = (r: Report): number => Number(((r.finishedAt - r.startedAt) / 1000).toFixed(1));

// prettier-ignore
export const OUTPUTS: readonly Output[] = [
  { name: 'status', description: `The verdict: ${STATUS_NAMES.slice(0, -1).join(', ')} or ${STATUS_NAMES.at(-1)} (several operations: the worst).`, value: (r) => r.status, json: 'string: `finished`, `skipped`, `idle`, `timeout`, `api_error`, `input_error`, … (the action\'s `status`)' },
  { name: 'timed_out', description: '`true` when the deadline passed before the wait ended, else `false`.', value: (r) => r.timedOut, json: 'boolean' },
  { name: 'operation', description: 'JSON of the first awaited operation as last seen.', value: (r) => r.operations[0] ?? null, json: 'object (the first awaited operation as last seen), or `null`' },
  { name: 'operations', description: 'JSON array of every awaited operation as last seen.', value: (r) => r.operations, json: 'array of objects' },
  { name: 'failures_count', description: 'Sum of failures_count over the awaited operations.', value: (r) => r.operations.reduce((n, op) => n + (Number(op.failures_count) || 0), 0), json: 'number' },
  { name: 'elapsed_seconds', description: 'Seconds spent, with one decimal.', value: seconds, text: (s) => (s as number).toFixed(1), json: 'number' },
  { name: 'project_id', description: 'The project used.', value: (r) => r.projectId ?? '', json: 'string, `""` when no project was found' },
  { name: 'summary', description: 'The job summary as Markdown.' },
  { name: 'comment_url', description: 'URL of the PR comment written or updated, else empty.' },
  { name: 'database_ready', description: 'With database_url: `true` when SELECT 1 answered, else `false`.', value: (r) => r.database?.ready, json: 'boolean, only with a database URL' }
];

/** The command's own `--json` fields, after the outputs' (`resultText` sets them). */
// prettier-ignore
export const COMMAND_FIELDS: ReadonlyArray<{ name: string; json: string }> = [
  { name: 'exit_code', json: "number: the process's exit code (below)" },
  { name: 'message', json: 'string: the verdict line, why it ended; after a timeout it ends with the last API error, if there was one' },
  { name: 'last_api_error', json: 'string: the error of the request still failing at the deadline, or `null`' }
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
