import { describe, expect, it } from '@jest/globals';
import { makeOperation } from './helpers/builders.js';
import {
  mermaidText,
  renderTimeline,
  tickInterval,
  TIMELINE_ROWS
} from '../src/report/timeline.js';

const NOW = Date.parse('2026-01-02T03:10:00Z');
const op = makeOperation;

/** Unix milliseconds (`dateFormat x`). */
const BAR = /^ {2}(.*) :((?:done|active|crit), )(\d+), (\d+)$/;

interface ParsedBar {
  section: string;
  label: string;
  tag: string;
  start: number;
  end: number;
}

/** The bars of a chart, by section, with their times. */
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
      start: Number(bar[3]),
      end: Number(bar[4])
    });
  }
  return bars;
}

/** Lines inside the mermaid fence that are neither the header nor a section: each must be a bar. */
function bodyLines(lines: readonly string[]): string[] {
  const fence = lines.indexOf('```', 1);
  return lines
    .slice(1, fence)
    .filter(
      (line) =>
        !/^(gantt$| {2}(dateFormat|axisFormat|tickInterval|todayMarker|section) )/.test(line)
    );
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

  it('declares Unix milliseconds as the date format, ticks and no today marker', () => {
    const lines = renderTimeline([op()], [], NOW);
    expect(lines.slice(1, 6)).toEqual([
      'gantt',
      '  dateFormat x',
      '  axisFormat %H:%M:%S',
      '  tickInterval 1second',
      '  todayMarker off'
    ]);
  });

  // Mermaid reads `x` dates as the same instant in every time zone (see the render tests).
  it('writes times as Unix milliseconds', () => {
    const lines = renderTimeline(
      [op({ created_at: '2026-01-02T03:04:05Z', updated_at: '2026-01-02T03:04:09Z' })],
      [],
      NOW
    );
    const bar = lines.find((line) => line.includes(' :done, '));
    expect(bar).toContain(
      `:done, ${Date.parse('2026-01-02T03:04:05Z')}, ${Date.parse('2026-01-02T03:04:09Z')}`
    );
  });

  it('writes a time given with an offset as the same instant', () => {
    const lines = renderTimeline([op({ created_at: '2026-01-02T05:04:05.250+02:00' })], [], NOW);
    expect(lines.join('\n')).toContain(`:done, ${Date.parse('2026-01-02T03:04:05.250Z')}, `);
  });

  // Finding 2 of the rendered summary: 30 minutes of history made the awaited operations hairlines
  // at the right edge, and a 2.7 s and a 4.5 s operation were both drawn 6 s wide.
  it('spans only the awaited operations and draws each as long as it took', () => {
    const start = Date.parse('2026-01-02T03:09:00Z');
    const at = (ms: number): string => new Date(ms).toISOString();
    const branch = op({ created_at: at(start), updated_at: at(start + 2700) });
    const compute = op({
      action: 'start_compute',
      created_at: at(start),
      updated_at: at(start + 4500)
    });
    const history = Array.from({ length: 6 }, (_, i) =>
      op({
        action: 'check_availability',
        created_at: at(start - (i + 1) * 300_000),
        updated_at: at(start - (i + 1) * 300_000 + 900)
      })
    );
    const bars = barsOf(renderTimeline([branch, compute], history, NOW));
    expect(bars.map((b) => [b.section, b.end - b.start])).toEqual([
      ['Awaited', 2700],
      ['Awaited', 4500]
    ]);
  });

  it('adds the other operations that started while the awaited ones ran, under their own section', () => {
    const awaited = op({
      created_at: '2026-01-02T03:05:00Z',
      updated_at: '2026-01-02T03:06:00Z'
    });
    const during = op({
      action: 'start_compute',
      created_at: '2026-01-02T03:05:30Z',
      updated_at: '2026-01-02T03:07:00Z'
    });
    const before = op({ created_at: '2026-01-02T03:04:00Z', updated_at: '2026-01-02T03:05:30Z' });
    const after = op({ created_at: '2026-01-02T03:06:01Z', updated_at: '2026-01-02T03:06:02Z' });
    const lines = renderTimeline([awaited], [after, during, before], NOW);
    expect(lines.filter((line) => line.startsWith('  section '))).toEqual([
      '  section Awaited',
      '  section Other operations'
    ]);
    expect(barsOf(lines).map((b) => [b.section, b.label])).toEqual([
      ['Awaited', `${awaited.id.slice(0, 8)} Create branch`],
      ['Other operations', `${during.id.slice(0, 8)} Start compute`]
    ]);
  });

  it('names the first section as asked', () => {
    const lines = renderTimeline([op()], [], NOW, 'Seen in progress');
    expect(lines).toContain('  section Seen in progress');
  });

  it('draws nothing without an awaited operation, and leaves out an empty section', () => {
    expect(renderTimeline([], [op(), op()], NOW)).toEqual([]);
    expect(renderTimeline([op()], [], NOW).filter((line) => line.startsWith('  section '))).toEqual(
      ['  section Awaited']
    );
  });

  it('does not repeat an awaited operation among the others', () => {
    const awaited = op();
    const other = op();
    const bars = barsOf(renderTimeline([awaited], [{ ...awaited }, other], NOW));
    expect(bars).toHaveLength(2);
    expect(bars.filter((b) => b.label.startsWith(awaited.id.slice(0, 8)))).toHaveLength(1);
    expect(bars.find((b) => b.section === 'Other operations')?.label).toContain(
      other.id.slice(0, 8)
    );
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

  it('tags by status among the other operations too', () => {
    const bars = barsOf(
      renderTimeline(
        [op({ status: 'running' })],
        [op({ status: 'finished' }), op({ status: 'running' }), op({ status: 'error' })],
        NOW
      )
    );
    expect(bars.map((b) => b.tag)).toEqual(['active', 'done', 'active', 'crit']);
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
    const bars = barsOf(renderTimeline(ops, [], NOW));
    expect(bars).toHaveLength(ops.length);
    for (const b of bars) expect(b.end).toBeGreaterThan(b.start);
  });

  it('draws a lone instant one second wide', () => {
    const [bar] = barsOf(renderTimeline([op({ updated_at: '2026-01-02T03:04:05Z' })], [], NOW));
    expect((bar?.end as number) - (bar?.start as number)).toBe(1000);
  });

  it('keeps bars visible when one operation spans hours', () => {
    const lines = renderTimeline(
      [
        op({ created_at: '2026-01-01T00:00:00Z', total_duration_ms: 86_400_000 }),
        op({ created_at: '2026-01-01T12:00:00Z', updated_at: '2026-01-01T12:00:00Z' })
      ],
      [],
      NOW
    );
    const bars = barsOf(lines);
    expect(bars).toHaveLength(2);
    for (const b of bars) expect(b.end).toBeGreaterThan(b.start);
    // The instant one is drawn a sliver wide: 1/150 of the chart, not a single millisecond (nor
    // past now: see the next test).
    const span = Math.max(...bars.map((b) => b.end)) - Math.min(...bars.map((b) => b.start));
    const sliver = bars[1] as { start: number; end: number };
    expect(sliver.end - sliver.start).toBe(Math.round(span / 150));
  });

  it('never draws a sliver past now', () => {
    const instant = op({ created_at: '2026-01-02T03:09:59Z', updated_at: '2026-01-02T03:09:59Z' });
    const bars = barsOf(
      renderTimeline([op({ created_at: '2026-01-01T00:00:00Z' }), instant], [], NOW)
    );
    expect(bars[1]).toMatchObject({ start: NOW - 1000, end: NOW });
  });

  it('leaves out an operation whose created_at cannot be read', () => {
    const good = op();
    const bars = barsOf(renderTimeline([op({ created_at: 'nope' }), good], [], NOW));
    expect(bars.map((b) => b.label)).toEqual([`${good.id.slice(0, 8)} Create branch`]);
  });

  it(`shows at most ${TIMELINE_ROWS} bars, the first given, and says how many more there are`, () => {
    const awaited = Array.from({ length: TIMELINE_ROWS + 7 }, () => op());
    const lines = renderTimeline(awaited, [], NOW);
    const bars = barsOf(lines);
    expect(bars).toHaveLength(TIMELINE_ROWS);
    expect(bars.map((b) => b.label)).toEqual(
      awaited.slice(0, TIMELINE_ROWS).map((o) => `${o.id.slice(0, 8)} Create branch`)
    );
    expect(lines.at(-1)).toBe(
      `_The timeline shows ${TIMELINE_ROWS} operations; 7 more are in the tables._`
    );
  });

  it('fills the cap with awaited operations first', () => {
    const awaited = Array.from({ length: 20 }, () => op({ status: 'running' }));
    const others = Array.from({ length: 10 }, () => op());
    const lines = renderTimeline(awaited, others, NOW);
    const bars = barsOf(lines);
    expect(bars.filter((b) => b.section === 'Awaited')).toHaveLength(20);
    expect(bars.filter((b) => b.section === 'Other operations')).toHaveLength(TIMELINE_ROWS - 20);
    expect(lines.join('\n')).toContain('; 5 more are in the tables._');
  });

  it('caps the awaited operations alone, leaving no section of others', () => {
    const awaited = Array.from({ length: TIMELINE_ROWS + 3 }, () => op());
    const lines = renderTimeline(awaited, [op(), op()], NOW);
    expect(barsOf(lines)).toHaveLength(TIMELINE_ROWS);
    expect(lines).not.toContain('  section Other operations');
    expect(lines.join('\n')).toContain('; 5 more are in the tables._');
  });

  it(`has no note at exactly ${TIMELINE_ROWS} bars`, () => {
    const lines = renderTimeline(
      Array.from({ length: TIMELINE_ROWS }, () => op()),
      [],
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

describe('tickInterval', () => {
  // At most about 10 ticks, never closer than the whole seconds the axis labels show.
  it.each([
    [0, '1second'],
    [4500, '1second'],
    [10_000, '1second'],
    [10_001, '2second'],
    [45_000, '5second'],
    [180_000, '30second'],
    [600_000, '1minute'],
    [30 * 60_000, '5minute'],
    [3 * 3_600_000, '30minute'],
    [25 * 3_600_000, '3hour'],
    [9 * 86_400_000, '1day'],
    [200 * 86_400_000, '30day']
  ])('ticks a chart of %d ms every %s', (span, interval) => {
    expect(tickInterval(span)).toBe(interval);
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
