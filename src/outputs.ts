import type { Report } from './report/model.js';
import { redact } from './util/redact.js';
import { truncate } from './util/text.js';
import { STATUS_NAMES } from './wait/status.js';

/** One result field: the action's output (action.yml is checked against these) and the command's `--json`. */
interface Output {
  name: string;
  description: string;
  value?: (report: Report) => unknown; // none: only the action's publishing knows it (the summary, the comment)
  text?: (value: unknown) => string; // where `String` would not do
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
  { name: 'database_ready', description: 'With database_url: `true` when SELECT 1 answered, else `false`.', value: (r) => r.database?.ready }
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
    const scalarsFirst = Object.entries(v).sort(
      ([, a], [, b]) => Number(isContainer(a)) - Number(isContainer(b))
    );
    const fields: Record<string, unknown> = {};
    for (const [key, field] of scalarsFirst) {
      if (depth > 0 && left <= 0) break;
      left -= key.length;
      fields[key] = fit(field, depth + 1);
    }
    return fields;
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
