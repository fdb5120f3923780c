/**
 * The summary as a reader sees it, for tests that check it with real renderers instead of string
 * comparisons: the Markdown rendered and sanitized as GitHub does (scripts/gfm.ts) and parsed into a
 * DOM, the links GitHub adds to plain text after that, and each Mermaid diagram read by the
 * `mermaid` library itself, down to the dates of the gantt bars.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import dayjs from 'dayjs';
import advancedFormat from 'dayjs/plugin/advancedFormat.js';
import customParseFormat from 'dayjs/plugin/customParseFormat.js';
import type { Mermaid } from 'mermaid';
import { renderGfm } from '../../scripts/gfm.js';

import {
  type HTMLElement,
  type HTMLTableCellElement,
  type HTMLTableRowElement,
  type Node,
  Window
} from 'happy-dom';

// As Mermaid's gantt chart extends it (advancedFormat formats `x`, which a strict parse compares).
dayjs.extend(customParseFormat);
dayjs.extend(advancedFormat);

/** The rendered, sanitized summary: its `<body>`, in happy-dom (a DOM without a browser). */
export function renderToDom(markdown: string): HTMLElement {
  const window = new Window();
  window.document.body.innerHTML = renderGfm(markdown);
  // One text node per run of text, as a browser's parser makes it.
  window.document.body.normalize();
  return window.document.body;
}

export interface Table {
  header: string[];
  /** Cells of each body row. */
  rows: HTMLTableCellElement[][];
  /** The heading just before the table, if any. */
  heading: string;
}

export function tablesOf(root: HTMLElement): Table[] {
  return [...root.querySelectorAll('table')].map((table) => {
    let previous = table.previousElementSibling;
    while (previous && !/^H\d$/.test(previous.tagName)) previous = previous.previousElementSibling;
    return {
      header: [...table.querySelectorAll('thead th')].map((th) => text(th)),
      rows: [...table.querySelectorAll('tbody tr')].map((tr) => [
        ...(tr as HTMLTableRowElement).cells
      ]),
      heading: previous ? text(previous) : ''
    };
  });
}

/** Text as shown: whitespace runs read as one space. */
export function text(node: Node): string {
  return (node.textContent ?? '').replace(/\s+/g, ' ').trim();
}

/** Every element name under `root`, once each. */
export function elementNames(root: HTMLElement): Set<string> {
  return new Set([...root.querySelectorAll('*')].map((el) => el.tagName.toLowerCase()));
}

/**
 * What GitHub turns into links after rendering, in text outside code and links: `@user` and
 * `@org/team` mentions (which also notify them) and `#123` / `GH-123` / `owner/repo#123` issue
 * references. Entities do not hide them: `&#64;user` is the text `@user` by then.
 */
export function githubReferences(root: HTMLElement): string[] {
  const found: string[] = [];
  const walker = root.ownerDocument.createTreeWalker(root, 4 /* NodeFilter.SHOW_TEXT */);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement?.closest('a, code, pre')) continue;
    const value = node.nodeValue ?? '';
    for (const match of value.matchAll(/(?<![\w@`])@[a-z\d][a-z\d-]*(?:\/[a-z\d][\w.-]*)?/gi))
      found.push(match[0]);
    for (const match of value.matchAll(/(?<![\w&/])(?:[\w.-]+\/[\w.-]+)?(?:#|GH-)\d+\b/gi))
      found.push(match[0]);
  }
  return found;
}

/** The source of every ```mermaid block, as GitHub hands it to Mermaid (entities decoded). */
export function mermaidSources(root: HTMLElement): string[] {
  return [...root.querySelectorAll('pre > code.language-mermaid')].map((el) => el.textContent!);
}

let mermaid: Promise<Mermaid> | undefined;

/**
 * The `mermaid` package, loaded once. It cleans labels with DOMPurify, which binds to the global
 * `window` when first imported: Node has none, so a happy-dom window stands in (parsing needs no layout).
 */
export function loadMermaid(): Promise<Mermaid> {
  mermaid ??= (async () => {
    const window = new Window();
    Object.assign(globalThis, { window, document: window.document });
    const loaded = (await import('mermaid')).default;
    loaded.initialize({ startOnLoad: false });
    return loaded;
  })();
  return mermaid;
}

export interface GanttBar {
  section: string;
  label: string;
  tags: string[];
  /** Times as Mermaid computed them. */
  start: Date;
  end: Date;
  /** The text Mermaid read them from. */
  startText: string;
  endText: string;
}

export interface Gantt {
  dateFormat: string;
  axisFormat: string;
  tickInterval: string | undefined;
  todayMarker: string;
  bars: GanttBar[];
}

/** The part of Mermaid's gantt database read here (`getTasks` computes the bars' dates). */
interface GanttDb {
  getDateFormat(): string;
  getAxisFormat(): string;
  getTickInterval(): string | undefined;
  getTodayMarker(): string;
  getTasks(): Array<{
    section: string;
    task: string;
    startTime: Date;
    endTime: Date;
    done?: boolean;
    active?: boolean;
    crit?: boolean;
    raw: { startTime: { startData?: string }; endTime: { data?: string } };
  }>;
}

/**
 * A gantt chart read by Mermaid: `mermaid.parse` for the syntax (it accepts any text as a date),
 * then Mermaid's own gantt database for what it makes of the dates. Throws what Mermaid throws.
 */
export async function readGantt(source: string): Promise<Gantt> {
  const mermaid = await loadMermaid();
  const { diagramType } = await mermaid.parse(source);
  if (diagramType !== 'gantt') throw new Error(`Not a gantt chart: ${diagramType}`);
  // Deprecated but kept in v11, and the only public way to the diagram's database without layout.
  const diagram = await mermaid.mermaidAPI.getDiagramFromText(source);
  const db = diagram.db as unknown as GanttDb;
  return {
    dateFormat: db.getDateFormat(),
    axisFormat: db.getAxisFormat(),
    tickInterval: db.getTickInterval(),
    todayMarker: db.getTodayMarker(),
    bars: db.getTasks().map((task) => ({
      section: task.section,
      label: task.task.trim(),
      tags: (['done', 'active', 'crit'] as const).filter((tag) => task[tag]),
      start: task.startTime,
      end: task.endTime,
      startText: task.raw.startTime.startData ?? '',
      endText: task.raw.endTime.data ?? ''
    }))
  };
}

/**
 * Mermaid reads dates in the reader's time zone and draws the axis in it, so what a reader sees is
 * the date's wall clock: returned here as the UTC time with that wall clock.
 */
export function wallClock(date: Date): number {
  return Date.UTC(
    date.getFullYear(),
    date.getMonth(),
    date.getDate(),
    date.getHours(),
    date.getMinutes(),
    date.getSeconds(),
    date.getMilliseconds()
  );
}

export interface ExpectedBar {
  section: string;
  /** The operation id: the bar's label starts with its first 8 characters. */
  id: string;
  start: number;
  /** When the operation ended (or now, while it runs). */
  end: number;
  tag: 'done' | 'active' | 'crit';
}

/**
 * What is wrong with a timeline that should show `expected`, in order, as seen at `now`; nothing
 * when it is right. Every date must be in the chart's `dateFormat` (otherwise Mermaid falls back to
 * the browser's own date parsing for a start, and silently draws an end as the start), the bar must
 * start when the operation did, end no earlier than it did and not past `now` unless the operation
 * itself did, and have a width. Unix-millisecond dates (`x`) are instants; any other format is read
 * as a UTC wall clock, which is what Mermaid shows only to readers whose zone is UTC.
 */
export function timelineProblems(gantt: Gantt, expected: ExpectedBar[], now: number): string[] {
  const problems: string[] = [];
  const at = (ms: number): string => new Date(ms).toISOString();
  const got = gantt.bars.map((bar) => `${bar.section}: ${bar.label.slice(0, 8)}`);
  const want = expected.map((bar) => `${bar.section}: ${bar.id.slice(0, 8)}`);
  if (got.join('\n') !== want.join('\n'))
    problems.push(`bars ${JSON.stringify(got)} instead of ${JSON.stringify(want)}`);
  gantt.bars.forEach((bar, i) => {
    const name = `bar ${i + 1} (${bar.label})`;
    for (const [which, value] of [
      ['start', bar.startText],
      ['end', bar.endText]
    ] as const) {
      if (!dayjs(value, gantt.dateFormat, true).isValid())
        problems.push(
          `${name}: ${which} '${value}' is not in the dateFormat '${gantt.dateFormat}'`
        );
    }
    const instant = /^[xX]$/.test(gantt.dateFormat.trim());
    const start = instant ? bar.start.getTime() : wallClock(bar.start);
    const end = instant ? bar.end.getTime() : wallClock(bar.end);
    if (Number.isNaN(start) || Number.isNaN(end)) {
      problems.push(`${name}: Mermaid computed no valid date`);
      return;
    }
    if (end <= start) problems.push(`${name}: ends ${at(end)}, not after its start ${at(start)}`);
    const want = expected[i];
    if (!want) return;
    if (start !== want.start) problems.push(`${name}: starts ${at(start)}, not ${at(want.start)}`);
    if (end < want.end || end > Math.max(want.end, now))
      problems.push(`${name}: ends ${at(end)}, the operation ended ${at(want.end)}`);
    if (bar.tags.join() !== want.tag)
      problems.push(`${name}: tags ${bar.tags.join()}, not ${want.tag}`);
  });
  return problems;
}

export interface ZonedBar {
  /** The instants Mermaid computed. */
  start: number;
  end: number;
  /** The wall clocks a reader in that zone sees them at, as UTC times with those wall clocks. */
  startWall: number;
  endWall: number;
}

// Runs in a Node process of its own, so that the reader's zone is not the test process's: one
// process for a test file's every zone, as loading Mermaid costs about a second of CPU. Node reads
// TZ again whenever it is assigned, so each request sets its own. One JSON request a line in, one
// JSON answer a line out, in order.
const IN_ZONE = `
const { Window } = await import('happy-dom');
const window = new Window();
Object.assign(globalThis, { window, document: window.document });
const mermaid = (await import('mermaid')).default;
mermaid.initialize({ startOnLoad: false });
const { createInterface } = await import('node:readline');
const wall = (d) => Date.UTC(d.getFullYear(), d.getMonth(), d.getDate(), d.getHours(), d.getMinutes(), d.getSeconds(), d.getMilliseconds());
for await (const line of createInterface({ input: process.stdin })) {
  const { timeZone, sources } = JSON.parse(line);
  process.env.TZ = timeZone;
  const charts = [];
  for (const source of sources) {
    const diagram = await mermaid.mermaidAPI.getDiagramFromText(source);
    charts.push(diagram.db.getTasks().map((t) => ({
      start: t.startTime.getTime(), end: t.endTime.getTime(),
      startWall: wall(t.startTime), endWall: wall(t.endTime)
    })));
  }
  process.stdout.write(JSON.stringify(charts) + '\\n');
}
`;

interface ZoneRenderer {
  child: ChildProcessWithoutNullStreams;
  /** Answers not yet received, in the order asked. */
  waiting: Array<{ resolve: (line: string) => void; reject: (error: Error) => void }>;
}

let zoneRenderer: ZoneRenderer | undefined;

function startZoneRenderer(): ZoneRenderer {
  const child = spawn(process.execPath, ['--input-type=module', '-e', IN_ZONE], {
    cwd: resolve(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..', '..'),
    env: { PATH: process.env.PATH ?? '' }
  });
  const renderer: ZoneRenderer = { child, waiting: [] };
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  createInterface({ input: child.stdout }).on('line', (line) =>
    renderer.waiting.shift()?.resolve(line)
  );
  child.on('close', (code) => {
    if (zoneRenderer === renderer) zoneRenderer = undefined;
    const error = new Error(`Mermaid's process ended (${code}): ${stderr}`);
    for (const each of renderer.waiting.splice(0)) each.reject(error);
  });
  return renderer;
}

/**
 * The dates Mermaid computes for the bars of each gantt chart when the reader's browser is in
 * `timeZone`: Mermaid itself, in a Node process with TZ set to that zone (started on first use,
 * ended by `closeZoneRenderer`).
 */
export function ganttDatesInZone(sources: string[], timeZone: string): Promise<ZonedBar[][]> {
  zoneRenderer ??= startZoneRenderer();
  const renderer = zoneRenderer;
  return new Promise<string>((resolve, reject) => {
    renderer.waiting.push({ resolve, reject });
    renderer.child.stdin.write(`${JSON.stringify({ timeZone, sources })}\n`);
  }).then((line) => JSON.parse(line) as ZonedBar[][]);
}

/** Ends the process of `ganttDatesInZone`, if one was started (a test file's `afterAll`). */
export async function closeZoneRenderer(): Promise<void> {
  const renderer = zoneRenderer;
  if (!renderer) return;
  zoneRenderer = undefined;
  const closed = once(renderer.child, 'close');
  renderer.child.stdin.end();
  await closed;
}
