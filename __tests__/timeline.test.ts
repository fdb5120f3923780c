import { describe, expect, it } from '@jest/globals';
import { makeOperation } from './helpers/operations.js';
import { mermaidText, renderTimeline, TIMELINE_ROWS } from '../src/report/timeline.js';

const NOW = Date.parse('2026-01-02T03:10:00Z');
const op = makeOperation;

/** `YYYY-MM-DD HH:mm:ss.SSS` */
const STAMP = String.raw`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}`;
const BAR = new RegExp(`^  (.*) :((?:done|active|crit), )(${STAMP}), (${STAMP})$`);

interface ParsedBar {
  section: string;
  label: string;
  tag: string;
  start: number;
  end: number;
}

/** The bars of a chart, by section, with their times read back as UTC. */
function barsOf(lines: readonly string[]): ParsedBar[] {
  const bars: ParsedBar[] = [];
  let section = '';
  const fence = lines.indexOf('```', 1);
  for (const line of lines.slice(0, fence)) {
    const title = /^ {2}section (.+)$/.exec(line);
    if (title) {
      section = title[1] as string;
      continue;
    }
    const bar = BAR.exec(line);
    if (!bar) continue;
    bars.push({
      section,
      label: bar[1] as string,
      tag: (bar[2] as string).replace(', ', ''),
      start: Date.parse(`${(bar[3] as string).replace(' ', 'T')}Z`),
      end: Date.parse(`${(bar[4] as string).replace(' ', 'T')}Z`)
    });
  }
  return bars;
}

/** Lines inside the mermaid fence that are neither the header nor a section: each must be a bar. */
function bodyLines(lines: readonly string[]): string[] {
  const fence = lines.indexOf('```', 1);
  return lines
    .slice(1, fence)
    .filter((line) => !/^(gantt$| {2}(dateFormat|axisFormat|todayMarker|section) )/.test(line));
}

describe('renderTimeline', () => {
  it('gives nothing for no operations', () => {
    expect(renderTimeline([], [], NOW)).toEqual([]);
  });

  it('gives nothing when no operation has a readable created_at', () => {
    expect(renderTimeline([op({ created_at: 'soon' })], [op({ created_at: '' })], NOW)).toEqual([]);
  });

  it('is a mermaid gantt block', () => {
    const lines = renderTimeline([op()], [], NOW);
    expect(lines[0]).toBe('```mermaid');
    expect(lines[1]).toBe('gantt');
    expect(lines).toContain('```');
    expect(lines.filter((line) => line === '```')).toHaveLength(1);
  });

  it('declares the date format the bars are written in', () => {
    const lines = renderTimeline([op()], [], NOW);
    expect(lines).toContain('  dateFormat YYYY-MM-DD HH:mm:ss.SSS');
  });

  it('writes times as UTC wall clock', () => {
    const lines = renderTimeline(
      [op({ created_at: '2026-01-02T03:04:05Z', updated_at: '2026-01-02T03:04:09Z' })],
      [],
      NOW
    );
    const bar = lines.find((line) => line.includes(' :done, '));
    expect(bar).toContain(':done, 2026-01-02 03:04:05.000, 2026-01-02 03:04:09.000');
  });

  it('writes a time given with an offset in UTC', () => {
    const lines = renderTimeline([op({ created_at: '2026-01-02T05:04:05.250+02:00' })], [], NOW);
    expect(lines.join('\n')).toContain(':done, 2026-01-02 03:04:05.250, ');
  });

  it('puts awaited operations under Awaited and the others under Recent', () => {
    const awaited = op({ action: 'create_branch' });
    const recent = op({ action: 'start_compute' });
    const lines = renderTimeline([awaited], [recent], NOW);
    expect(lines.filter((line) => line.startsWith('  section '))).toEqual([
      '  section Awaited',
      '  section Recent'
    ]);
    const bars = barsOf(lines);
    expect(bars.map((b) => [b.section, b.label])).toEqual([
      ['Awaited', `${awaited.id.slice(0, 8)} Create branch`],
      ['Recent', `${recent.id.slice(0, 8)} Start compute`]
    ]);
  });

  it('leaves out an empty section', () => {
    expect(renderTimeline([], [op()], NOW).filter((line) => line.startsWith('  section '))).toEqual(
      ['  section Recent']
    );
    expect(renderTimeline([op()], [], NOW).filter((line) => line.startsWith('  section '))).toEqual(
      ['  section Awaited']
    );
  });

  it('does not repeat an awaited operation under Recent', () => {
    const awaited = op();
    const other = op();
    const bars = barsOf(renderTimeline([awaited], [{ ...awaited }, other], NOW));
    expect(bars).toHaveLength(2);
    expect(bars.filter((b) => b.label.startsWith(awaited.id.slice(0, 8)))).toHaveLength(1);
    expect(bars.find((b) => b.section === 'Recent')?.label).toContain(other.id.slice(0, 8));
  });

  it.each([
    ['finished', 'done'],
    ['skipped', 'done'],
    ['running', 'active'],
    ['scheduling', 'active'],
    ['cancelling', 'active'],
    ['error', 'crit'],
    ['cancelled', 'crit'],
    ['failed', 'crit']
  ])('tags a %s operation %s', (status, tag) => {
    const [bar] = barsOf(renderTimeline([op({ status })], [], NOW));
    expect(bar?.tag).toBe(tag);
  });

  it('tags by status in the Recent section too', () => {
    const bars = barsOf(
      renderTimeline(
        [],
        [op({ status: 'finished' }), op({ status: 'running' }), op({ status: 'error' })],
        NOW
      )
    );
    expect(bars.map((b) => b.tag)).toEqual(['done', 'active', 'crit']);
  });

  it('runs an in-progress operation to now', () => {
    const [bar] = barsOf(
      renderTimeline(
        [op({ status: 'running', created_at: '2026-01-02T03:00:00Z', updated_at: '' })],
        [],
        NOW
      )
    );
    expect(bar?.end).toBe(NOW);
  });

  it('takes the timestamps for the length of a bar, not total_duration_ms', () => {
    const ended = op({ total_duration_ms: 200, updated_at: '2026-01-02T03:05:35Z' });
    const [bar] = barsOf(renderTimeline([ended], [], NOW));
    expect((bar?.end as number) - (bar?.start as number)).toBe(90_000);
  });

  it('gives every bar an end strictly after its start', () => {
    const ops = [
      op({ total_duration_ms: 0 }),
      op({ updated_at: '2026-01-02T03:04:05Z' }),
      op({ updated_at: '2026-01-02T03:00:00Z' }),
      op({ updated_at: 'garbage' }),
      op({ status: 'running', created_at: '2026-01-02T03:10:00Z' }),
      op({ status: 'running', created_at: '2026-01-02T04:00:00Z' }),
      op({ total_duration_ms: 1 })
    ];
    const lines = renderTimeline(ops.slice(0, 3), ops.slice(3), NOW);
    const bars = barsOf(lines);
    expect(bars).toHaveLength(ops.length);
    for (const b of bars) expect(b.end).toBeGreaterThan(b.start);
  });

  it('keeps bars visible when one operation spans hours', () => {
    const lines = renderTimeline(
      [
        op({ created_at: '2026-01-01T00:00:00Z', total_duration_ms: 86_400_000 }),
        op({ total_duration_ms: 0 })
      ],
      [],
      NOW
    );
    const bars = barsOf(lines);
    expect(bars).toHaveLength(2);
    for (const b of bars) expect(b.end).toBeGreaterThan(b.start);
    // The instant one is drawn a sliver wide: 1/300 of the chart, not a single millisecond.
    const span = Math.max(...bars.map((b) => b.end)) - Math.min(...bars.map((b) => b.start));
    const sliver = bars[1] as { start: number; end: number };
    expect(sliver.end - sliver.start).toBeGreaterThanOrEqual(Math.floor(span / 400));
  });

  it('leaves out an operation whose created_at cannot be read', () => {
    const good = op();
    const bars = barsOf(renderTimeline([op({ created_at: 'nope' }), good], [], NOW));
    expect(bars.map((b) => b.label)).toEqual([`${good.id.slice(0, 8)} Create branch`]);
  });

  it(`shows at most ${TIMELINE_ROWS} bars and says how many more there are`, () => {
    const recent = Array.from({ length: TIMELINE_ROWS + 7 }, () => op());
    const lines = renderTimeline([], recent, NOW);
    const bars = barsOf(lines);
    expect(bars).toHaveLength(TIMELINE_ROWS);
    // The first given (the newest, as the API lists them) are kept.
    expect(bars.map((b) => b.label)).toEqual(
      recent.slice(0, TIMELINE_ROWS).map((o) => `${o.id.slice(0, 8)} Create branch`)
    );
    expect(lines.at(-1)).toBe(
      `_The timeline shows the newest ${TIMELINE_ROWS} operations; 7 more are in the tables._`
    );
  });

  it('fills the cap with awaited operations first', () => {
    const awaited = Array.from({ length: 20 }, () => op({ status: 'running' }));
    const recent = Array.from({ length: 10 }, () => op());
    const lines = renderTimeline(awaited, recent, NOW);
    const bars = barsOf(lines);
    expect(bars.filter((b) => b.section === 'Awaited')).toHaveLength(20);
    expect(bars.filter((b) => b.section === 'Recent')).toHaveLength(TIMELINE_ROWS - 20);
    expect(lines.join('\n')).toContain('; 5 more are in the tables._');
  });

  it('caps the awaited operations alone, leaving no Recent section', () => {
    const awaited = Array.from({ length: TIMELINE_ROWS + 3 }, () => op());
    const lines = renderTimeline(awaited, [op(), op()], NOW);
    expect(barsOf(lines)).toHaveLength(TIMELINE_ROWS);
    expect(lines).not.toContain('  section Recent');
    expect(lines.join('\n')).toContain('; 5 more are in the tables._');
  });

  it(`has no note at exactly ${TIMELINE_ROWS} bars`, () => {
    const lines = renderTimeline(
      [],
      Array.from({ length: TIMELINE_ROWS }, () => op()),
      NOW
    );
    expect(lines.at(-1)).toBe('```');
    expect(lines.join('\n')).not.toContain('more are in the tables');
  });

  it('writes hostile action strings as plain labels', () => {
    const hostile = [
      'evil: 2020-01-01, 1d',
      'x#comment',
      'a;b',
      'line\nbreak\r\nagain',
      '<img src=x onerror=alert(1)>',
      '%%{init: {"theme":"dark"}}%%',
      'then click task1 href "javascript:alert(1)"',
      '`code` | pipe [link](http://x) {brace} "quote" \'q\' ~ ^ & * = + ! ? / \\ @ $',
      '🙂 ünïcödé\u2028\u0000'
    ];
    const lines = renderTimeline(
      hostile.map((action) => op({ action })),
      [],
      NOW
    );
    const body = bodyLines(lines);
    expect(body).toHaveLength(hostile.length);
    const bars = barsOf(lines);
    expect(bars).toHaveLength(hostile.length);
    for (const b of bars) {
      expect(b.label).toMatch(/^[A-Za-z0-9 ._()-]+$/);
      expect(b.label.length).toBeLessThanOrEqual(60);
    }
    // The first ':' of each line is the one before the tag: the label holds none.
    for (const line of body) expect(line).toMatch(/^ {2}[^:#;\n]+ :(done|active|crit), /);
    expect(body.join('\n')).not.toMatch(/<img|%%|"|`|#|;/);
  });

  // Mermaid's gantt lexer is case-insensitive and tries its keyword rules before a task's text, so
  // a bar line whose label starts with a keyword is read as that statement, not as a task.
  it.each([
    'title_change',
    'section_move',
    'excludes_update',
    'click_tracking',
    'call_webhook',
    'gantt_sync',
    'dateformat_reset',
    'todaymarker_set'
  ])('does not let the action %j start a Mermaid statement', (action) => {
    const keyword =
      /^\s*(title\s|section\s|excludes\s|includes\s|click\s|call\s|href\s|gantt|dateformat\s|axisformat\s|tickinterval\s|todaymarker\s|weekday\s|topaxis|inclusiveenddates|accdescription\s|acctitle\s*:|accdescr\s*[:{])/i;
    const [line] = bodyLines(renderTimeline([op({ action })], [], NOW));
    expect(line).toMatch(BAR);
    expect(line).not.toMatch(keyword);
  });
});

describe('mermaidText', () => {
  it.each([
    ['Create branch d8ac46eb', 'Create branch d8ac46eb'],
    ['a:b#c;d', 'a b c d'],
    ['line\nbreak\ttab', 'line break tab'],
    ['keep ._()- marks', 'keep ._()- marks'],
    ['<img src=x onerror=alert(1)>', 'img src x onerror alert(1)'],
    ['  many    spaces  ', 'many spaces'],
    ['ünïcödé 🙂', 'n c d'],
    ['', 'operation'],
    [':#;', 'operation'],
    ['%%', 'operation']
  ])('writes %j as %j', (text, expected) => {
    expect(mermaidText(text)).toBe(expected);
  });

  it('keeps only letters, digits, spaces and . _ ( ) -', () => {
    let all = '';
    for (let c = 0; c < 0x300; c++) all += String.fromCharCode(c);
    expect(mermaidText(all)).toMatch(/^[A-Za-z0-9 ._()-]+$/);
  });

  it('keeps at most 60 characters', () => {
    expect(mermaidText('x'.repeat(500))).toHaveLength(60);
  });
});
