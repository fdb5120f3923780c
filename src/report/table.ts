import { actionName, operationDurationMs, statusMarker, utc, utcClock, utcDay } from './display.js';
import { branchUrl, linkedCode } from './links.js';
import { code, escapeText } from './markdown.js';
import { type Operation, shortId } from '../neon/operation.js';
import { formatDuration } from '../util/duration.js';

/** Keeps a short cell on one line: GitHub wraps table cells at spaces when the page is narrow. */
const NBSP = '&nbsp;';

export interface TableOptions {
  now: number;
  /** Longest error text under the table; 0 leaves errors out. */
  errorChars: number;
  /** The project of operations that do not say (for console links). */
  projectId?: string;
  /** Link branches to the Neon console. */
  consoleLinks?: boolean;
  /** Operations whose error is already shown above the table: not repeated under it. */
  errorsShown?: ReadonlySet<string>;
}

export interface OperationsTable {
  /**
   * What every row shares, said once above the table instead of in a column (`On branch … ·
   * compute … · started on 2026-11-25, times UTC`); empty when the rows share nothing.
   */
  caption: string;
  /** The Markdown table: header, separator, one line per row. */
  lines: string[];
  /**
   * The rows' error texts, as a list to put under the table: a long text in a column would squeeze
   * every other column of a comment-wide table into several lines.
   */
  errors: string[];
}

interface Column {
  header: string;
  cell(op: Operation): string;
  /** What makes two cells the same, for a column that may be said once; none for one that may not. */
  key?(op: Operation): string;
  /** How the shared value is said above the table. */
  once?(op: Operation): string;
}

/**
 * A table of operations, one line high per row (two where both the branch and the compute differ
 * from row to row): columns that are empty in every row are left out, columns whose non-empty
 * value is the same in every row are said once in the caption, and errors go in a list under the
 * table. The short id sits in the Operation cell, the whole id in its tooltip. Rows are as given.
 */
export function operationsTable(ops: readonly Operation[], options: TableOptions): OperationsTable {
  const { now, errorChars, errorsShown } = options;
  const created = (op: Operation): number => Date.parse(op.created_at);
  const days = new Set(ops.map((op) => utcDay(created(op))).filter(Boolean));
  const oneDay = days.size === 1;
  const branchLink = (op: Operation): string =>
    linkedCode(
      op.branch_id as string,
      options.consoleLinks ? branchUrl(op.project_id || options.projectId, op.branch_id) : undefined
    );

  const columns: Column[] = [
    {
      header: 'Status',
      cell: (op) =>
        `${statusMarker(status(op))}${NBSP}${escapeText(status(op), 40)}${failures(op, true)}`,
      key: status
    },
    { header: 'Operation', cell: operationCell },
    {
      header: 'Branch',
      cell: (op) => (op.branch_id ? branchLink(op) : ''),
      key: (op) => op.branch_id ?? '',
      once: (op) => `on branch ${branchLink(op)}`
    },
    {
      header: 'Compute',
      cell: (op) => (op.endpoint_id ? code(op.endpoint_id) : ''),
      key: (op) => op.endpoint_id ?? '',
      once: (op) => `compute ${code(op.endpoint_id as string)}`
    },

    {
      header: 'Duration',
      cell: (op) => {
        const ms = operationDurationMs(op, now);
        // The API's timestamps are whole seconds: 0 means under one.
        return ms === undefined ? '' : ms === 0 ? '&lt;1s' : formatDuration(ms);
      }
    },
    {
      header: oneDay ? 'Started' : 'Started (UTC)',
      cell: (op) =>
        oneDay ? utcClock(created(op)) : utc(created(op)).replace(' UTC', '').replace(' ', NBSP),
      key: (op) => utc(created(op)),
      once: (op) => `started ${utc(created(op))}`
    }
  ];

  let shown: Column[] = [];
  const failuresColumn: Column = { header: 'Failures', cell: (op) => failures(op, false) };
  const said: string[] = [];
  for (const column of columns) {
    const cells = ops.map((op) => column.cell(op));
    if (column.header !== 'Operation' && cells.every((c) => c === '')) continue;
    if (column.key && ops.length > 0) {
      const keys = new Set(ops.map((op) => column.key!(op)).filter(Boolean));
      if (keys.size === 1) {
        const first = ops.find((op) => column.key!(op) !== '') as Operation;
        if (column.once) said.push(column.once(first));
        continue;
      }
    }
    shown.push(column);
  }
  // Failures read best beside the status; when every row has the same status, in their own column.
  if (!shown.some((c) => c.header === 'Status') && ops.some((op) => op.failures_count))
    shown.splice(1, 0, failuresColumn);
  // Both varying, a branch and a compute side by side are too wide for a comment: one above the other.
  const branch = shown.find((c) => c.header === 'Branch');
  const compute = shown.find((c) => c.header === 'Compute');
  if (branch && compute) {
    const merged: Column = {
      header: 'Branch / compute',
      cell: (op) => [branch.cell(op), compute.cell(op)].filter(Boolean).join('<br>')
    };
    shown = shown.filter((c) => c !== compute).map((c) => (c === branch ? merged : c));
  }
  if (oneDay && shown.some((c) => c.header === 'Started'))
    said.push(`started on ${[...days][0]}, times UTC`);

  const lines = [
    `| ${shown.map((c) => c.header).join(' | ')} |`,
    `| ${shown.map(() => '---').join(' | ')} |`,
    ...ops.map((op) => `| ${shown.map((c) => c.cell(op)).join(' | ')} |`)
  ];
  const caption = said.join(' · ');
  const errors = ops
    .filter((op) => op.error && errorChars > 0 && !errorsShown?.has(op.id))
    .map((op) => errorItem(op, errorChars));
  return { caption: caption && caption[0]!.toUpperCase() + caption.slice(1), lines, errors };
}

function status(op: Operation): string {
  return op.status ?? 'not seen';
}

/** `2`, or beside a status `(2 failures)`; nothing for none. */
function failures(op: Operation, besideStatus: boolean): string {
  if (!op.failures_count) return '';
  const count = escapeText(String(op.failures_count), 12);
  if (!besideStatus) return count;
  return `${NBSP}(${count}${NBSP}failure${op.failures_count === 1 ? '' : 's'})`;
}

/** The short id as inline code, the whole id in its tooltip. */
export function idCode(op: Operation): string {
  return `<code title="${escapeText(op.id, 60)}">${escapeText(shortId(op.id))}</code>`;
}

/**
 * `- ❌ `1a2b3c4d` **Start compute** error (3 failures): compute did not start`: an operation and
 * its error on one list item, for the list of failing operations and for errors under a table.
 */
export function errorItem(op: Operation, errorChars: number): string {
  const status = op.status ?? 'not seen';
  const failures = op.failures_count
    ? ` (${escapeText(String(op.failures_count), 12)} failure${op.failures_count === 1 ? '' : 's'})`
    : '';
  const error = op.error && errorChars > 0 ? `: ${escapeText(op.error, errorChars)}` : '';
  const name = op.action ? ` **${escapeText(actionName(op.action), 60)}**` : '';
  return `- ${statusMarker(status)} ${idCode(op)}${name} ${escapeText(status, 40)}${failures}${error}`;
}

/** `` `1a2b3c4d` Create branch ``: the short id, then what the operation does. */
function operationCell(op: Operation): string {
  return op.action ? `${idCode(op)}${NBSP}${escapeText(actionName(op.action), 60)}` : idCode(op);
}
