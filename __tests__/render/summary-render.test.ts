/**
 * The summary checked with real renderers: GitHub-flavoured Markdown rendered and sanitized as
 * GitHub does, asserted on as a DOM; every Mermaid block read by the `mermaid` library, down to the
 * dates it computes for the gantt bars, so a wrong date format fails here and not only on GitHub.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Operation } from '../../src/neon/operation.js';
import type { Report } from '../../src/report/model.js';
import { COMMENT_LIMIT, renderSummary } from '../../src/report/summary.js';
import { makeOperation } from '../helpers/operations.js';
import {
  elementNames,
  type ExpectedBar,
  type Gantt,
  githubReferences,
  loadMermaid,
  mermaidSources,
  readGantt,
  renderToDom,
  tablesOf,
  text,
  timelineProblems
} from '../helpers/render.js';
import type { HTMLDetailsElement, HTMLTableCellElement, Node } from 'happy-dom';

const NOW = Date.parse('2026-11-26T10:00:00Z');
const PROJECT = 'restless-sun-58231907';
const BRANCH = 'br-calm-river-a1b2c3d4';
const HEADER = [
  'Status',
  'Operation',
  'ID',
  'Branch',
  'Endpoint',
  'Failures',
  'Duration',
  'Created',
  'Error'
];
const MINUTE = 60_000;
const HOSTILE =
  '<img src=x onerror=alert(1)> | cell | `code` [click](javascript:alert(1)) ](javascript:alert(2)) ' +
  '**bold** _it_ ~~del~~ <details><summary>x</summary>\n| --- |\r\n</details> \\| end';
/** Elements a summary may contain; anything else came from text that should have stayed text. */
const SUMMARY_ELEMENTS = [
  'h3',
  'h4',
  'p',
  'blockquote',
  'em',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'code',
  'sub',
  'br',
  'details',
  'summary',
  'pre'
];

const IN_PROGRESS = new Set(['scheduling', 'running', 'cancelling', 'failed']);

function op(minutesAgo: number, fields: Partial<Operation> = {}): Operation {
  const created = NOW - minutesAgo * MINUTE;
  return makeOperation({
    project_id: PROJECT,
    branch_id: BRANCH,
    endpoint_id: 'ep-quiet-lake-e5f6a7b8',
    created_at: new Date(created).toISOString(),
    updated_at: new Date(created + 1000).toISOString(),
    ...fields
  });
}

function report(fields: Partial<Report>): Report {
  return {
    mode: 'operations',
    waited: true,
    projectId: PROJECT,
    status: 'finished',
    timedOut: false,
    operations: [],
    startedAt: NOW - 5 * MINUTE,
    finishedAt: NOW,
    timeoutMs: 10 * MINUTE,
    requests: 9,
    ...fields
  };
}

function recent(operations: Operation[]): NonNullable<Report['recent']> {
  return { operations, scanned: operations.length, requests: 1, scanStopped: false };
}

/** The bars a timeline of `r` should have: awaited operations, then the other recent ones. */
function expectedBars(r: Report): ExpectedBar[] {
  const awaited = new Set(r.operations.map((o) => o.id));
  const bar = (section: string, o: Operation): ExpectedBar => {
    const start = Date.parse(o.created_at);
    // From the timestamps: the service's total_duration_ms is not wall time.
    const end = IN_PROGRESS.has(o.status) ? r.finishedAt : Date.parse(o.updated_at);
    const tag = ['failed', 'error', 'cancelled'].includes(o.status)
      ? 'crit'
      : IN_PROGRESS.has(o.status)
        ? 'active'
        : 'done';
    return { section, id: o.id, start, end, tag };
  };
  return [
    ...r.operations.map((o) => bar('Awaited', o)),
    ...(r.recent?.operations ?? []).filter((o) => !awaited.has(o.id)).map((o) => bar('Recent', o))
  ];
}

const finished = op(3, { action: 'create_branch', total_duration_ms: 95_000 });
const running = op(70 / 60, { action: 'start_compute', status: 'running' });
const retrying = op(2, {
  action: 'apply_config',
  status: 'failed',
  failures_count: 2,
  error: 'compute did not respond in time',
  total_duration_ms: 30_000
});
const broken = op(4, {
  action: 'suspend_compute',
  status: 'error',
  failures_count: 3,
  error: 'endpoint is locked by another operation',
  total_duration_ms: 12_000
});
const older = [
  op(30, { action: 'check_availability', branch_id: 'br-main-00112233', total_duration_ms: 900 }),
  op(60, { action: 'apply_storage_config', total_duration_ms: 61_000 })
];

interface Scenario {
  report: Report;
  /** Heading and row count of each table, in order. */
  tables: Array<[string, number]>;
  timeline: boolean;
}

const SCENARIOS: Record<string, Scenario> = {
  'operations: running, finished, failed and error': {
    report: report({
      status: 'error',
      operations: [finished, running, retrying, broken],
      failure: `Operation(s) did not succeed: suspend_compute ${broken.id} is error (failures_count 3): ${broken.error}`,
      recent: recent([running, retrying, finished, broken, ...older])
    }),
    tables: [
      ['Awaited operations (1 finished · 1 running · 1 failed · 1 error)', 4],
      ['Recent operations (3 finished · 1 running · 1 failed · 1 error)', 6]
    ],
    timeline: true
  },
  'project mode: idle, recent operations of a branch': {
    report: report({
      mode: 'project',
      status: 'idle',
      branchId: BRANCH,
      recent: recent([finished, ...older])
    }),
    tables: [[`Recent operations on branch ${BRANCH} (3 finished)`, 3]],
    timeline: true
  },
  'project mode: timed out with work in progress': {
    report: report({
      mode: 'project',
      status: 'timeout',
      timedOut: true,
      operations: [running, op(0.5, { action: 'create_branch', status: 'scheduling' })],
      failure: `Timed out after 10m waiting for start_compute ${running.id} (last status running).`,
      recentError: 'HTTP 503 from GET /projects/restless-sun-58231907/operations: unavailable',
      finishedAt: NOW,
      startedAt: NOW - 10 * MINUTE
    }),
    tables: [['Operations seen in progress (1 running · 1 scheduling)', 2]],
    timeline: true
  },
  'input error': {
    report: report({
      status: 'input_error',
      waited: false,
      projectId: undefined,
      requests: 0,
      timeoutMs: 0,
      failure: "Invalid timeout '10 parsecs'. Expected a duration such as 90s, 10m or 1h."
    }),
    tables: [],
    timeline: false
  },
  'hostile API text': {
    report: report({
      status: 'error',
      operations: [
        op(2, {
          action: `create_branch ${HOSTILE}`,
          status: 'error',
          error: HOSTILE,
          total_duration_ms: 4000
        }),
        op(1, { status: 'error', error: `huge: ${'connection reset; '.repeat(6000)}` })
      ],
      failure: `Operation(s) did not succeed: ${HOSTILE}`,
      recentError: HOSTILE
    }),
    tables: [['Awaited operations (2 error)', 2]],
    timeline: true
  }
};

beforeAll(async () => {
  await loadMermaid();
});

describe.each(Object.entries(SCENARIOS))('summary rendered by GitHub: %s', (_name, scenario) => {
  const markdown = renderSummary(scenario.report);
  const body = renderToDom(markdown);

  it('has only the elements a summary is made of', () => {
    const unexpected = [...elementNames(body)].filter((name) => !SUMMARY_ELEMENTS.includes(name));
    expect(unexpected).toEqual([]);
    expect(body.querySelectorAll('a, img, script, style, input')).toHaveLength(0);
  });

  it('has the expected tables, every row as wide as the header', () => {
    const tables = tablesOf(body);
    expect(tables.map((t) => [t.heading, t.rows.length])).toEqual(scenario.tables);
    for (const table of tables) {
      expect(table.header).toEqual(HEADER);
      for (const row of table.rows) {
        expect(row).toHaveLength(HEADER.length);
        // The sanitizer keeps `title`: the short id shows the whole id on hover.
        const id = row[2]!.querySelector('code')!;
        expect(id.title.startsWith(text(id))).toBe(true);
        expect(id.title).toMatch(/^[0-9a-f]{8}-[0-9a-f-]{27}$/);
      }
    }
  });

  it('has one heading and the footer outside any block', () => {
    expect([...body.querySelectorAll('h3')].map(text)).toHaveLength(1);
    const footer = body.lastElementChild!;
    expect(footer.tagName).toBe('P');
    expect(footer.children).toHaveLength(1);
    expect(text(footer)).toMatch(
      /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC · neon-operations-wait-action /
    );
  });

  it('has the timeline in one open <details> at the top level, its summary first', () => {
    const details = [...body.querySelectorAll('details')];
    expect(details).toHaveLength(scenario.timeline ? 1 : 0);
    if (!scenario.timeline) {
      expect(mermaidSources(body)).toEqual([]);
      return;
    }
    const [block] = details as [HTMLDetailsElement];
    expect(block.parentElement).toBe(body);
    expect(block.open).toBe(true);
    expect(block.firstElementChild?.tagName).toBe('SUMMARY');
    expect(text(block.firstElementChild!)).toBe('Timeline (UTC)');
    expect([...block.children].map((el) => el.tagName)).toEqual(['SUMMARY', 'PRE']);
    expect(block.querySelectorAll('code.language-mermaid')).toHaveLength(1);
  });

  it('has Mermaid timelines whose bars Mermaid dates as the operations ran', async () => {
    const sources = mermaidSources(body);
    expect(sources).toHaveLength(scenario.timeline ? 1 : 0);
    for (const source of sources) {
      const gantt = await readGantt(source);
      expect(gantt.axisFormat).toBe('%H:%M:%S');
      expect(gantt.todayMarker).toBe('off');
      expect(timelineProblems(gantt, expectedBars(scenario.report), NOW)).toEqual([]);
    }
  });
});

describe('hostile API text in the rendered summary', () => {
  const r = SCENARIOS['hostile API text']!.report;
  const body = renderToDom(renderSummary(r));
  const [hostileRow, hugeRow] = tablesOf(body)[0]!.rows as [
    HTMLTableCellElement[],
    HTMLTableCellElement[]
  ];
  /** The text a reader should see: control characters as spaces, nothing interpreted. */
  const flat = HOSTILE.replace(/\p{Cc}+/gu, ' ');

  it('stays text in a table cell, whole', () => {
    expect(hostileRow[8]!.children).toHaveLength(0);
    expect(hostileRow[8]!.textContent).toBe(flat);
  });

  it('stays text in the operation name, cut to 60 characters', () => {
    const [name, br, sub] = hostileRow[1]!.childNodes as unknown as [Node, Node, Node];
    const readable = `Create branch ${HOSTILE.replace(/[_-]+/g, ' ')}`.replace(/\p{Cc}+/gu, ' ');
    expect(name.textContent).toBe(`${readable.slice(0, 59)}…`);
    expect(br.nodeName).toBe('BR');
    expect(sub.nodeName).toBe('SUB');
    expect(sub.childNodes).toHaveLength(1);
    expect(sub.textContent).toBe(`${`create_branch ${flat}`.slice(0, 59)}…`);
  });

  it('stays text in the failure quote and the recent-operations note', () => {
    expect(text(body.querySelector('blockquote')!)).toBe(
      `Operation(s) did not succeed: ${flat}`.replace(/\s+/g, ' ')
    );
    const note = [...body.querySelectorAll('p > em')].find((em) =>
      text(em).startsWith('Recent operations could not be loaded')
    );
    expect(note?.textContent).toBe(`Recent operations could not be loaded: ${flat}`);
  });

  it('is cut when huge, the row still one row', () => {
    expect(hugeRow).toHaveLength(HEADER.length);
    expect(Array.from(hugeRow[8]!.textContent!).length).toBe(300);
    expect(hugeRow[8]!.textContent!.endsWith('…')).toBe(true);
  });

  it('leaves the Mermaid labels plain', async () => {
    const gantt = await readGantt(mermaidSources(body)[0]!);
    for (const bar of gantt.bars) expect(bar.label).toMatch(/^[0-9a-f]{8} [A-Za-z0-9 ._()-]+$/);
  });

  // GitHub links `@user` (and notifies them) and `#123` in text after rendering, and an entity
  // such as `&#64;` does not stop it; a zero-width space does.
  it('gives GitHub no @mention or #reference to link', () => {
    const mentions = renderToDom(
      renderSummary(
        report({
          status: 'error',
          operations: [
            op(1, {
              status: 'error',
              error: 'ask @octocat or @octo-org/team, see #123, octo-org/octo-repo#5 and GH-77'
            })
          ]
        })
      )
    );
    expect(githubReferences(mentions)).toEqual([]);
  });

  // A bare `www.` address would become a link (GFM autolink literal); `:` is escaped, so `http://`
  // addresses do not.
  it('gives GFM no bare address to link', () => {
    const links = renderToDom(
      renderSummary(
        report({
          status: 'error',
          operations: [
            op(1, { status: 'error', error: 'see www.example.com/login and http://x.example' })
          ]
        })
      )
    );
    expect(links.querySelectorAll('a')).toHaveLength(0);
  });
});

describe('a summary cut to the comment limit', () => {
  const many = Array.from({ length: 400 }, (_, i) =>
    op(i + 1, { action: 'check_availability', error: 'e'.repeat(250), total_duration_ms: 900 })
  );
  const r = report({ operations: [finished], recent: recent(many) });
  const markdown = renderSummary(r, COMMENT_LIMIT);
  const body = renderToDom(markdown);

  it('fits, and its tables are still whole', () => {
    expect(markdown.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    const tables = tablesOf(body);
    expect(tables.length).toBeGreaterThan(0);
    for (const table of tables) {
      expect(table.header).toEqual(HEADER);
      for (const row of table.rows) expect(row).toHaveLength(HEADER.length);
    }
  });

  it('keeps a timeline Mermaid reads, with at most 25 bars', async () => {
    for (const source of mermaidSources(body)) {
      const gantt = await readGantt(source);
      expect(gantt.bars.length).toBeLessThanOrEqual(25);
      const byId = new Map(expectedBars(r).map((bar) => [bar.id.slice(0, 8), bar]));
      const expected = gantt.bars.map((bar) => byId.get(bar.label.slice(0, 8))!);
      expect(timelineProblems(gantt, expected, NOW)).toEqual([]);
    }
  });
});

describe('the timeline check fails a broken timeline', () => {
  const r = SCENARIOS['operations: running, finished, failed and error']!.report;
  const source = mermaidSources(renderToDom(renderSummary(r)))[0]!;
  const expected = expectedBars(r);
  const STAMP = /(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d{3})/g;
  const problemsOf = async (broken: string): Promise<string[]> =>
    timelineProblems(await readGantt(broken), expected, NOW);

  it('passes the timeline as written', async () => {
    expect(await problemsOf(source)).toEqual([]);
  });

  it('fails ISO dates with a zone, which mermaid.parse accepts', async () => {
    const broken = source.replace(STAMP, '$1T$2Z');
    expect(broken).toContain('T10:00:00.000Z');
    await expect((await loadMermaid()).parse(broken)).resolves.toMatchObject({
      diagramType: 'gantt'
    });
    const problems = await problemsOf(broken);
    expect(problems).toContainEqual(expect.stringMatching(/is not in the dateFormat/));
    // Mermaid reads such an end as no date at all: the bar would have no width.
    expect(problems).toContainEqual(expect.stringMatching(/not after its start/));
  });

  it('fails a dateFormat that does not match the dates', async () => {
    const broken = source.replace('dateFormat YYYY-MM-DD HH:mm:ss.SSS', 'dateFormat YYYY-MM-DD');
    await expect((await loadMermaid()).parse(broken)).resolves.toBeTruthy();
    expect(await problemsOf(broken)).toContainEqual(
      expect.stringMatching(/is not in the dateFormat 'YYYY-MM-DD'/)
    );
  });

  it('fails dates in the right format but the wrong zone', async () => {
    const shifted = source.replace(STAMP, (stamp) =>
      new Date(Date.parse(`${stamp.replace(' ', 'T')}Z`) + 3_600_000)
        .toISOString()
        .slice(0, 23)
        .replace('T', ' ')
    );
    expect(await problemsOf(shifted)).toContainEqual(expect.stringMatching(/starts .*, not /));
  });

  it('fails a date Mermaid cannot read at all', async () => {
    const broken = source.replace(STAMP, 'soon');
    await expect(readGantt(broken)).rejects.toThrow(/Invalid date/);
  });

  it('fails bars in another order or section', async () => {
    const swapped: Gantt = await readGantt(source);
    swapped.bars.reverse();
    expect(timelineProblems(swapped, expected, NOW)).toContainEqual(
      expect.stringMatching(/^bars /)
    );
  });
});
