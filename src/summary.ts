import { formatDuration } from './duration.js';
import { code, escapeText } from './markdown.js';
import type { Operation } from './operation.js';
import type { Report } from './report.js';
import { classifyStatus } from './status.js';

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
  input_error: '❌'
};

export function statusMarker(status: string): string {
  return MARKER[status] ?? '❔';
}

/** The job summary (and `summary` output) as Markdown. Every string from the API is escaped. */
export function renderSummary(report: Report): string {
  const lines: string[] = [];
  const subject = report.mode === 'project' ? 'project activity' : 'operations';
  lines.push(
    `### ${statusMarker(report.status)} Neon ${subject}: ${escapeText(report.status || 'unknown')}`,
    ''
  );
  const facts = [
    report.projectId ? `Project ${code(report.projectId)}` : undefined,
    report.branchId ? `branch ${code(report.branchId)}` : undefined,
    report.waited
      ? `waited ${formatDuration(report.finishedAt - report.startedAt)} of ${formatDuration(report.timeoutMs)}`
      : 'report only (wait: false)',
    `${report.requests} API request${report.requests === 1 ? '' : 's'}`
  ].filter(Boolean);
  lines.push(facts.join(' · '), '');
  if (report.failure) lines.push(`> ${escapeText(report.failure, 2000)}`, '');
  if (report.operations.length > 0) {
    lines.push(...operationsTable(report.operations, report.finishedAt), '');
  } else if (report.mode === 'project' && !report.failure) {
    lines.push('No operation was in progress.', '');
  }
  return lines.join('\n');
}

export function operationsTable(ops: readonly Operation[], now: number): string[] {
  const rows = [
    '| Status | Operation | ID | Branch | Endpoint | Failures | Duration | Error |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |'
  ];
  for (const op of ops) {
    rows.push(
      `| ${statusMarker(op.status)} ${escapeText(op.status ?? 'not seen')} | ${escapeText(op.action ?? '')} | ` +
        `<code title="${escapeText(op.id)}">${escapeText(op.id.slice(0, 8))}</code> | ` +
        `${op.branch_id ? code(op.branch_id) : ''} | ${op.endpoint_id ? code(op.endpoint_id) : ''} | ` +
        `${op.failures_count ?? ''} | ${duration(op, now)} | ${op.error ? escapeText(op.error) : ''} |`
    );
  }
  return rows;
}

/** `total_duration_ms` when the API gives it, else from the timestamps (to now while in progress). */
export function operationDurationMs(op: Operation, now: number): number | undefined {
  if (typeof op.total_duration_ms === 'number') return op.total_duration_ms;
  const created = Date.parse(op.created_at);
  if (Number.isNaN(created)) return undefined;
  const end = classifyStatus(op.status, false) === 'pending' ? now : Date.parse(op.updated_at);
  return Number.isNaN(end) ? undefined : Math.max(0, end - created);
}

function duration(op: Operation, now: number): string {
  const ms = operationDurationMs(op, now);
  return ms === undefined ? '' : formatDuration(ms);
}
