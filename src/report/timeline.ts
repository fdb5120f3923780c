import { actionName, isValidTime, operationDurationMs } from './display.js';
import { type Operation, shortId } from '../neon/operation.js';
import { classifyStatus } from '../wait/status.js';

const YEAR_MS = 366 * 86_400_000;

/** Rows beyond this make a chart nobody can read; the newest are kept. */
export const TIMELINE_ROWS = 25;

interface Bar {
  label: string;
  tag: string;
  start: number;
  end: number;
}

/**
 * A Mermaid gantt chart of what ran when: awaited operations first, then the project's recent ones.
 * Mermaid reads its own syntax, not Markdown, so labels keep only letters, digits and a few marks.
 */
export function renderTimeline(
  awaited: readonly Operation[],
  recent: readonly Operation[],
  now: number
): string[] {
  const awaitedIds = new Set(awaited.map((op) => op.id));
  const sections: Array<[string, Bar[]]> = [
    ['Awaited', awaited.map((op) => bar(op, now)).filter((b): b is Bar => b !== undefined)],
    [
      'Recent',
      recent
        .filter((op) => !awaitedIds.has(op.id))
        .map((op) => bar(op, now))
        .filter((b): b is Bar => b !== undefined)
    ]
  ];
  let budget = TIMELINE_ROWS;
  let left = 0;
  for (const section of sections) {
    left += Math.max(0, section[1].length - budget);
    section[1] = section[1].slice(0, budget);
    budget -= section[1].length;
  }
  const bars = sections.flatMap(([, b]) => b);
  if (bars.length === 0) return [];
  const span = Math.max(...bars.map((b) => b.end)) - Math.min(...bars.map((b) => b.start));
  // Very short operations still get a visible sliver, but never one that reaches past now.
  const minWidth = Math.max(500, Math.round(span / 300));
  const drawnEnd = (b: Bar): number =>
    Math.max(b.end, Math.min(b.start + minWidth, Math.max(now, b.end)));

  // Wall-clock UTC written without a zone: Mermaid shows it as is, so every reader sees UTC.
  const lines = [
    '```mermaid',
    'gantt',
    '  dateFormat YYYY-MM-DD HH:mm:ss.SSS',
    '  axisFormat %H:%M:%S',
    '  todayMarker off'
  ];
  for (const [title, sectionBars] of sections) {
    if (sectionBars.length === 0) continue;
    lines.push(`  section ${title}`);
    for (const b of sectionBars) {
      lines.push(
        `  ${b.label} :${b.tag}${wallClock(b.start)}, ${wallClock(drawnEnd(b) > b.start ? drawnEnd(b) : b.start + minWidth)}`
      );
    }
  }
  lines.push('```');
  if (left > 0)
    lines.push(
      '',
      `_The timeline shows the newest ${TIMELINE_ROWS} operations; ${left} more are in the tables._`
    );
  return lines;
}

function bar(op: Operation, now: number): Bar | undefined {
  const start = Date.parse(op.created_at);
  // Only what a chart of recent work can show: within a year of now (the API keeps 6 months).
  if (!isValidTime(start) || Math.abs(start - now) > YEAR_MS) return undefined;
  // A duration the chart cannot draw (negative, or past year 275760) is drawn as a moment.
  const reported = operationDurationMs(op, now) ?? 0;
  const duration = isValidTime(start + reported) && reported >= 0 ? Math.min(reported, YEAR_MS) : 0;
  const verdict = classifyStatus(op.status, false);
  const tag =
    verdict === 'failure' || op.status === 'failed'
      ? 'crit, '
      : verdict === 'pending'
        ? 'active, '
        : 'done, ';
  return {
    label: barLabel(op),
    tag,
    start,
    end: start + duration
  };
}

function wallClock(ms: number): string {
  return new Date(ms).toISOString().slice(0, 23).replace('T', ' ');
}

/**
 * `1a2b3c4d Create branch`. The label starts with the hex id (or `op`), never with a word: Mermaid
 * reads a line that starts with `title`, `section`, `click`, … as a command, whatever follows.
 */
function barLabel(op: Operation): string {
  const id = /^[0-9a-f]{8}/i.test(op.id) ? shortId(op.id).toLowerCase() : 'op';
  return `${id} ${mermaidText(actionName(op.action))}`;
}

export function mermaidText(text: string): string {
  return (
    text
      .replace(/[^A-Za-z0-9 ._()-]+/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 60) || 'operation'
  );
}
