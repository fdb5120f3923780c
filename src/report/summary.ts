import { actionName, ago, operationDurationMs, statusCounts, utc } from './display.js';
import { formatDuration } from '../util/duration.js';
import { code, escapeText } from './markdown.js';
import type { Operation } from '../neon/operation.js';
import type { DatabaseCheck } from '../wait/database.js';
import type { Report } from './model.js';
import { renderTimeline } from './timeline.js';
import { ACTION_NAME, ACTION_VERSION } from '../version.js';

/** GitHub refuses a step summary over 1 MiB; stay well under it. */
export const STEP_SUMMARY_LIMIT = 1_000_000;
/** GitHub refuses an issue comment over 65,536 characters; the marker needs a little room. */
export const COMMENT_LIMIT = 65_000;

const MARKER: Record<string, string> = {
  finished: '✅',
  skipped: '⏭️',
  idle: '✅',
  busy: '⏳',
  running: '⏳',
  scheduling: '🕓',
  cancelling: '⏳',
  failed: '⚠️',
  error: '❌',
  cancelled: '🚫',
  timeout: '⌛',
  aborted: '🛑',
  api_error: '❌',
  input_error: '❌',
  database_error: '❌'
};

const LABEL: Record<string, string> = {
  timeout: 'timed out',
  aborted: 'cancelled with the job',
  api_error: 'API error',
  input_error: 'input error',
  database_error: 'database error',
  busy: 'busy (work in progress)'
};

const FULL_ERROR_CHARS = 300;

const AWAITED_HEADING = {
  operations: 'Awaited operations',
  project: 'Operations seen in progress',
  job: 'Operations during this job'
} as const;

export function statusMarker(status: string): string {
  return Object.hasOwn(MARKER, status) ? (MARKER[status] as string) : '❔';
}

function statusLabel(status: string): string {
  return Object.hasOwn(LABEL, status) ? (LABEL[status] as string) : status;
}

interface Shape {
  /** Longest error text in a table cell. */
  errorChars: number;
  /** Rows of recent operations shown. */
  recentRows: number;
  timeline: boolean;
}

/**
 * The job summary (also the `summary` output and the PR comment) as Markdown, at most `maxChars`
 * long: long texts are cut first, then rows of recent operations, then the timeline, and the
 * summary says what was left out. Every string from the API is escaped.
 */
export function renderSummary(report: Report, maxChars = STEP_SUMMARY_LIMIT): string {
  const recentCount = report.recent?.operations.length ?? 0;
  let shape: Shape = { errorChars: FULL_ERROR_CHARS, recentRows: recentCount, timeline: true };
  for (;;) {
    const text = render(report, shape);
    if (byteLength(text) <= maxChars) return text;
    if (shape.errorChars > 80) shape = { ...shape, errorChars: 80 };
    else if (shape.recentRows > 0)
      shape = { ...shape, recentRows: Math.floor(shape.recentRows / 2) };
    else if (shape.timeline) shape = { ...shape, timeline: false };
    else if (shape.errorChars > 0) shape = { ...shape, errorChars: 0 };
    else return cut(text, maxChars);
  }
}

function render(report: Report, shape: Shape): string {
  const now = report.finishedAt;
  const lines: string[] = [];
  const subject =
    report.mode === 'job'
      ? 'operations during this job'
      : report.mode === 'project'
        ? 'project activity'
        : 'operations';
  const status = report.status || 'unknown';
  lines.push(`### ${statusMarker(status)} Neon ${subject}: ${escapeText(statusLabel(status))}`, '');
  const facts =
    status === 'input_error'
      ? ['No request was sent: an input needs fixing.']
      : [
          report.projectId ? `Project ${code(report.projectId)}` : undefined,
          report.branchId ? `branch ${code(report.branchId)}` : undefined,
          report.waited
            ? `waited ${formatDuration(report.finishedAt - report.startedAt)} of ${formatDuration(report.timeoutMs)}`
            : 'report only (wait: false)',
          `${report.requests} API request${report.requests === 1 ? '' : 's'}`
        ].filter(Boolean);
  lines.push(facts.join(' · '), '');
  if (report.failure)
    lines.push(`> ${escapeText(report.failure, Math.max(200, shape.errorChars * 4))}`, '');
  if (report.database) lines.push(databaseLine(report.database), '');

  const awaited = report.operations;
  if (awaited.length > 0) {
    lines.push(
      `#### ${AWAITED_HEADING[report.mode]} (${escapeText(statusCounts(awaited))})`,
      '',
      ...operationsTable(awaited, now, shape.errorChars),
      ''
    );
  } else if (report.mode === 'job' && !report.failure) {
    lines.push('This job started no operation.', '');
  } else if (report.mode === 'project' && !report.failure) {
    lines.push('No operation was in progress.', '');
  }

  const recent = report.recent;
  if (recent && recent.operations.length > 0) {
    const shown = recent.operations.slice(0, shape.recentRows);
    const scope = report.branchId ? ` on branch ${code(report.branchId)}` : '';
    lines.push(
      `#### ${recent.since !== undefined ? `Operations since ${utc(recent.since)}` : 'Recent operations'}${scope} (${escapeText(statusCounts(recent.operations))})`,
      ''
    );
    if (shown.length > 0) lines.push(...operationsTable(shown, now, shape.errorChars), '');
    if (shown.length < recent.operations.length) {
      lines.push(
        `_${recent.operations.length - shown.length} older rows were left out to keep this summary within GitHub's size limit._`,
        ''
      );
    }
  } else if (recent) {
    lines.push(
      `#### Recent operations`,
      '',
      report.branchId ? 'None on this branch.' : 'None.',
      ''
    );
  }
  if (recent?.scanStopped) {
    lines.push(
      `_Only the newest ${recent.scanned} operations of the project were scanned for this branch; older ones may exist._`,
      ''
    );
  }
  if (shape.errorChars < FULL_ERROR_CHARS) {
    lines.push(
      shape.errorChars > 0
        ? `_Error texts were shortened to ${shape.errorChars} characters to keep this summary within GitHub's size limit._`
        : "_Error texts were left out to keep this summary within GitHub's size limit._",
      ''
    );
  }
  if (report.recentError)
    lines.push(
      `_Recent operations could not be loaded: ${escapeText(report.recentError, 300)}_`,
      ''
    );

  if (shape.timeline) {
    const timeline = renderTimeline(
      awaited,
      recent?.operations.slice(0, shape.recentRows) ?? [],
      now
    );
    if (timeline.length)
      lines.push(
        '<details open><summary>Timeline (UTC)</summary>',
        '',
        ...timeline,
        '',
        '</details>',
        ''
      );
  }
  lines.push(`<sub>${utc(now)} · ${ACTION_NAME} ${ACTION_VERSION}</sub>`, '');
  return lines.join('\n');
}

/** One line on the database check: how long it took to answer after the operations were done. */
function databaseLine(db: DatabaseCheck): string {
  const where = `Database ${code(db.target)}`;
  const attempts = `${db.attempts} attempt${db.attempts === 1 ? '' : 's'}`;
  if (db.ready)
    return `🐘 ${where} answered \`SELECT 1\` ${formatDuration(db.answeredAfterMs ?? 0)} after the operations were done (${attempts}).`;
  if (db.skipped) return `🐘 ${where} was not checked: ${escapeText(db.skipped)}.`;
  return `🐘 ${where} did not answer \`SELECT 1\` (${attempts}).`;
}

export function operationsTable(
  ops: readonly Operation[],
  now: number,
  errorChars = 300
): string[] {
  const rows = [
    '| Status | Operation | ID | Branch | Endpoint | Failures | Duration | Created | Error |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |'
  ];
  for (const op of ops) {
    const status = op.status ?? 'not seen';
    const created = Date.parse(op.created_at);
    const duration = operationDurationMs(op, now);
    const cells = [
      `${statusMarker(status)} ${escapeText(status, 40)}`,
      op.action
        ? `${escapeText(actionName(op.action), 60)}<br><sub>${escapeText(op.action, 60)}</sub>`
        : '',
      `<code title="${escapeText(op.id, 60)}">${escapeText(op.id.slice(0, 8))}</code>`,
      op.branch_id ? code(op.branch_id) : '',
      op.endpoint_id ? code(op.endpoint_id) : '',
      op.failures_count === undefined ? '' : escapeText(String(op.failures_count), 12),
      duration === undefined ? '' : formatDuration(duration),
      Number.isNaN(created) ? '' : `${ago(created, now)}<br><sub>${utc(created)}</sub>`,
      op.error && errorChars > 0 ? escapeText(op.error, errorChars) : ''
    ];
    rows.push(`| ${cells.join(' | ')} |`);
  }
  return rows;
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Last resort: cut at a line boundary and say so. */
function cut(text: string, maxChars: number): string {
  const note = "\n\n_The rest of this summary was cut to fit GitHub's size limit._\n";
  let end = Math.max(0, maxChars - note.length - 16);
  while (end > 0 && byteLength(text.slice(0, end)) > maxChars - note.length)
    end = Math.floor(end * 0.9);
  return text.slice(0, text.lastIndexOf('\n', end) + 1) + note;
}
