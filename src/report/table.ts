import { actionName, operationDurationMs, utc } from './display.js';
import { statusMarker } from '../wait/status.js';
import { branchUrl, linkedCode } from './links.js';
import { code, escapeText } from './markdown.js';
import { type AwaitedOperation, isSeen, shortId } from '../neon/operation.js';
import { formatDuration } from '../util/duration.js';
import { capital } from '../util/text.js';

/** Keeps a short cell on one line: GitHub wraps table cells at spaces when the page is narrow. */
const NBSP = '&nbsp;';

export interface TableOptions {
  now: number;
  /** Longest error text under the table; 0 leaves errors out. */
  errorChars: number;
  /** The project of operations that do not say (for console links). */
  projectId?: string;
  consoleLinks?: boolean;
  /** Operations whose error is already shown above the table: not repeated under it. */
  errorsShown?: ReadonlySet<string>;
}

interface OperationsTable {
  /** What every row shares, said once above the table (`On branch … · started on …, times UTC`). */
  caption: string;
  lines: string[];
  /** The rows' error texts, listed under the table: in a cell they would squeeze the others. */
  errors: string[];
}

/** What a cell may depend on beyond its row; `oneDay`: every row started the same day (UTC). */
type Context = TableOptions & { oneDay: boolean };

interface Column {
  header: string;
  cell(op: AwaitedOperation, context: Context): string;
  /** The value that, shared by every row, is said once above the table instead (`on branch …`). */
  shared?: {
    key(op: AwaitedOperation): string;
    said(op: AwaitedOperation, context: Context): string;
  };
  /** What counts for the PR comment's digest (`stableView`): none for what changes every run. */
  digest?: (op: AwaitedOperation) => unknown;
}

function created(op: AwaitedOperation): number {
  if (!isSeen(op)) return NaN;
  return Date.parse(op.created_at);
}
const branchLink = (op: AwaitedOperation, { consoleLinks, projectId }: Context): string =>
  linkedCode(op.branch_id!, consoleLinks && branchUrl(op.project_id || projectId, op.branch_id));

/** The operations table's columns, in order; one left empty by every row is not shown. */
export const COLUMNS: readonly Column[] = [
  {
    header: 'Status',
    cell: (op) => `${statusMarker(status(op))}${NBSP}${escapeText(status(op), 40)}${failures(op)}`,
    digest: (op) => [op.status, op.failures_count]
  },
  { header: 'Operation', cell: operationCell, digest: (op) => op.id },
  {
    header: 'Branch',
    cell: (op, context) => (op.branch_id ? branchLink(op, context) : ''),
    shared: { key: (op) => op.branch_id ?? '', said: (op, c) => `on branch ${branchLink(op, c)}` }
  },
  {
    header: 'Compute',
    cell: (op) => (op.endpoint_id ? code(op.endpoint_id) : ''),
    shared: { key: (op) => op.endpoint_id ?? '', said: (op) => `compute ${code(op.endpoint_id!)}` }
  },
  {
    header: 'Duration',
    cell: (op, { now }) => {
      const ms = operationDurationMs(op, now);
      // The API's timestamps are whole seconds: 0 means under one.
      return ms === undefined ? '' : ms === 0 ? '&lt;1s' : formatDuration(ms);
    }
  },
  {
    header: 'Started',
    cell: (op, { oneDay }) =>
      oneDay ? utc(created(op), 'time') : utc(created(op)).replace(' UTC', '').replace(' ', NBSP),
    shared: { key: (op) => utc(created(op)), said: (op) => `started ${utc(created(op))}` }
  }
];

/**
 * One line high per row: columns empty in every row are left out, a branch, compute or start time
 * every row shares is said once in the caption, and errors go in a list under the table.
 */
export function operationsTable(
  ops: readonly AwaitedOperation[],
  options: TableOptions
): OperationsTable {
  const { errorChars, errorsShown } = options;
  const days = new Set(ops.map((op) => utc(created(op), 'date')).filter(Boolean));
  const context = { ...options, oneDay: days.size === 1 };
  const said: string[] = [];
  const shown = COLUMNS.filter(({ header, cell, shared }) => {
    if (header !== 'Operation' && ops.every((op) => cell(op, context) === '')) return false;
    if (!shared || new Set(ops.map(shared.key).filter(Boolean)).size !== 1) return true;
    said.push(shared.said(ops.find(shared.key)!, context));
    return false;
  });
  if (context.oneDay && shown.some((c) => c.header === 'Started'))
    said.push(`started on ${[...days][0]}, times UTC`);
  const header = (c: Column) =>
    c.header === 'Started' && !context.oneDay ? 'Started (UTC)' : c.header;

  const lines = [
    `| ${shown.map(header).join(' | ')} |`,
    `| ${shown.map(() => '---').join(' | ')} |`,
    ...ops.map((op) => `| ${shown.map((c) => c.cell(op, context)).join(' | ')} |`)
  ];
  const errors = ops
    .filter((op) => op.error && errorChars > 0 && !errorsShown?.has(op.id))
    .map((op) => errorItem(op, errorChars));
  return { caption: capital(said.join(' · ')), lines, errors };
}

const status = (op: AwaitedOperation): string => op.status ?? 'not seen';

/** `(2 failures)` beside a status; nothing for none. */
function failures(op: AwaitedOperation, space = NBSP): string {
  if (!op.failures_count) return '';
  const count = escapeText(String(op.failures_count), 12);
  return `${space}(${count}${space}failure${op.failures_count === 1 ? '' : 's'})`;
}

/** The short id as inline code, the whole id in its tooltip. */
export function idCode(op: AwaitedOperation): string {
  return `<code title="${escapeText(op.id, 60)}">${escapeText(shortId(op.id))}</code>`;
}

/**
 * `- ❌ `1a2b3c4d` **Start compute** error (3 failures): compute did not start`: an operation and
 * its error on one list item, for the list of failing operations and for errors under a table.
 */
export function errorItem(op: AwaitedOperation, errorChars: number): string {
  const error = op.error && errorChars > 0 ? `: ${escapeText(op.error, errorChars)}` : '';
  const name = op.action ? ` **${escapeText(actionName(op.action), 60)}**` : '';
  return `- ${statusMarker(status(op))} ${idCode(op)}${name} ${escapeText(status(op), 40)}${failures(op, ' ')}${error}`;
}

/** `` `1a2b3c4d` Create branch ``: the short id, then what the operation does. */
function operationCell(op: AwaitedOperation): string {
  return op.action ? `${idCode(op)}${NBSP}${escapeText(actionName(op.action), 60)}` : idCode(op);
}
