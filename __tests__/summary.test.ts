import { describe, expect, it } from '@jest/globals';
import type { Operation } from '../src/neon/operation.js';
import {
  makeOperation,
  makeRecent,
  makeReport,
  makeTargets,
  nextId,
  type ReportFields
} from './helpers/builders.js';
import type { Report } from '../src/report/model.js';
import {
  COMMENT_LIMIT,
  FAILING_LISTED,
  renderComment,
  renderSummary,
  STEP_SUMMARY_LIMIT
} from '../src/report/summary.js';
import { databaseOutcome } from '../src/checks/select-one.js';
import { renderJunit } from '../src/cli/junit.js';
import { resultFields } from '../src/outputs.js';
import { idCode } from '../src/report/table.js';
import { ACTION_NAME, ACTION_VERSION } from '../src/version.js';

const NOW = Date.parse('2026-01-02T03:10:00Z');
const PROJECT = 'spring-example-302709';
const BRANCH = 'br-wispy-meadow-118737';
const ENDPOINT = 'ep-silent-smoke-806639';
const HOSTILE =
  '<img src=x onerror=alert(1)> | cell | `code` [link](http://x) **b** _i_ ~s~ #h @u $x\\\n| --- |\r\nnext';

function op(fields: Partial<Operation> = {}): Operation {
  return makeOperation({
    project_id: PROJECT,
    branch_id: BRANCH,
    endpoint_id: ENDPOINT,
    total_duration_ms: 2000,
    ...fields
  });
}

const recent = makeRecent;

function report(fields: ReportFields = {}): Report {
  return makeReport({ operations: [op()], finishedAt: NOW, ...fields });
}

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');
const lines = (text: string): string[] => text.split('\n');
const pipes = (row: string): number => row.split('|').length - 1;

/** Every table of the text, each as its lines from the header to the last row. */
function tables(text: string): string[][] {
  const all = lines(text);
  const found: string[][] = [];
  for (let i = 0; i < all.length; i++) {
    if (!all[i]!.startsWith('| ') || !all[i + 1]?.startsWith('| --- |')) continue;
    const rows: string[] = [];
    while (i < all.length && all[i] !== '') rows.push(all[i++] as string);
    found.push(rows);
  }
  return found;
}

/** The section under the heading starting with `heading`, up to the next heading or fold. */
function section(text: string, heading: string): string {
  const at = text.indexOf(`\n${heading}`);
  if (at < 0) return '';
  const rest = text.slice(at + 1);
  const end = rest.slice(1).search(/\n(#### |<details|<\/details>|<sub>)/);
  return end < 0 ? rest : rest.slice(0, end + 1);
}

/** The data rows of the first table under the heading. */
function rowsUnder(text: string, heading: string): string[] {
  const [table] = tables(section(text, heading));
  return table ? table.slice(2) : [];
}

describe('the verdict line', () => {
  it.each([
    ['finished', '✅', 'finished', 'in'],
    ['skipped', '⏭️', 'skipped', 'in'],
    ['running', '⏳', 'running', 'after'],
    ['error', '❌', 'error', 'after'],
    ['cancelled', '🚫', 'cancelled', 'after'],
    ['failed', '⚠️', 'failed', 'after'],
    ['timeout', '⌛', 'timed out', 'after'],
    ['aborted', '🛑', 'interrupted', 'after'],
    ['api_error', '❌', 'API error', 'after'],
    ['database_error', '❌', 'database error', 'after']
  ])('writes status %s as %s %s, what was awaited and how long', (status, marker, label, word) => {
    const [first] = lines(renderSummary(report({ status })));
    expect(first).toBe(`### ${marker} Neon operations: ${label} · Create branch ${word} 1m15s`);
  });

  it('names up to three different operations', () => {
    const text = renderSummary(
      report({
        operations: [
          op({ action: 'create_branch' }),
          op({ action: 'start_compute' }),
          op({ action: 'apply_config' })
        ]
      })
    );
    expect(lines(text)[0]).toBe(
      '### ✅ Neon operations: finished · Create branch, Start compute and Apply config in 1m15s'
    );
  });

  it.each([
    ['four different ones', ['a', 'b', 'c', 'd'], '4 operations'],
    ['two of the same', ['start_compute', 'start_compute'], '2 operations']
  ])('counts %s instead', (_name, actions, what) => {
    const operations = actions.map((action) => op({ action }));
    expect(lines(renderSummary(report({ operations })))[0]).toBe(
      `### ✅ Neon operations: finished · ${what} in 1m15s`
    );
  });

  it('counts operations seen only by their ids', () => {
    const operations = [{ id: nextId() }];
    expect(lines(renderSummary(report({ status: 'api_error', operations })))[0]).toBe(
      '### ❌ Neon operations: API error · 1 operation after 1m15s'
    );
  });

  it('says when it only reported', () => {
    expect(lines(renderSummary(report({ waited: false })))[0]).toBe(
      '### ✅ Neon operations: finished · Create branch (report only)'
    );
  });

  it('escapes the names of the operations', () => {
    const text = renderSummary(report({ operations: [op({ action: 'x_<b>' })] }));
    expect(lines(text)[0]).toBe('### ✅ Neon operations: finished · X &lt;b&gt; in 1m15s');
  });

  it.each([
    ['idle', '✅ Neon project activity: idle after 1m15s'],
    ['busy', '⏳ Neon project activity: busy (work in progress) after 1m15s'],
    ['timeout', '⌛ Neon project activity: timed out after 1m15s']
  ])('writes %s in project mode as project activity', (status, heading) => {
    const text = renderSummary(report({ kind: 'project', status, operations: [] }));
    expect(lines(text)[0]).toBe(`### ${heading}`);
  });

  it('says no operation was in progress in project mode', () => {
    const text = renderSummary(report({ kind: 'project', status: 'idle', operations: [] }));
    expect(text).toContain('\nNo operation was in progress.\n');
  });

  it('writes the input error alone', () => {
    const text = renderSummary(
      report({
        status: 'input_error',
        failure: "Input 'timeout' is bad",
        operations: [],
        requests: 0
      })
    );
    expect(lines(text).slice(0, 5)).toEqual([
      '### ❌ Neon operations: input error',
      '',
      'No request was sent: an input needs fixing.',
      '',
      '> Input &#39;timeout&#39; is bad'
    ]);
  });

  it('counts the requests of an input error found with the API (no project to choose)', () => {
    const text = renderSummary(
      report({ status: 'input_error', failure: 'several projects', operations: [], requests: 1 })
    );
    expect(text).not.toContain('No request was sent');
    expect(text).toContain('1 API request');
  });

  it('writes an unknown status with a question mark, escaped, and an empty one as unknown', () => {
    expect(lines(renderSummary(report({ status: 'future_state' })))[0]).toMatch(
      /^### ❔ Neon operations: future&#95;state · /
    );
    expect(lines(renderSummary(report({ status: '' })))[0]).toMatch(
      /^### ❔ Neon operations: unknown · /
    );
  });

  // The status of the wait is the worst status the API gave, so it is data from the API.
  it.each(['constructor', 'toString', '__proto__'])(
    'writes the status %j with a question mark, not an Object.prototype member',
    (status) => {
      const [first] = lines(renderSummary(report({ status })));
      expect(first).toMatch(/^### ❔ Neon operations: /);
      expect(first).not.toMatch(/function|native code|\[object/);
    }
  );
});

describe('the facts line', () => {
  it('names the project and branch, the timeout and the requests', () => {
    expect(lines(renderSummary(report({ branchId: BRANCH })))[2]).toBe(
      `Project <code>${PROJECT}</code> · branch <code>${BRANCH}</code> · timeout 10m · 7 API requests`
    );
  });

  it('writes one request in the singular, and leaves out what is unknown', () => {
    expect(lines(renderSummary(report({ projectId: undefined, requests: 1 })))[2]).toBe(
      'timeout 10m · 1 API request'
    );
  });

  it('says when it only reported', () => {
    expect(lines(renderSummary(report({ waited: false })))[2]).toBe(
      `Project <code>${PROJECT}</code> · report only (wait: false) · 7 API requests`
    );
  });

  it('links the project and branch to the Neon console when asked', () => {
    const console = `https://console.neon.tech/app/projects/${PROJECT}`;
    expect(lines(renderSummary(report({ branchId: BRANCH, consoleLinks: true })))[2]).toBe(
      `Project <a href="${console}"><code>${PROJECT}</code></a> · ` +
        `branch <a href="${console}/branches/${BRANCH}"><code>${BRANCH}</code></a> · timeout 10m · 7 API requests`
    );
  });

  it('links nothing without being asked', () => {
    const text = renderSummary(report({ branchId: BRANCH, recent: recent([op(), op()]) }));
    expect(text).not.toContain('<a ');
    expect(text).not.toContain('console.neon.tech');
  });

  it('ends with the time and the action version', () => {
    expect(
      renderSummary(report()).endsWith(
        `<sub>2026-01-02 03:10:00 UTC · ${ACTION_NAME} ${ACTION_VERSION}</sub>\n`
      )
    ).toBe(true);
  });

  it('says how long the database took to answer', () => {
    const text = renderSummary(
      report({
        checks: [
          databaseOutcome({
            ready: true,
            target: '127.0.0.1:5432/app',
            attempts: 2,
            answeredAfterMs: 1500
          })
        ]
      })
    );
    expect(text).toContain(
      '\n🐘 Database <code>127.0.0.1&#58;5432/app</code> answered `SELECT 1` 1.5s after the operations were done (2 attempts).\n'
    );
  });
});

describe('what failed, on top', () => {
  const broken = op({
    action: 'start_compute',
    status: 'error',
    failures_count: 3,
    error: 'compute did not start'
  });
  const retrying = op({
    action: 'apply_config',
    status: 'failed',
    failures_count: 1,
    error: 'slow'
  });

  it('lists the failing operations with their errors before the tables', () => {
    const text = renderSummary(
      report({
        status: 'error',
        operations: [op(), retrying, broken],
        failure: `Operation(s) did not succeed: start_compute ${broken.id} is error`
      })
    );
    const top = text.slice(0, text.indexOf('\n#### '));
    expect(lines(top).filter((line) => line.startsWith('- '))).toEqual([
      `- ⚠️ ${idCode(retrying)} **Apply config** failed (1 failure): slow`,
      `- ❌ ${idCode(broken)} **Start compute** error (3 failures): compute did not start`
    ]);
    // The failure text only repeats the list: not quoted.
    expect(text).not.toContain('\n> ');
    // The awaited table does not repeat the errors.
    expect(section(text, '#### Awaited operations')).not.toContain('compute did not start');
  });

  it('quotes a failure the list does not explain', () => {
    const text = renderSummary(
      report({
        status: 'timeout',
        timedOut: true,
        operations: [retrying],
        failure: `Timed out after 10m waiting for apply_config ${retrying.id} (last status failed).`
      })
    );
    const top = lines(text.slice(0, text.indexOf('\n#### ')));
    expect(top[4]).toBe(
      `> Timed out after 10m waiting for apply&#95;config ${retrying.id} (last status failed).`
    );
    expect(top[6]).toBe(`- ⚠️ ${idCode(retrying)} **Apply config** failed (1 failure): slow`);
  });

  it('quotes the failure on one escaped line', () => {
    const failure =
      'Operation d8ac46eb (create_branch) failed: compute *failed* | see [logs](http://x)\nsecond line <b>';
    const quote = lines(renderSummary(report({ status: 'api_error', failure }))).filter((line) =>
      line.startsWith('> ')
    );
    expect(quote).toEqual([
      '> Operation d8ac46eb (create&#95;branch) failed&#58; compute &#42;failed&#42; &#124; see &#91;logs&#93;(http&#58;//x) second line &lt;b&gt;'
    ]);
  });

  it('cuts a very long failure', () => {
    const text = renderSummary(report({ status: 'api_error', failure: 'x'.repeat(10_000) }));
    const quote = lines(text).find((line) => line.startsWith('> ')) as string;
    expect(quote.length).toBeLessThanOrEqual(2 + 1200);
    expect(quote.endsWith('…')).toBe(true);
  });

  it(`lists at most ${FAILING_LISTED}, and the errors of the others in the table's list`, () => {
    const failing = Array.from({ length: FAILING_LISTED + 2 }, (_, i) =>
      op({ status: 'error', error: `boom ${i}` })
    );
    const text = renderSummary(report({ status: 'error', operations: failing }));
    const top = text.slice(0, text.indexOf('\n#### '));
    expect(lines(top).filter((line) => line.startsWith('- ❌'))).toHaveLength(FAILING_LISTED);
    expect(top).toContain('\n- and 2 more in the table below\n');
    const awaited = section(text, '#### Awaited operations');
    expect(awaited).toContain(`boom ${FAILING_LISTED}\n`);
    expect(awaited).not.toContain('boom 0\n');
  });

  it('has neither list nor quote when all went well', () => {
    const text = renderSummary(report({ operations: [op(), op({ failures_count: 2 })] }));
    expect(lines(text).some((line) => line.startsWith('>') || line.startsWith('- '))).toBe(false);
  });
});

describe('the awaited operations', () => {
  it('are one table, one line a row, with what they share said once above it', () => {
    const a = op({ action: 'create_branch', endpoint_id: undefined });
    const b = op({
      action: 'start_compute',
      status: 'running',
      created_at: '2026-01-02T03:05:00Z'
    });
    const text = renderSummary(report({ status: 'running', operations: [a, b] }));
    expect(section(text, '#### Awaited operations')).toBe(
      [
        '#### Awaited operations (1 finished · 1 running)',
        '',
        `On branch <code>${BRANCH}</code> · compute <code>${ENDPOINT}</code> · started on 2026-01-02, times UTC`,
        '',
        '| Status | Operation | Duration | Started |',
        '| --- | --- | --- | --- |',
        `| ✅&nbsp;finished | ${idCode(a)}&nbsp;Create branch | 2s | 03:04:05 |`,
        `| ⏳&nbsp;running | ${idCode(b)}&nbsp;Start compute | 5m | 03:05:00 |`,
        ''
      ].join('\n')
    );
  });

  it("reads how long an operation has run on the service's clock, whatever the runner's says", () => {
    const running = op({ status: 'running', created_at: '2026-01-02T03:05:00Z' });
    // The runner is 5 minutes behind the service (a self-hosted runner without time sync), or
    // 5 minutes ahead: the service's answers said so, and the report ends at NOW by its clock.
    for (const aheadMs of [300_000, -300_000]) {
      const text = renderSummary(
        report({
          status: 'running',
          operations: [running],
          finishedAt: NOW - aheadMs,
          serviceAheadMs: aheadMs
        })
      );
      expect(rowsUnder(text, '#### Awaited operations')[0]).toMatch(/\| 5m \|$/);
    }
  });

  it('lists each operation once', () => {
    const a = op();
    const text = renderSummary(report({ operations: [a, { ...a }, op()] }));
    expect(rowsUnder(text, '#### Awaited operations')).toHaveLength(2);
  });

  it('lists operations seen only by their ids as not seen', () => {
    const ids = [nextId(), nextId()];
    const text = renderSummary(
      report({ status: 'api_error', operations: ids.map((id) => ({ id })) })
    );
    expect(text).toContain('#### Awaited operations (2 not seen)');
    expect(rowsUnder(text, '#### Awaited operations')).toEqual(
      ids.map((id) => `| ❔&nbsp;not seen | <code title="${id}">${id.slice(0, 8)}</code> |`)
    );
  });

  it('are the operations seen in progress in project mode', () => {
    const text = renderSummary(
      report({ kind: 'project', status: 'busy', operations: [op({ status: 'running' })] })
    );
    expect(text).toContain('\n#### Operations seen in progress (1 running)\n');
  });
});

describe('the recent operations', () => {
  it('are a table of the operations that were not awaited, each once', () => {
    const awaited = op({ action: 'start_compute' });
    const others = [
      op({ action: 'check_availability' }),
      op({ status: 'error', error: 'boom', branch_id: 'br-other' }),
      op({ status: 'running' })
    ];
    const text = renderSummary(
      report({ operations: [awaited], recent: recent([awaited, ...others, { ...others[0]! }]) })
    );
    const part = section(text, '#### Recent operations');
    expect(lines(part)[0]).toBe('#### Recent operations (1 finished · 1 error · 1 running)');
    expect(lines(part)[2]).toBe(
      `Compute <code>${ENDPOINT}</code> · started 2026-01-02 03:04:05 UTC · the 1 awaited above is not repeated`
    );
    const rows = rowsUnder(text, '#### Recent operations');
    expect(rows).toHaveLength(3);
    others.forEach((o, i) => expect(rows[i]).toContain(idCode(o)));
    expect(part).toContain(`\n- ❌ ${idCode(others[1]!)} **Create branch** error: boom\n`);
    // Awaited once, in its own table.
    expect(text.split(`title="${awaited.id}"`)).toHaveLength(2);
  });

  it('say when all of them were awaited', () => {
    const a = op();
    const text = renderSummary(report({ operations: [a], recent: recent([a]) }));
    expect(section(text, '#### Recent operations')).toBe(
      '#### Recent operations\n\nNone besides the awaited operations above.\n'
    );
  });

  it('say there are none on the branch, or in the project', () => {
    expect(
      renderSummary(report({ branchId: BRANCH, recent: recent([], { scanned: 200 }) }))
    ).toContain('\n#### Recent operations\n\nNone on this branch.\n');
    expect(renderSummary(report({ recent: recent([]) }))).toContain(
      '\n#### Recent operations\n\nNone.\n'
    );
  });

  it('have no section when they were not asked for', () => {
    expect(renderSummary(report())).not.toContain('Recent operations');
  });

  it('say when the branch scan stopped at its bound, even with nothing found', () => {
    for (const found of [[op()], []]) {
      const text = renderSummary(
        report({
          branchId: BRANCH,
          operations: [],
          recent: recent(found, { scanned: 1000, requests: 5, scanStopped: true })
        })
      );
      expect(text).toContain(
        '\n_Only the newest 1000 operations of the project were scanned for this branch; older ones may exist._\n'
      );
    }
    expect(renderSummary(report({ branchId: BRANCH, recent: recent([op()]) }))).not.toContain(
      'were scanned'
    );
  });

  it('say, escaped, why they could not be loaded', () => {
    const text = renderSummary(report({ recentError: 'HTTP 500: internal_error_ *x* `y`\nmore' }));
    expect(text).toContain(
      '\n_Recent operations could not be loaded: HTTP 500&#58; internal&#95;error&#95; &#42;x&#42; &#96;y&#96; more_\n'
    );
  });
});

describe('the timeline', () => {
  it('follows the awaited operations in an open fold, in the reader’s time zone', () => {
    const text = renderSummary(report({ recent: recent([op()]) }));
    const awaitedAt = text.indexOf('#### Awaited operations');
    const timelineAt = text.indexOf(
      '\n<details open><summary>Timeline (times in your time zone)</summary>\n\n```mermaid\n'
    );
    expect(timelineAt).toBeGreaterThan(awaitedAt);
    expect(timelineAt).toBeLessThan(text.indexOf('#### Recent operations'));
    expect(text).toContain('\n```\n\n</details>\n');
  });

  it('is left out without awaited operations', () => {
    const text = renderSummary(
      report({ kind: 'project', status: 'idle', operations: [], recent: recent([op()]) })
    );
    expect(text).not.toContain('mermaid');
  });
});

describe('renderComment', () => {
  const failing = op({ status: 'error', error: 'compute did not start' });
  const r = report({
    status: 'error',
    operations: [op(), failing],
    failure: 'Operation(s) did not succeed',
    recent: recent([op(), op()]),
    recentError: 'HTTP 503'
  });

  it('has the same top as the summary, and the rest folded', () => {
    const comment = renderComment(r);
    const summary = renderSummary(r);
    const top = summary.slice(0, summary.indexOf('#### Awaited operations'));
    expect(comment.startsWith(top)).toBe(true);
    expect(comment.slice(top.length)).toMatch(
      /^<details><summary>Operations: 2 awaited · timeline · 2 recent<\/summary>\n\n#### Awaited operations/
    );
    expect(comment).toContain(
      '\n_Recent operations could not be loaded: HTTP 503_\n\n</details>\n\n<sub>2026-01-02 03:10:00 UTC'
    );
    expect(comment).toContain('\n#### Timeline (times in your time zone)\n\n```mermaid\n');
    expect(comment).not.toContain('<details open>');
  });

  it('folds only what there is', () => {
    const quiet = renderComment(report({ operations: [], status: 'idle', kind: 'project' }));
    expect(quiet).not.toContain('<details>');
    const notes = renderComment(
      report({ operations: [], status: 'idle', kind: 'project', recentError: 'x' })
    );
    expect(notes).toContain('<details><summary>Notes</summary>');
    const none = renderComment(
      report({ operations: [], status: 'idle', kind: 'project', recent: recent([]) })
    );
    expect(none).toContain(
      '<details><summary>Recent operations</summary>\n\n#### Recent operations\n\nNone.\n'
    );
  });

  it("fits in GitHub's 65,536 characters with room for the marker line", () => {
    // The marker: `<!-- neon-operations-wait-action tag="…" digest="…" -->`, a tag of ≤ 100 characters.
    const markerRoom = 200;
    const many = Array.from({ length: 1000 }, () => op({ error: 'x'.repeat(200) }));
    const comment = renderComment(report({ recent: recent(many) }));
    expect(bytes(comment) + markerRoom).toBeLessThanOrEqual(65_536);
    expect(comment).toMatch(
      /\n_\d+ older rows were left out to keep this comment within GitHub's size limit\._\n/
    );
    expect(comment).toContain('\n</details>\n');
  });
});

describe('size limits', () => {
  const many = (n: number, fields: Partial<Operation> = {}): Operation[] =>
    Array.from({ length: n }, (_, i) =>
      op({
        action: i % 3 ? 'check_availability' : 'start_compute',
        status: i % 7 ? 'finished' : 'error',
        error: i % 7 ? undefined : 'compute did not respond in time',
        ...fields
      })
    );

  it('keeps all 1000 recent rows within the step summary limit', () => {
    const text = renderSummary(report({ recent: recent(many(1000)) }), STEP_SUMMARY_LIMIT);
    expect(bytes(text)).toBeLessThanOrEqual(STEP_SUMMARY_LIMIT);
    expect(rowsUnder(text, '#### Recent operations')).toHaveLength(1000);
    expect(text).not.toContain('older rows were left out');
  });

  it('keeps the newest recent rows and says how many were left out', () => {
    const ops = many(1000);
    const text = renderSummary(report({ recent: recent(ops) }), COMMENT_LIMIT);
    expect(bytes(text)).toBeLessThanOrEqual(COMMENT_LIMIT);
    const rows = rowsUnder(text, '#### Recent operations');
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(1000);
    const left =
      /\n_(\d+) older rows were left out to keep this summary within GitHub's size limit\._\n/.exec(
        text
      );
    expect(Number(left?.[1]) + rows.length).toBe(1000);
    expect(rows[0]).toContain(idCode(ops[0]!));
    // The heading still counts all of them.
    expect(text).toContain('#### Recent operations (857 finished · 143 error)');
  });

  it('shortens long error texts first and says so', () => {
    const ops = Array.from({ length: 40 }, () => op({ status: 'error', error: 'x'.repeat(2000) }));
    const input = report({ status: 'error', operations: ops, recent: recent(many(10)) });
    const full = renderSummary(input);
    expect(full).toContain('x'.repeat(300 - 1) + '…');
    expect(full).not.toContain('Error texts were');
    const limit = bytes(full) - 1;
    const text = renderSummary(input, limit);
    expect(bytes(text)).toBeLessThanOrEqual(limit);
    expect(text).toContain(
      "\n_Error texts were shortened to 80 characters to keep this summary within GitHub's size limit._\n"
    );
    expect(text).toContain(`: ${'x'.repeat(79)}…\n`);
    expect(text).not.toContain('x'.repeat(80));
    // Nothing else had to go.
    expect(text).not.toContain('older rows were left out');
    expect(rowsUnder(text, '#### Recent operations')).toHaveLength(10);
    expect(text).toContain('```mermaid');
  });

  it('drops the timeline before the error texts, and leaves those out last', () => {
    const ops = Array.from({ length: 30 }, () => op({ status: 'error', error: 'y'.repeat(80) }));
    const input = report({ status: 'error', operations: ops });
    const full = renderSummary(input);
    expect(full).toContain('```mermaid');
    const noTimeline = renderSummary(input, bytes(full) - 1);
    expect(bytes(noTimeline)).toBeLessThan(bytes(full));
    expect(noTimeline).not.toContain('```mermaid');
    expect(noTimeline).toContain('y'.repeat(80));
    const limit = bytes(noTimeline) - 1;
    const noErrors = renderSummary(input, limit);
    expect(bytes(noErrors)).toBeLessThanOrEqual(limit);
    expect(noErrors).not.toContain('yyyy');
    expect(noErrors).toContain(
      "\n_Error texts were left out to keep this summary within GitHub's size limit._\n"
    );
    expect(rowsUnder(noErrors, '#### Awaited operations')).toHaveLength(30);
  });

  it.each([3000, 1500, 700, 300])(
    'cuts as a last resort and still fits in %d bytes',
    (maxChars) => {
      const ops = Array.from({ length: 30 }, () =>
        op({ status: 'error', error: '🙂|'.repeat(400), branch_id: 'br-' + 'ü'.repeat(50) })
      );
      const input = report({
        status: 'error',
        branchId: BRANCH,
        failure: '🙂 <failed> | '.repeat(5000),
        operations: ops,
        recent: recent(many(50)),
        recentError: 'ignored'
      });
      for (const text of [renderSummary(input, maxChars), renderComment(input, maxChars)]) {
        expect(bytes(text)).toBeLessThanOrEqual(maxChars);
        expect(
          text.endsWith("\n\n_The rest of this report was cut to fit GitHub's size limit._\n")
        ).toBe(true);
        expect(text).not.toContain('\uFFFD');
      }
    }
  );

  it('cuts at a line boundary and closes a fold it cut into', () => {
    const ops = Array.from({ length: 60 }, () =>
      op({ status: 'running', branch_id: nextId().slice(0, 8) })
    );
    const input = report({ status: 'running', operations: ops });
    const text = renderSummary(input, 3000);
    const body = text.slice(0, text.indexOf('\n\n_The rest of this report was cut'));
    expect(body.trimEnd().endsWith(' |')).toBe(true);
    const rows = lines(body).filter((line) => line.startsWith('| '));
    expect(rows.length).toBeGreaterThan(4);
    for (const row of rows) expect(pipes(row)).toBe(pipes(rows[0]!));
    const comment = renderComment(input, 3000);
    expect(comment).toMatch(/ \|\n\n<\/details>\n\n\n_The rest of this report was cut/);
  });
});

describe('hostile strings', () => {
  const hostileOp = (): Operation =>
    op({
      action: HOSTILE,
      status: HOSTILE,
      error: HOSTILE,
      branch_id: HOSTILE,
      endpoint_id: HOSTILE,
      failures_count: HOSTILE as unknown as number,
      created_at: HOSTILE,
      updated_at: HOSTILE,
      total_duration_ms: undefined
    });

  function hostileReport(): Report {
    return report({
      status: HOSTILE,
      projectId: HOSTILE,
      branchId: HOSTILE,
      failure: HOSTILE,
      operations: [
        hostileOp(),
        { ...hostileOp(), id: HOSTILE },
        op({ status: 'error', error: HOSTILE })
      ],
      recent: recent([hostileOp(), op(), hostileOp()], { scanStopped: true }),
      recentError: HOSTILE,
      consoleLinks: true
    });
  }

  it.each([
    ['the full summary', (r: Report) => renderSummary(r)],
    ['a comment', (r: Report) => renderComment(r)],
    ['a shortened summary', (r: Report) => renderSummary(r, 4000)],
    ['a shortened comment', (r: Report) => renderComment(r, 4000)]
  ])('never write raw HTML, nor links other than to the console, in %s', (_name, render) => {
    const text = render(hostileReport());
    expect(text).not.toMatch(/<img/i);
    const links = [...text.matchAll(/<a [^>]*>/g)].map((m) => m[0]);
    expect(links.length).toBeGreaterThan(0);
    for (const link of links)
      expect(link).toMatch(
        /^<a href="https:\/\/console\.neon\.tech\/app\/projects\/[a-z0-9-/]+">$/
      );
    const withoutLinks = render({ ...hostileReport(), consoleLinks: false });
    expect(withoutLinks).not.toMatch(/<b>|<\/?a[ >]|onerror=alert\(1\)>/i);
  });

  it('keep every table row to the columns of its header, on one line', () => {
    const text = renderSummary(hostileReport());
    const found = tables(text);
    expect(found).toHaveLength(2);
    const [awaited, recentRows] = found as [string[], string[]];
    expect(awaited).toHaveLength(2 + 3);
    expect(recentRows).toHaveLength(2 + 3);
    for (const table of found)
      for (const row of table) {
        expect(pipes(row)).toBe(pipes(table[0]!));
        expect(row.startsWith('| ')).toBe(true);
        expect(row.endsWith(' |')).toBe(true);
      }
  });

  it('keep every line that is not a table row free of pipes, and outside the chart free of backticks', () => {
    const text = renderSummary(hostileReport());
    for (const line of lines(text)) {
      if (line === '```mermaid' || line === '```') continue;
      if (!line.includes('SELECT 1')) expect(line).not.toContain('`');
      if (!line.startsWith('| ')) expect(line).not.toContain('|');
    }
  });

  it('keep the id attributes closed', () => {
    const text = renderSummary(hostileReport());
    for (const match of text.matchAll(/<code title="([^"]*)">/g))
      expect(match[1]).not.toMatch(/[<>]/);
    expect(text).not.toMatch(/<code title="[^"]*"[^>]/);
  });

  it('keep the heading, facts and notes on their own lines', () => {
    const all = lines(renderSummary(hostileReport()));
    expect(all[0]).toMatch(/^### ❔ Neon operations: &lt;img/);
    expect(all[1]).toBe('');
    expect(all[2]).toMatch(/^Project <code>.*<\/code> · branch <code>.*<\/code> · timeout /);
    expect(all[3]).toBe('');
    expect(all[4]).toMatch(/^> &lt;img/);
    expect(all[5]).toBe('');
    // The newlines inside the hostile text were flattened: its last word stays on its first line.
    for (const line of all.filter((l) => l.includes('next')))
      expect(line).toMatch(/&lt;img.*&#124; --- &#124; next|img src x onerror.*next/);
  });
});

describe('several targets', () => {
  const failed = op({ status: 'error', error: 'quota exceeded', branch_id: 'br-b' });
  const report = makeTargets(
    { branchId: 'br-a', operations: [op()], finishedAt: NOW },
    { branchId: 'br-b', operations: [failed], status: 'error', failure: 'br-b failed' }
  );

  it('the verdict is the worst target’s, and the summary has a section each', () => {
    const text = renderSummary(report);
    expect(lines(text)[0]).toMatch(/^### ❌ Neon operations: error · /);
    const a = text.indexOf('\n### Branch <code>br-a</code>\n');
    const b = text.indexOf('\n### Branch <code>br-b</code>\n');
    expect(a).toBeGreaterThan(0);
    expect(b).toBeGreaterThan(a);
    expect(text.slice(0, a)).toContain('quota exceeded'); // listed on top, as with one target
    expect(text.slice(b)).toContain(failed.id.slice(0, 8));
    expect(renderComment(report)).toContain('### Branch <code>br-b</code>');
  });

  it('JUnit has a suite each; the outputs say the aggregate', () => {
    const junit = renderJunit(report);
    expect(junit.match(/<testsuite /g)).toHaveLength(2);
    expect(junit).toContain('<testsuites name="neon-operations-wait" tests="2" failures="1"');
    expect(resultFields(report)).toMatchObject({ status: 'error', failures_count: 0 });
    expect(resultFields(report).operations).toHaveLength(2);
  });

  it('one target has no section heading', () => {
    expect(renderSummary(makeReport({ branchId: 'br-a' }))).not.toContain('### Branch');
  });
});
