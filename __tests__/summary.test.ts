import { describe, expect, it } from '@jest/globals';
import type { Operation } from '../src/neon/operation.js';
import { makeOperation, nextId } from './helpers/operations.js';
import type { RecentOperations } from '../src/report/recent.js';
import type { Report } from '../src/report/model.js';
import {
  COMMENT_LIMIT,
  operationsTable,
  renderSummary,
  STEP_SUMMARY_LIMIT,
  statusMarker
} from '../src/report/summary.js';
import { ACTION_NAME, ACTION_VERSION } from '../src/version.js';

const NOW = Date.parse('2026-01-02T03:10:00Z');
const PROJECT = 'spring-example-302709';
const BRANCH = 'br-wispy-meadow-118737';
const HEADER =
  '| Status | Operation | ID | Branch | Endpoint | Failures | Duration | Created | Error |';
const SEPARATOR = '| --- | --- | --- | --- | --- | --- | --- | --- | --- |';
const HOSTILE =
  '<img src=x onerror=alert(1)> | cell | `code` [link](http://x) **b** _i_ ~s~ #h @u $x\\\n| --- |\r\nnext';

function op(fields: Partial<Operation> = {}): Operation {
  return makeOperation({
    project_id: PROJECT,
    branch_id: BRANCH,
    endpoint_id: 'ep-silent-smoke-806639',
    total_duration_ms: 2000,
    ...fields
  });
}

function recent(operations: Operation[], fields: Partial<RecentOperations> = {}): RecentOperations {
  return {
    operations,
    scanned: operations.length,
    requests: 1,
    scanStopped: false,
    ...fields
  };
}

function report(fields: Partial<Report> = {}): Report {
  return {
    mode: 'operations',
    waited: true,
    projectId: PROJECT,
    status: 'finished',
    timedOut: false,
    operations: [op()],
    startedAt: NOW - 75_000,
    finishedAt: NOW,
    timeoutMs: 600_000,
    requests: 7,
    ...fields
  };
}

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');
const lines = (text: string): string[] => text.split('\n');

/** Every table of the summary, each as its lines from the header to the last row. */
function tables(text: string): string[][] {
  const all = lines(text);
  const found: string[][] = [];
  for (let i = 0; i < all.length; i++) {
    if (all[i] !== HEADER) continue;
    const rows: string[] = [];
    while (i < all.length && all[i] !== '') rows.push(all[i++] as string);
    found.push(rows);
  }
  return found;
}

/** The data rows of the table that follows the heading starting with `heading`. */
function tableAfter(text: string, heading: string): string[] {
  const all = lines(text);
  const at = all.findIndex((line) => line.startsWith(heading));
  if (at < 0) return [];
  const start = all.indexOf(HEADER, at);
  if (start < 0 || start > at + 2) return [];
  const rows: string[] = [];
  for (let i = start + 2; i < all.length && all[i] !== ''; i++) rows.push(all[i] as string);
  return rows;
}

const pipes = (row: string): number => row.split('|').length - 1;

describe('renderSummary heading', () => {
  it.each([
    ['finished', '✅', 'finished'],
    ['skipped', '⏭️', 'skipped'],
    ['running', '⏳', 'running'],
    ['error', '❌', 'error'],
    ['cancelled', '🚫', 'cancelled'],
    ['failed', '⚠️', 'failed'],
    ['timeout', '⌛', 'timed out'],
    ['aborted', '🛑', 'cancelled with the job'],
    ['api_error', '❌', 'API error'],
    ['input_error', '❌', 'input error']
  ])('writes status %s as %s %s', (status, marker, label) => {
    const [first] = lines(renderSummary(report({ status })));
    expect(first).toBe(`### ${marker} Neon operations: ${label}`);
  });

  it('writes idle in project mode as project activity', () => {
    const text = renderSummary(report({ mode: 'project', status: 'idle', operations: [] }));
    expect(lines(text)[0]).toBe('### ✅ Neon project activity: idle');
    expect(text).toContain('\nNo operation was in progress.\n');
  });

  it('writes busy in project mode', () => {
    const text = renderSummary(
      report({ mode: 'project', status: 'busy', operations: [op({ status: 'running' })] })
    );
    expect(lines(text)[0]).toBe('### ⏳ Neon project activity: busy (work in progress)');
    expect(text).toContain('\n#### Operations seen in progress (1 running)\n');
  });

  it('writes an unknown status with a question mark, escaped', () => {
    const [first] = lines(renderSummary(report({ status: 'future_state' })));
    expect(first).toBe('### ❔ Neon operations: future&#95;state');
  });

  it('writes an empty status as unknown', () => {
    expect(lines(renderSummary(report({ status: '' })))[0]).toBe('### ❔ Neon operations: unknown');
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

describe('statusMarker', () => {
  it.each([
    ['finished', '✅'],
    ['timeout', '⌛'],
    ['not seen', '❔'],
    ['something new', '❔']
  ])('marks %s with %s', (status, marker) => {
    expect(statusMarker(status)).toBe(marker);
  });

  it.each(['constructor', 'toString', '__proto__'])(
    'marks the unknown status %j with a question mark',
    (status) => {
      expect(statusMarker(status)).toBe('❔');
    }
  );
});

describe('renderSummary facts', () => {
  it('names the project and branch, the time waited and the requests', () => {
    const text = renderSummary(report({ branchId: BRANCH }));
    expect(lines(text)[2]).toBe(
      `Project <code>${PROJECT}</code> · branch <code>${BRANCH}</code> · waited 1m15s of 10m · 7 API requests`
    );
  });

  it('writes one request in the singular', () => {
    expect(renderSummary(report({ requests: 1 }))).toContain(' · 1 API request\n');
  });

  it('leaves out the branch when there is none', () => {
    expect(lines(renderSummary(report()))[2]).toBe(
      `Project <code>${PROJECT}</code> · waited 1m15s of 10m · 7 API requests`
    );
  });

  it('leaves out the project when there is none', () => {
    expect(lines(renderSummary(report({ projectId: undefined, requests: 0 })))[2]).toBe(
      'waited 1m15s of 10m · 0 API requests'
    );
  });

  it('says when it only reported', () => {
    expect(lines(renderSummary(report({ waited: false })))[2]).toBe(
      `Project <code>${PROJECT}</code> · report only (wait: false) · 7 API requests`
    );
  });

  it('ends with the time and the action version', () => {
    const text = renderSummary(report());
    expect(
      text.endsWith(`<sub>2026-01-02 03:10:00 UTC · ${ACTION_NAME} ${ACTION_VERSION}</sub>\n`)
    ).toBe(true);
  });
});

describe('renderSummary failure', () => {
  it('quotes the failure on one escaped line', () => {
    const failure =
      'Operation d8ac46eb (create_branch) ended with status error: compute *failed* | see [logs](http://x)\nsecond line <b>';
    const text = renderSummary(report({ status: 'error', failure }));
    const quote = lines(text).filter((line) => line.startsWith('> '));
    expect(quote).toHaveLength(1);
    expect(quote[0]).toBe(
      '> Operation d8ac46eb (create&#95;branch) ended with status error&#58; compute &#42;failed&#42; &#124; see &#91;logs&#93;(http&#58;//x) second line &lt;b&gt;'
    );
    expect(text).not.toContain('\nsecond line');
  });

  it('cuts a very long failure', () => {
    const text = renderSummary(report({ status: 'error', failure: 'x'.repeat(10_000) }));
    const quote = lines(text).find((line) => line.startsWith('> ')) as string;
    expect(quote.length).toBeLessThanOrEqual(2 + 1200);
    expect(quote.endsWith('…')).toBe(true);
  });

  it('has no quote without a failure', () => {
    expect(lines(renderSummary(report())).some((line) => line.startsWith('>'))).toBe(false);
  });
});

describe('renderSummary awaited operations', () => {
  it('writes a table with a row per operation', () => {
    const a = op({ action: 'create_branch', status: 'finished' });
    const b = op({
      action: 'start_compute',
      status: 'error',
      failures_count: 3,
      error: 'compute did not start',
      total_duration_ms: 0,
      updated_at: '2026-01-02T03:05:35Z'
    });
    const text = renderSummary(report({ status: 'error', operations: [a, b] }));
    expect(text).toContain(
      `\n#### Awaited operations (1 finished · 1 error)\n\n${HEADER}\n${SEPARATOR}\n`
    );
    const rows = tableAfter(text, '#### Awaited operations');
    expect(rows).toHaveLength(2);
    expect(rows[0]).toBe(
      `| ✅ finished | Create branch<br><sub>create&#95;branch</sub> | <code title="${a.id}">${a.id.slice(0, 8)}</code> | <code>${BRANCH}</code> | <code>ep-silent-smoke-806639</code> | 0 | 2s | 6m ago<br><sub>2026-01-02 03:04:05 UTC</sub> |  |`
    );
    expect(rows[1]).toBe(
      `| ❌ error | Start compute<br><sub>start&#95;compute</sub> | <code title="${b.id}">${b.id.slice(0, 8)}</code> | <code>${BRANCH}</code> | <code>ep-silent-smoke-806639</code> | 3 | 1m30s | 6m ago<br><sub>2026-01-02 03:04:05 UTC</sub> | compute did not start |`
    );
  });

  it('has the same number of cells in every row as in the header', () => {
    const text = renderSummary(
      report({ operations: [op(), op({ branch_id: undefined, endpoint_id: undefined })] })
    );
    const [table] = tables(text);
    expect(table).toBeDefined();
    for (const row of table as string[]) expect(pipes(row)).toBe(pipes(HEADER));
  });

  it('lists an operation seen only by its id as not seen', () => {
    const id = nextId();
    const text = renderSummary(
      report({ status: 'timeout', timedOut: true, operations: [{ id } as Operation] })
    );
    expect(text).toContain('#### Awaited operations (1 not seen)');
    expect(text).toContain(`| ❔ not seen |  | <code title="${id}">${id.slice(0, 8)}</code> |`);
  });

  it('lists several operations seen only by their ids', () => {
    const ids = [nextId(), nextId()];
    const text = renderSummary(
      report({ status: 'api_error', operations: ids.map((id) => ({ id }) as Operation) })
    );
    expect(text).toContain('#### Awaited operations (2 not seen)');
    for (const id of ids) expect(text).toContain(`<code title="${id}">`);
  });

  it('still lists an operation seen only by its id beside operations that were seen', () => {
    const seen = op({ status: 'running' });
    const unseen = nextId();
    const text = renderSummary(
      report({
        status: 'timeout',
        timedOut: true,
        operations: [seen, { id: unseen } as Operation]
      })
    );
    expect(text).toContain(unseen.slice(0, 8));
    expect(text).toContain('not seen');
  });
});

describe('operationsTable', () => {
  it('writes a row for an operation seen only by its id', () => {
    const id = nextId();
    const rows = operationsTable([{ id } as Operation], NOW);
    expect(rows.slice(0, 2)).toEqual([HEADER, SEPARATOR]);
    expect(rows[2]).toBe(
      `| ❔ not seen |  | <code title="${id}">${id.slice(0, 8)}</code> |  |  |  |  |  |  |`
    );
  });

  it('runs the duration of an in-progress operation to now', () => {
    const rows = operationsTable(
      [op({ status: 'running', total_duration_ms: undefined, created_at: '2026-01-02T03:09:00Z' })],
      NOW
    );
    expect(rows[2]).toContain(' | 1m | 1m ago<br><sub>2026-01-02 03:09:00 UTC</sub> | ');
  });

  it('leaves the created cell empty for a bad date', () => {
    const rows = operationsTable(
      [op({ created_at: 'yesterday', total_duration_ms: undefined })],
      NOW
    );
    expect(rows[2]?.endsWith(' | 0 |  |  |  |')).toBe(true);
  });

  it('cuts error texts to errorChars and leaves them out at 0', () => {
    const error = 'e'.repeat(500);
    const [, , cut] = operationsTable([op({ error })], NOW, 80);
    expect(cut).toContain(` | ${'e'.repeat(79)}… |`);
    expect(cut).not.toContain('e'.repeat(80));
    const [, , none] = operationsTable([op({ error })], NOW, 0);
    expect(none?.endsWith(' |  |')).toBe(true);
  });

  it('writes the unknown status toString with a question mark', () => {
    const [, , row] = operationsTable([op({ status: 'toString' })], NOW);
    expect(row?.startsWith('| ❔ toString | ')).toBe(true);
  });
});

describe('renderSummary recent operations', () => {
  it('writes a table of the recent operations with counts', () => {
    const ops = [
      op({ action: 'check_availability' }),
      op({ status: 'error', error: 'boom' }),
      op({ action: 'suspend_compute' }),
      op({ status: 'running' }),
      op()
    ];
    const text = renderSummary(report({ recent: recent(ops) }));
    expect(text).toContain(
      `\n#### Recent operations (3 finished · 1 error · 1 running)\n\n${HEADER}\n`
    );
    const rows = tableAfter(text, '#### Recent operations');
    expect(rows).toHaveLength(5);
    ops.forEach((o, i) => expect(rows[i]).toContain(`<code title="${o.id}">`));
  });

  it('names the branch the recent operations were filtered by', () => {
    const text = renderSummary(report({ branchId: BRANCH, recent: recent([op(), op()]) }));
    expect(text).toContain(
      `\n#### Recent operations on branch <code>${BRANCH}</code> (2 finished)\n`
    );
  });

  it('says there are none on the branch', () => {
    const text = renderSummary(
      report({ branchId: BRANCH, recent: recent([], { scanned: 200, requests: 1 }) })
    );
    expect(text).toContain('\n#### Recent operations\n\nNone on this branch.\n');
    expect(tableAfter(text, '#### Recent operations')).toEqual([]);
  });

  it('says there are none in the project', () => {
    const text = renderSummary(report({ recent: recent([]) }));
    expect(text).toContain('\n#### Recent operations\n\nNone.\n');
  });

  it('has no recent section when they were not asked for', () => {
    expect(renderSummary(report())).not.toContain('Recent operations');
  });

  it('says when the branch scan stopped at its bound', () => {
    const text = renderSummary(
      report({
        branchId: BRANCH,
        recent: recent([op()], { scanned: 1000, requests: 5, scanStopped: true })
      })
    );
    expect(text).toContain(
      '\n_Only the newest 1000 operations of the project were scanned for this branch; older ones may exist._\n'
    );
  });

  it('says when the branch scan stopped even if it found nothing', () => {
    const text = renderSummary(
      report({ branchId: BRANCH, recent: recent([], { scanned: 1000, scanStopped: true }) })
    );
    expect(text).toContain('None on this branch.');
    expect(text).toContain('_Only the newest 1000 operations of the project were scanned');
  });

  it('has no scan note when the scan did not stop', () => {
    const text = renderSummary(report({ branchId: BRANCH, recent: recent([op()]) }));
    expect(text).not.toContain('were scanned');
  });

  it('says, escaped, why the recent operations could not be loaded', () => {
    const text = renderSummary(report({ recentError: 'HTTP 500: internal_error_ *x* `y`\nmore' }));
    expect(text).toContain(
      '\n_Recent operations could not be loaded: HTTP 500&#58; internal&#95;error&#95; &#42;x&#42; &#96;y&#96; more_\n'
    );
  });

  it('shows the timeline in a details block', () => {
    const text = renderSummary(report({ recent: recent([op()]) }));
    expect(text).toContain('\n<details open><summary>Timeline (UTC)</summary>\n\n```mermaid\n');
    expect(text).toContain('\n```\n\n</details>\n');
  });
});

describe('renderSummary size limits', () => {
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
    expect(tableAfter(text, '#### Recent operations')).toHaveLength(1000);
    expect(text).not.toContain('older rows were left out');
  });

  it('fits 1000 recent operations in a comment and says how many rows were left out', () => {
    const ops = many(1000);
    const text = renderSummary(report({ recent: recent(ops) }), COMMENT_LIMIT);
    expect(COMMENT_LIMIT).toBe(65_000);
    expect(bytes(text)).toBeLessThanOrEqual(65_000);
    const rows = tableAfter(text, '#### Recent operations');
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(1000);
    const left =
      /\n_(\d+) older rows were left out to keep this summary within GitHub's size limit\._\n/.exec(
        text
      );
    expect(left).not.toBeNull();
    expect(Number(left?.[1]) + rows.length).toBe(1000);
    // The newest are kept.
    expect(rows[0]).toContain(`<code title="${ops[0]?.id}">`);
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
    expect(text).toContain(` | ${'x'.repeat(79)}… |`);
    expect(text).not.toContain('x'.repeat(80));
    // Nothing else had to go.
    expect(text).not.toContain('older rows were left out');
    expect(tableAfter(text, '#### Recent operations')).toHaveLength(10);
    expect(text).toContain('Timeline (UTC)');
  });

  it('leaves error texts out when shortening is not enough', () => {
    const ops = Array.from({ length: 200 }, () => op({ status: 'error', error: 'x'.repeat(300) }));
    const without = renderSummary(
      report({ status: 'error', operations: ops.map((o) => ({ ...o, error: undefined })) })
    );
    const limit = bytes(without) + 200;
    const text = renderSummary(report({ status: 'error', operations: ops }), limit);
    expect(bytes(text)).toBeLessThanOrEqual(limit);
    expect(text).toContain(
      "\n_Error texts were left out to keep this summary within GitHub's size limit._\n"
    );
    expect(text).not.toContain('xxxx');
    expect(tableAfter(text, '#### Awaited operations')).toHaveLength(200);
  });

  it('drops the timeline before the error texts', () => {
    const ops = Array.from({ length: 30 }, () => op({ status: 'error', error: 'y'.repeat(80) }));
    const input = report({ status: 'error', operations: ops });
    const full = renderSummary(input);
    expect(full).toContain('Timeline (UTC)');
    const text = renderSummary(input, bytes(full) - 1);
    expect(bytes(text)).toBeLessThanOrEqual(bytes(full) - 1);
    expect(text).not.toContain('Timeline (UTC)');
    expect(text).toContain('y'.repeat(80));
  });

  it.each([3000, 1500, 700, 300])(
    'cuts as a last resort and still fits in %d bytes',
    (maxChars) => {
      const ops = Array.from({ length: 30 }, () =>
        op({ status: 'error', error: '🙂|'.repeat(400), branch_id: 'br-' + 'ü'.repeat(50) })
      );
      const text = renderSummary(
        report({
          status: 'error',
          branchId: BRANCH,
          failure: '🙂 <failed> | '.repeat(5000),
          operations: ops,
          recent: recent(many(50)),
          recentError: 'ignored'
        }),
        maxChars
      );
      expect(bytes(text)).toBeLessThanOrEqual(maxChars);
      expect(
        text.endsWith("\n\n_The rest of this summary was cut to fit GitHub's size limit._\n")
      ).toBe(true);
      expect(text).not.toContain('\uFFFD');
    }
  );

  it('cuts at a line boundary', () => {
    const ops = Array.from({ length: 30 }, () => op({ status: 'error', error: 'z'.repeat(300) }));
    const text = renderSummary(report({ status: 'error', operations: ops }), 3000);
    const at = text.indexOf('\n\n_The rest of this summary was cut');
    expect(at).toBeGreaterThan(0);
    const body = text.slice(0, at);
    expect(body.trimEnd().endsWith(' |')).toBe(true);
    expect(lines(body).filter((line) => line.startsWith('| ')).length).toBeGreaterThan(2);
    for (const row of lines(body).filter((line) => line.startsWith('|')))
      expect(pipes(row)).toBe(pipes(HEADER));
  });
});

describe('renderSummary with hostile strings', () => {
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
      operations: [hostileOp(), { ...hostileOp(), id: HOSTILE }, op()],
      recent: recent([hostileOp(), op(), hostileOp()], { scanStopped: true }),
      recentError: HOSTILE
    });
  }

  it.each([
    ['the full summary', STEP_SUMMARY_LIMIT],
    ['a comment', COMMENT_LIMIT],
    ['a shortened summary', 4000]
  ])('never writes raw HTML in %s', (_name, maxChars) => {
    const text = renderSummary(hostileReport(), maxChars);
    expect(text).not.toMatch(/<img/i);
    expect(text).not.toMatch(/<b>|<\/?a[ >]|onerror=alert\(1\)>/i);
  });

  it('keeps every table row to the columns of the header, on one line', () => {
    const text = renderSummary(hostileReport());
    const found = tables(text);
    expect(found).toHaveLength(2);
    const [awaited, recentRows] = found as [string[], string[]];
    expect(awaited).toHaveLength(2 + 3);
    expect(recentRows).toHaveLength(2 + 3);
    for (const row of [...awaited, ...recentRows]) {
      expect(pipes(row)).toBe(pipes(HEADER));
      expect(row.startsWith('| ')).toBe(true);
      expect(row.endsWith(' |')).toBe(true);
      expect(row).not.toMatch(/[\r\n]/);
    }
  });

  it('keeps every line that is not a table row free of pipes, and outside the chart free of backticks', () => {
    const text = renderSummary(hostileReport());
    for (const line of lines(text)) {
      if (line === '```mermaid' || line === '```') continue;
      expect(line).not.toContain('`');
      if (!line.startsWith('| ')) expect(line).not.toContain('|');
    }
  });

  it('keeps the id attribute closed', () => {
    const text = renderSummary(hostileReport());
    for (const row of tables(text).flatMap((t) => t.slice(2)))
      expect(row).toMatch(/<code title="[^"<>]*">[^<>"]*<\/code>/);
  });

  it('keeps the heading, facts and notes on their own lines', () => {
    const all = lines(renderSummary(hostileReport()));
    expect(all[0]).toMatch(/^### ❔ Neon operations: &lt;img/);
    expect(all[1]).toBe('');
    expect(all[2]).toMatch(/^Project <code>.*<\/code> · branch <code>.*<\/code> · waited /);
    expect(all[3]).toBe('');
    expect(all[4]).toMatch(/^> &lt;img/);
    expect(all[5]).toBe('');
    // The newlines inside the hostile text were flattened: its last word stays on its first line.
    for (const line of all.filter((l) => l.includes('next')))
      expect(line).toMatch(/&lt;img.*&#124; --- &#124; next|img src x onerror.*next/);
  });

  it('writes no raw HTML for hostile strings in a table built directly', () => {
    const rows = operationsTable([hostileOp()], NOW);
    expect(rows).toHaveLength(3);
    expect(rows[2]).not.toMatch(/<img/i);
    expect(pipes(rows[2] as string)).toBe(pipes(HEADER));
  });
});
