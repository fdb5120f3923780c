import { actionName, isValidTime, operationDurationMs } from './display.js';
import { type AwaitedOperation, isSeen, type Operation, shortId } from '../neon/operation.js';
import { YEAR_MS } from '../util/duration.js';
import { DEFAULT_POLICY, type FailurePolicy, shownAs } from '../wait/status.js';

/** Rows beyond this make a chart nobody can read; the first given (the newest) are kept. */
export const TIMELINE_ROWS = 25;

interface Bar {
  label: string;
  tag: string;
  start: number;
  end: number;
}

/**
 * A Mermaid gantt chart of the awaited operations (`title` names them) and of the others that
 * started while they ran: only that stretch, so short operations stay readable; nothing without an
 * awaited operation. Dates are Unix milliseconds (`dateFormat x`), the same instant in every time
 * zone, so no daylight-saving change shifts a bar; the axis is in the reader's time zone (Mermaid
 * has no UTC axis), which the summary says. Labels are Mermaid syntax, not Markdown (`mermaidText`).
 */
export function renderTimeline(
  awaited: readonly AwaitedOperation[],
  others: readonly AwaitedOperation[],
  now: number,
  title = 'Awaited',
  policy: FailurePolicy = DEFAULT_POLICY
): string[] {
  const barsOf = (ops: readonly AwaitedOperation[]) =>
    ops.flatMap((op) => bar(op, now, policy) ?? []);
  const mainBars = barsOf(awaited);
  if (mainBars.length === 0) return [];
  const from = Math.min(...mainBars.map((b) => b.start));
  const to = Math.max(...mainBars.map((b) => b.end));
  const alongside = barsOf(others.filter((op) => !awaited.some((a) => a.id === op.id))).filter(
    (b) => b.start >= from && b.start <= to
  );
  const shownMain = mainBars.slice(0, TIMELINE_ROWS);
  const sections = [
    [title, shownMain],
    ['Other operations', alongside.slice(0, TIMELINE_ROWS - shownMain.length)]
  ] as const;
  const bars = sections.flatMap(([, b]) => b);
  const left = mainBars.length + alongside.length - bars.length;
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
const UNITS = Object.entries({ week: 604_800, day: 86_400, hour: 3600, minute: 60, second: 1 });

export function tickInterval(spanMs: number): string {
  const seconds = TICKS.find((s) => spanMs / (s * 1000) <= 10) ?? 30 * 86_400;
  const [unit, per] = UNITS.find(([, u]) => seconds % u === 0)!;
  return `${seconds / per}${unit}`;
}

const TAGS = { failure: 'crit, ', pending: 'active, ', success: 'done, ', skipped: 'done, ' };

function bar(op: AwaitedOperation, now: number, policy: FailurePolicy): Bar | undefined {
  if (!isSeen(op)) return undefined;
  const start = Date.parse(op.created_at);
  // Only what a chart of recent work can show: within a year of now (the API keeps 6 months).
  if (!isValidTime(start) || Math.abs(start - now) > YEAR_MS) return undefined;
  // A duration the chart cannot draw (negative, or past year 275760) is drawn as a moment.
  const reported = operationDurationMs(op, now) ?? 0;
  const duration = isValidTime(start + reported) && reported >= 0 ? Math.min(reported, YEAR_MS) : 0;
  return {
    label: barLabel(op),
    tag: TAGS[shownAs(op.status, policy)],
    start,
    end: start + duration
  };
}

/**
 * `1a2b3c4d Create branch`. The label starts with the hex id (or `op`), never with a word: Mermaid
 * reads a line that starts with `title`, `section`, `click`, … as a command, whatever follows.
 */
function barLabel(op: Operation): string {
  const id = /^[0-9a-f]{8}/i.test(op.id) ? shortId(op.id).toLowerCase() : 'op';
  return `${id} ${mermaidText(actionName(op.action))}`;
}

export const mermaidText = (text: string): string =>
  text
    .replace(/[^A-Za-z0-9 ._()-]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 60) || 'operation';
