import { actionName, isValidTime, operationDurationMs } from './display.js';
import { type Operation, shortId } from '../neon/operation.js';
import { YEAR_MS } from '../util/duration.js';
import { outcomeOf } from '../wait/status.js';

/** Rows beyond this make a chart nobody can read; the first given (the newest) are kept. */
export const TIMELINE_ROWS = 25;

interface Bar {
  label: string;
  tag: string;
  start: number;
  end: number;
}

/**
 * A Mermaid gantt chart of the operations that were awaited (`title` names them), and of the
 * project's other operations that started while they ran. The chart spans only that stretch, so
 * a 2.7 s and a 4.5 s operation are drawn 2.7 and 4.5 s long; older history is in the tables.
 * Nothing is drawn without an awaited operation to draw.
 *
 * Dates are Unix milliseconds (`dateFormat x`): Mermaid reads them as the same instant in every
 * time zone, so no reader's daylight-saving change can shift a bar or squash it to nothing. Mermaid
 * draws its axis in the reader's own time zone (it has no UTC axis), which the summary says.
 *
 * Mermaid reads its own syntax, not Markdown, so labels keep only letters, digits and a few marks.
 */
export function renderTimeline(
  awaited: readonly Operation[],
  others: readonly Operation[],
  now: number,
  title = 'Awaited'
): string[] {
  const awaitedIds = new Set(awaited.map((op) => op.id));
  const mainBars = awaited.map((op) => bar(op, now)).filter((b): b is Bar => b !== undefined);
  if (mainBars.length === 0) return [];
  const from = Math.min(...mainBars.map((b) => b.start));
  const to = Math.max(...mainBars.map((b) => b.end));
  const alongside = others
    .filter((op) => !awaitedIds.has(op.id))
    .map((op) => bar(op, now))
    .filter((b): b is Bar => b !== undefined && b.start >= from && b.start <= to);
  const sections: Array<[string, Bar[]]> = [
    [title, mainBars],
    ['Other operations', alongside]
  ];
  let budget = TIMELINE_ROWS;
  let left = 0;
  for (const section of sections) {
    left += Math.max(0, section[1].length - budget);
    section[1] = section[1].slice(0, budget);
    budget -= section[1].length;
  }
  const bars = sections.flatMap(([, b]) => b);
  const span = Math.max(...bars.map((b) => b.end)) - Math.min(...bars.map((b) => b.start));
  // An instant still gets a visible sliver, but never one that reaches past now.
  const minWidth = span > 0 ? Math.max(1, Math.round(span / 150)) : 1000;
  const drawnEnd = (b: Bar): number => {
    const end = Math.max(b.end, Math.min(b.start + minWidth, Math.max(now, b.end)));
    return end > b.start ? end : b.start + minWidth;
  };

  const lines = [
    '```mermaid',
    'gantt',
    '  dateFormat x',
    '  axisFormat %H:%M:%S',
    `  tickInterval ${tickInterval(span)}`,
    '  todayMarker off'
  ];
  for (const [name, sectionBars] of sections) {
    if (sectionBars.length === 0) continue;
    lines.push(`  section ${name}`);
    for (const b of sectionBars) lines.push(`  ${b.label} :${b.tag}${b.start}, ${drawnEnd(b)}`);
  }
  lines.push('```');
  if (left > 0)
    lines.push(
      '',
      `_The timeline shows ${TIMELINE_ROWS} operations; ${left} more are in the tables._`
    );
  return lines;
}

/** Axis ticks, in seconds: no closer than the labels can be told apart (whole seconds), at most about 10. */
const TICKS = [
  1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400,
  604_800
];
const UNITS: Array<[number, string]> = [
  [7 * 86_400, 'week'],
  [86_400, 'day'],
  [3600, 'hour'],
  [60, 'minute'],
  [1, 'second']
];

export function tickInterval(spanMs: number): string {
  const seconds = TICKS.find((s) => spanMs / (s * 1000) <= 10) ?? 30 * 86_400;
  const [per, unit] = UNITS.find(([u]) => seconds % u === 0) as [number, string];
  return `${seconds / per}${unit}`;
}

function bar(op: Operation, now: number): Bar | undefined {
  const start = Date.parse(op.created_at);
  // Only what a chart of recent work can show: within a year of now (the API keeps 6 months).
  if (!isValidTime(start) || Math.abs(start - now) > YEAR_MS) return undefined;
  // A duration the chart cannot draw (negative, or past year 275760) is drawn as a moment.
  const reported = operationDurationMs(op, now) ?? 0;
  const duration = isValidTime(start + reported) && reported >= 0 ? Math.min(reported, YEAR_MS) : 0;
  const tag = { failed: 'crit, ', open: 'active, ', passed: 'done, ', skipped: 'done, ' }[
    outcomeOf(op.status)
  ];
  return { label: barLabel(op), tag, start, end: start + duration };
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
