/**
 * The summary and the PR comment checked with real renderers: GitHub-flavoured Markdown rendered
 * and sanitized as GitHub does, asserted on as a DOM; every Mermaid block read by the `mermaid`
 * library, down to the dates it computes for the gantt bars, in several time zones, so a wrong date
 * format fails here and not only on GitHub.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isSeen, type Operation } from '../../src/neon/operation.js';
import type { Report } from '../../src/report/model.js';
import { COMMENT_LIMIT, renderComment, renderSummary } from '../../src/report/summary.js';
import { makeOperation, makeRecent, makeReport, type ReportFields } from '../helpers/builders.js';
import {
  elementNames,
  type ExpectedBar,
  type Gantt,
  closeZoneRenderer,
  ganttDatesInZone,
  githubReferences,
  loadMermaid,
  mermaidSources,
  readGantt,
  renderToDom,
  tablesOf,
  text,
  timelineProblems
} from '../helpers/render.js';
import type { HTMLDetailsElement, HTMLElement } from 'happy-dom';

const NOW = Date.parse('2026-11-26T10:00:00Z');
const PROJECT = 'restless-sun-58231907';
const BRANCH = 'br-calm-river-a1b2c3d4';
const MINUTE = 60_000;
const HOSTILE =
  '<img src=x onerror=alert(1)> | cell | `code` [click](javascript:alert(1)) ](javascript:alert(2)) ' +
  '**bold** _it_ ~~del~~ <details><summary>x</summary>\n| --- |\r\n</details> \\| end';
/** Elements a report may contain; anything else came from text that should have stayed text. */
const REPORT_ELEMENTS = [
  'h3',
  'h4',
  'p',
  'blockquote',
  'em',
  'strong',
  'ul',
  'li',
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
/** The only links a report makes: to the Neon console, when its API is Neon's. */
const CONSOLE_LINK =
  /^https:\/\/console\.neon\.tech\/app\/projects\/[a-z0-9-]+(\/branches\/[a-z0-9-]+)?$/;

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

function report(fields: ReportFields): Report {
  return makeReport({
    projectId: PROJECT,
    startedAt: NOW - 5 * MINUTE,
    finishedAt: NOW,
    timeoutMs: 10 * MINUTE,
    requests: 9,
    ...fields
  });
}

const recent = (operations: Operation[]) => makeRecent(operations);

/**
 * The bars a timeline of `r` should have: the awaited operations, then the other recent ones that
 * started while they ran (from the first start to the last end; a running one ends now).
 */
function expectedBars(r: Report): ExpectedBar[] {
  const endOf = (o: Operation): number =>
    IN_PROGRESS.has(o.status) ? r.finishedAt : Date.parse(o.updated_at);
  const bar = (section: string, o: Operation): ExpectedBar => {
    const tag = ['failed', 'error', 'cancelled'].includes(o.status)
      ? 'crit'
      : IN_PROGRESS.has(o.status)
        ? 'active'
        : 'done';
    // From the timestamps: the service's total_duration_ms is not wall time.
    return { section, id: o.id, start: Date.parse(o.created_at), end: endOf(o), tag };
  };
  const awaited = r.targets[0].operations
    .filter(isSeen)
    .filter((o) => !Number.isNaN(Date.parse(o.created_at)));
  if (awaited.length === 0) return [];
  const from = Math.min(...awaited.map((o) => Date.parse(o.created_at)));
  const to = Math.max(...awaited.map(endOf));
  const ids = new Set(awaited.map((o) => o.id));
  const others = (r.targets[0].recent?.operations ?? []).filter((o) => {
    const start = Date.parse(o.created_at);
    return !ids.has(o.id) && start >= from && start <= to;
  });
  const first = r.targets[0].kind === 'project' ? 'Seen in progress' : 'Awaited';
  return [...awaited.map((o) => bar(first, o)), ...others.map((o) => bar('Other operations', o))];
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
const broken = op(2.5, {
  action: 'suspend_compute',
  status: 'error',
  failures_count: 3,
  error: 'endpoint is locked by another operation',
  total_duration_ms: 12_000
});
const alongside = op(1.5, {
  action: 'check_availability',
  branch_id: 'br-main-00112233',
  endpoint_id: 'ep-main-44556677'
});
const older = [
  op(30, { action: 'check_availability', branch_id: 'br-main-00112233', total_duration_ms: 900 }),
  op(60, { action: 'apply_storage_config', status: 'error', error: 'storage unavailable' })
];

interface Scenario {
  report: Report;
  /** Heading, column headers and row count of each table, in order. */
  tables: Array<[string, string[], number]>;
  timeline: boolean;
}

const SCENARIOS: Record<string, Scenario> = {
  'operations: running, finished, failed and error, with console links': {
    report: report({
      status: 'error',
      operations: [finished, running, retrying, broken],
      failure: `Operation(s) did not succeed: suspend_compute ${broken.id} is error (failures_count 3): ${broken.error}`,
      recent: recent([running, alongside, retrying, finished, broken, ...older]),
      consoleLinks: true
    }),
    tables: [
      [
        'Awaited operations (1 finished · 1 running · 1 failed · 1 error)',
        ['Status', 'Operation', 'Duration', 'Started'],
        4
      ],
      [
        'Recent operations (2 finished · 1 error)',
        ['Status', 'Operation', 'Branch', 'Compute', 'Duration', 'Started'],
        3
      ]
    ],
    timeline: true
  },
  'project mode: idle, recent operations of a branch': {
    report: report({
      kind: 'project',
      status: 'idle',
      branchId: BRANCH,
      recent: recent([finished, ...older.map((o) => ({ ...o, branch_id: BRANCH }))])
    }),
    tables: [
      [
        'Recent operations (2 finished · 1 error)',
        ['Status', 'Operation', 'Duration', 'Started'],
        3
      ]
    ],
    timeline: false
  },
  'project mode: timed out with work in progress': {
    report: report({
      kind: 'project',
      status: 'timeout',
      timedOut: true,
      operations: [running, op(0.5, { action: 'create_branch', status: 'scheduling' })],
      failure: `Timed out after 10m waiting for start_compute ${running.id} (last status running).`,
      recentError: 'HTTP 503 from GET /projects/restless-sun-58231907/operations: unavailable',
      finishedAt: NOW,
      startedAt: NOW - 10 * MINUTE
    }),
    tables: [
      [
        'Operations seen in progress (1 running · 1 scheduling)',
        ['Status', 'Operation', 'Duration', 'Started'],
        2
      ]
    ],
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
    tables: [['Awaited operations (2 error)', ['Status', 'Operation', 'Duration', 'Started'], 2]],
    timeline: true
  }
};

/** Every table row's Operation cell starts with the short id, the whole id on hover. */
function expectIdCells(root: HTMLElement): string[] {
  const ids: string[] = [];
  for (const table of tablesOf(root)) {
    const at = table.header.indexOf('Operation');
    expect(at).toBeGreaterThanOrEqual(0);
    for (const row of table.rows) {
      expect(row).toHaveLength(table.header.length);
      // The sanitizer keeps `title`: the short id shows the whole id on hover.
      const id = row[at]!.querySelector('code')!;
      expect(row[at]!.firstElementChild).toBe(id);
      expect(id.title.startsWith(text(id))).toBe(true);
      expect(id.title).toMatch(/^[0-9a-f]{8}-[0-9a-f-]{27}$/);
      ids.push(id.title);
    }
  }
  return ids;
}

function expectOnlyReportElements(root: HTMLElement): void {
  const unexpected = [...elementNames(root)].filter(
    (name) => !REPORT_ELEMENTS.includes(name) && name !== 'a'
  );
  expect(unexpected).toEqual([]);
  expect(root.querySelectorAll('img, script, style, input')).toHaveLength(0);
  for (const link of root.querySelectorAll('a'))
    expect(link.getAttribute('href')).toMatch(CONSOLE_LINK);
}

beforeAll(async () => {
  await loadMermaid();
});

describe.each(Object.entries(SCENARIOS))('summary rendered by GitHub: %s', (_name, scenario) => {
  const markdown = renderSummary(scenario.report);
  const body = renderToDom(markdown);

  it('has only the elements a summary is made of, and links only to the console when asked', () => {
    expectOnlyReportElements(body);
    const links = body.querySelectorAll('a');
    if (scenario.report.consoleLinks) expect(links.length).toBeGreaterThan(0);
    else expect(links).toHaveLength(0);
  });

  it('starts with the verdict, then lists what failed, before any table', () => {
    const [first, ...rest] = [...body.children] as HTMLElement[];
    expect(first!.tagName).toBe('H3');
    // The top ends at the first table's heading or fold; lists after it hold errors under tables.
    const end = rest.findIndex((el) => /^(H4|DETAILS)$/.test(el.tagName));
    const list = rest.slice(0, end < 0 ? rest.length : end).find((el) => el.tagName === 'UL');
    const items = list ? [...list.querySelectorAll('li')] : [];
    const failing = scenario.report.targets[0].operations
      .filter(isSeen)
      .filter((o) => ['error', 'cancelled', 'failed'].includes(o.status));
    expect(items.map((li) => li.querySelector('code')!.title)).toEqual(failing.map((o) => o.id));
    if (list) {
      const firstTable = body.querySelector('table');
      if (firstTable)
        expect(list.compareDocumentPosition(firstTable) & 4 /* FOLLOWING */).toBeTruthy();
    }
  });

  it('has the expected tables, one row per operation, each operation in one row only', () => {
    const tables = tablesOf(body);
    expect(tables.map((t) => [t.heading, t.header, t.rows.length])).toEqual(scenario.tables);
    const ids = expectIdCells(body);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('has one heading and the footer outside any block', () => {
    expect([...body.querySelectorAll('h3')]).toHaveLength(1);
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
    expect(text(block.firstElementChild!)).toBe('Timeline (times in your time zone)');
    expect([...block.children].map((el) => el.tagName)).toEqual(['SUMMARY', 'PRE']);
    expect(block.querySelectorAll('code.language-mermaid')).toHaveLength(1);
  });

  it('has Mermaid timelines whose bars Mermaid dates as the operations ran', async () => {
    const sources = mermaidSources(body);
    expect(sources).toHaveLength(scenario.timeline ? 1 : 0);
    for (const source of sources) {
      const gantt = await readGantt(source);
      expect(gantt.dateFormat).toBe('x');
      expect(gantt.axisFormat).toBe('%H:%M:%S');
      expect(gantt.tickInterval).toMatch(/^\d+(second|minute|hour|day|week)$/);
      expect(gantt.todayMarker).toBe('off');
      expect(timelineProblems(gantt, expectedBars(scenario.report), NOW)).toEqual([]);
    }
  });
});

describe.each(Object.entries(SCENARIOS))('comment rendered by GitHub: %s', (_name, scenario) => {
  const summary = renderToDom(renderSummary(scenario.report));
  const comment = renderToDom(renderComment(scenario.report));
  const folds = [...comment.children].filter((el) => el.tagName === 'DETAILS');

  it('has only the elements a report is made of', () => {
    expectOnlyReportElements(comment);
  });

  it('is short on top: the same verdict, facts and failures as the summary, and no table', () => {
    const top = [...comment.children].slice(0, [...comment.children].indexOf(folds[0]!));
    const summaryTop = [...summary.children].slice(0, top.length);
    expect(top.map((el) => el.outerHTML)).toEqual(summaryTop.map((el) => el.outerHTML));
    for (const el of top) expect(el.querySelector('table, pre')).toBeNull();
    expect(top.length).toBeLessThanOrEqual(6);
  });

  it('folds the tables and the timeline in one closed <details>', () => {
    const hasDetails = scenario.tables.length > 0 || scenario.timeline;
    expect(folds.length).toBe(hasDetails || scenario.report.targets[0].recentError ? 1 : 0);
    if (folds.length === 0) return;
    const fold = folds[0] as HTMLDetailsElement;
    expect(fold.open).toBe(false);
    expect(fold.firstElementChild?.tagName).toBe('SUMMARY');
    expect(text(fold.firstElementChild!)).toMatch(/^(Operations: |Recent operations$|Notes$)/);
    const tables = tablesOf(fold as unknown as HTMLElement);
    expect(tables.map((t) => [t.heading, t.header, t.rows.length])).toEqual(scenario.tables);
    expect(tablesOf(comment)).toHaveLength(tables.length);
    const ids = expectIdCells(comment);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('has the same timeline, read by Mermaid as in the summary', async () => {
    const sources = mermaidSources(comment);
    expect(sources).toEqual(mermaidSources(summary));
    for (const source of sources) {
      expect(source.length).toBeGreaterThan(0);
      expect(timelineProblems(await readGantt(source), expectedBars(scenario.report), NOW)).toEqual(
        []
      );
    }
  });
});

describe('hostile API text in the rendered summary', () => {
  const r = SCENARIOS['hostile API text']!.report;
  const body = renderToDom(renderSummary(r));
  const items = [...body.querySelectorAll('ul > li')];
  /** The text a reader should see: control characters as spaces, nothing interpreted. */
  const flat = HOSTILE.replace(/\p{Cc}+/gu, ' ');

  it('stays text in the list of failures, whole', () => {
    const [hostile] = items;
    expect(hostile!.querySelectorAll('*').length).toBe(2); // the id's code, the name's strong
    expect(hostile!.textContent!.endsWith(`error: ${flat}`)).toBe(true);
  });

  it('stays text in the operation name, cut to 60 characters', () => {
    const readable = `Create branch ${HOSTILE.replace(/[_-]+/g, ' ')}`.replace(/\p{Cc}+/gu, ' ');
    expect(items[0]!.querySelector('strong')!.textContent).toBe(`${readable.slice(0, 59)}…`);
    const cell = tablesOf(body)[0]!.rows[0]![1]!;
    expect(cell.children).toHaveLength(1);
    expect(cell.textContent).toBe(
      `${cell.querySelector('code')!.textContent}\u00a0${readable.slice(0, 59)}…`
    );
  });

  it('stays text in the failure quote and the recent-operations note', () => {
    // The failure of an operation status is said by the list; only the note remains to check.
    expect(body.querySelector('blockquote')).toBeNull();
    const note = [...body.querySelectorAll('p > em')].find((em) =>
      text(em).startsWith('Recent operations could not be loaded')
    );
    expect(note?.textContent).toBe(`Recent operations could not be loaded: ${flat}`);
    const quoted = renderToDom(renderSummary({ ...r, status: 'api_error' }));
    expect(text(quoted.querySelector('blockquote')!)).toBe(
      `Operation(s) did not succeed: ${flat}`.replace(/\s+/g, ' ')
    );
  });

  it('is cut when huge, the item still one item', () => {
    const huge = items[1]!;
    const error = huge.textContent!.slice(huge.textContent!.indexOf('error: ') + 7);
    expect(Array.from(error).length).toBe(300);
    expect(error.endsWith('…')).toBe(true);
  });

  it('leaves the Mermaid labels plain', async () => {
    const gantt = await readGantt(mermaidSources(body)[0]!);
    for (const bar of gantt.bars) expect(bar.label).toMatch(/^[0-9a-f]{8} [A-Za-z0-9 ._()-]+$/);
  });

  // GitHub links `@user` (and notifies them) and `#123` in text after rendering, and an entity
  // such as `&#64;` does not stop it; a zero-width space does.
  it('gives GitHub no @mention or #reference to link, in the summary or the comment', () => {
    const r2 = report({
      status: 'error',
      operations: [
        op(1, {
          status: 'error',
          error: 'ask @octocat or @octo-org/team, see #123, octo-org/octo-repo#5 and GH-77'
        })
      ],
      recent: recent([op(2, { error: 'ping @octocat #9' })])
    });
    expect(githubReferences(renderToDom(renderSummary(r2)))).toEqual([]);
    expect(githubReferences(renderToDom(renderComment(r2)))).toEqual([]);
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

describe('console links', () => {
  it('go to the project and its branches, and nowhere for ids outside the API’s pattern', () => {
    const r = report({
      branchId: BRANCH,
      operations: [op(2), op(1, { branch_id: 'br-main-00112233' }), op(1, { branch_id: 'BR"x' })],
      consoleLinks: true
    });
    const body = renderToDom(renderSummary(r));
    const hrefs = [...body.querySelectorAll('a')].map((a) => [a.getAttribute('href'), text(a)]);
    const base = `https://console.neon.tech/app/projects/${PROJECT}`;
    expect(hrefs).toEqual([
      [base, PROJECT],
      [`${base}/branches/${BRANCH}`, BRANCH],
      [`${base}/branches/${BRANCH}`, BRANCH],
      [`${base}/branches/br-main-00112233`, 'br-main-00112233']
    ]);
    expect(text(body)).toContain('BR"x');
  });
});

describe('reports cut to the comment limit', () => {
  const many = Array.from({ length: 400 }, (_, i) =>
    op(i / 10 + 0.05, {
      action: 'check_availability',
      error: 'e'.repeat(250),
      total_duration_ms: 900
    })
  );
  const r = report({
    operations: [op(3, { updated_at: new Date(NOW).toISOString() })],
    recent: recent(many)
  });

  it.each([
    ['summary', renderSummary(r, COMMENT_LIMIT)],
    ['comment', renderComment(r)]
  ])(
    'fit, as a %s, with whole tables and a timeline Mermaid reads, of at most 25 bars',
    async (_kind, markdown) => {
      expect(markdown.length).toBeLessThanOrEqual(COMMENT_LIMIT);
      const body = renderToDom(markdown);
      const tables = tablesOf(body);
      expect(tables.length).toBe(2);
      expectIdCells(body);
      const sources = mermaidSources(body);
      expect(sources).toHaveLength(1);
      const gantt = await readGantt(sources[0]!);
      expect(gantt.bars.length).toBeLessThanOrEqual(25);
      const byId = new Map(expectedBars(r).map((bar) => [bar.id.slice(0, 8), bar]));
      const expected = gantt.bars.map((bar) => byId.get(bar.label.slice(0, 8))!);
      expect(timelineProblems(gantt, expected, NOW)).toEqual([]);
    }
  );
});

describe('the timeline check fails a broken timeline', () => {
  const r =
    SCENARIOS['operations: running, finished, failed and error, with console links']!.report;
  const source = mermaidSources(renderToDom(renderSummary(r)))[0]!;
  const expected = expectedBars(r);
  const STAMP = /\b\d{13}\b/g;
  const problemsOf = async (broken: string): Promise<string[]> =>
    timelineProblems(await readGantt(broken), expected, NOW);

  it('passes the timeline as written', async () => {
    expect(await problemsOf(source)).toEqual([]);
  });

  it('fails ISO dates under dateFormat x, which mermaid.parse accepts', async () => {
    const broken = source.replace(STAMP, (ms) => new Date(Number(ms)).toISOString());
    await expect((await loadMermaid()).parse(broken)).resolves.toMatchObject({
      diagramType: 'gantt'
    });
    const problems = await problemsOf(broken);
    expect(problems).toContainEqual(expect.stringMatching(/is not in the dateFormat 'x'/));
    // Mermaid reads such an end as no date at all: the bar would have no width.
    expect(problems).toContainEqual(expect.stringMatching(/not after its start/));
  });

  it('fails a dateFormat that does not match the dates', async () => {
    const broken = source.replace('dateFormat x', 'dateFormat YYYY-MM-DD');
    await expect((await loadMermaid()).parse(broken)).resolves.toBeTruthy();
    await expect(readGantt(broken)).rejects.toThrow(/Invalid date/);
  });

  it('fails dates an hour off', async () => {
    const shifted = source.replace(STAMP, (ms) => String(Number(ms) + 3_600_000));
    expect(await problemsOf(shifted)).toContainEqual(expect.stringMatching(/starts .*, not /));
  });

  it('fails a date Mermaid cannot read at all', async () => {
    await expect(readGantt(source.replace(STAMP, 'soon'))).rejects.toThrow(/Invalid date/);
  });

  it('fails bars in another order or section', async () => {
    const swapped: Gantt = await readGantt(source);
    swapped.bars.reverse();
    expect(timelineProblems(swapped, expected, NOW)).toContainEqual(
      expect.stringMatching(/^bars /)
    );
  });
});

/**
 * Finding 4 of the rendered summary: Mermaid reads dates in the reader's time zone, so UTC wall
 * clocks (what this summary wrote before) drew bars an hour late, or with no width, in the hour a
 * reader's clock skips for daylight saving. Unix milliseconds are the same instant everywhere.
 */
describe('the timeline in every reader’s time zone', () => {
  afterAll(closeZoneRenderer);

  // Each zone with operations across its own daylight-saving change (or none: Kolkata, +05:30).
  const ZONES: Array<[string, string]> = [
    ['UTC', '2026-03-29T00:40:00Z'],
    ['Europe/Berlin', '2026-03-29T00:40:00Z'], // clocks skip 02:00 → 03:00 local (01:00Z)
    ['America/New_York', '2026-03-08T06:40:00Z'], // 02:00 → 03:00 local (07:00Z)
    ['Australia/Lord_Howe', '2026-10-03T15:10:00Z'], // 02:00 → 02:30 local (15:30Z)
    ['Asia/Kolkata', '2026-03-29T00:40:00Z']
  ];
  const reportAt = (start: string): Report => {
    const t = Date.parse(start);
    const at = (ms: number): string => new Date(ms).toISOString();
    const ops = [
      makeOperation({ created_at: at(t), updated_at: at(t + 50 * MINUTE) }),
      makeOperation({ created_at: at(t + 10 * MINUTE), updated_at: at(t + 40 * MINUTE) }),
      makeOperation({ created_at: at(t + 25 * MINUTE), updated_at: at(t + 25 * MINUTE) })
    ];
    return report({ operations: ops, startedAt: t, finishedAt: t + 60 * MINUTE });
  };

  it.each(ZONES)('is dated by Mermaid as the operations ran, in %s', async (zone, start) => {
    const r = reportAt(start);
    const source = mermaidSources(renderToDom(renderSummary(r)))[0]!;
    const [bars] = await ganttDatesInZone([source], zone);
    const seen = r.targets[0].operations.filter(isSeen);
    expect(bars!.map((b) => b.start)).toEqual(seen.map((o) => Date.parse(o.created_at)));
    const ends = seen.map((o) => Date.parse(o.updated_at));
    bars!.forEach((b, i) => {
      expect(b.end).toBeGreaterThan(b.start);
      if (ends[i]! > b.start) expect(b.end).toBe(ends[i]);
    });
  });

  it('catches the UTC wall clocks written before, which a reader in Berlin saw an hour late', async () => {
    // 02:10 UTC on the day Berlin's clocks skip from 02:00 to 03:00.
    const r = reportAt('2026-03-29T02:10:00Z');
    const starts = r.targets[0].operations.filter(isSeen).map((o) => Date.parse(o.created_at));
    const source = mermaidSources(renderToDom(renderSummary(r)))[0]!;
    const wallClock = (ms: string): string =>
      new Date(Number(ms)).toISOString().slice(0, 23).replace('T', ' ');
    const before = source
      .replace('dateFormat x', 'dateFormat YYYY-MM-DD HH:mm:ss.SSS')
      .replace(/\b\d{13}\b/g, wallClock);
    const [inUtc] = await ganttDatesInZone([before], 'UTC');
    const [inBerlin, now] = await ganttDatesInZone([before, source], 'Europe/Berlin');
    // A reader in UTC saw the wall clocks meant; in Berlin, 02:10 does not exist: drawn at 03:10.
    expect(inUtc!.map((b) => b.startWall)).toEqual(starts);
    expect(inBerlin!.map((b) => b.startWall - starts[0]!)).toEqual(
      starts.map((s) => s - starts[0]! + 3_600_000)
    );
    // As written now, the same instants in Berlin as anywhere.
    expect(now!.map((b) => b.start)).toEqual(starts);
  });
});
