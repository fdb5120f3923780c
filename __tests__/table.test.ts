import { describe, expect, it } from '@jest/globals';
import type { Operation } from '../src/neon/operation.js';
import { stableView } from '../src/report/model.js';
import {
  COLUMNS,
  errorItem,
  idCode,
  operationsTable,
  type TableOptions
} from '../src/report/table.js';
import { makeOperation, makeReport, nextId } from './helpers/builders.js';

const NOW = Date.parse('2026-01-02T03:10:00Z');
const PROJECT = 'spring-example-302709';
const BRANCH = 'br-wispy-meadow-118737';
const ENDPOINT = 'ep-silent-smoke-806639';
const OPTIONS: TableOptions = { now: NOW, errorChars: 300, projectId: PROJECT };

function op(fields: Partial<Operation> = {}): Operation {
  return makeOperation({
    project_id: PROJECT,
    branch_id: BRANCH,
    endpoint_id: ENDPOINT,
    ...fields
  });
}

const header = (lines: string[]): string => lines[0] as string;
const cells = (row: string): string[] => row.slice(2, -2).split(' | ');

describe('operationsTable', () => {
  it('says once what every row shares and keeps one line per row', () => {
    const a = op({ action: 'create_branch', endpoint_id: undefined });
    const b = op({ action: 'start_compute', updated_at: '2026-01-02T03:04:09Z' });
    const table = operationsTable([a, b], OPTIONS);
    expect(table.caption).toBe(
      `On branch <code>${BRANCH}</code> · compute <code>${ENDPOINT}</code> · started 2026-01-02 03:04:05 UTC`
    );
    expect(table.lines).toEqual([
      '| Status | Operation | Duration |',
      '| --- | --- | --- |',
      `| ✅&nbsp;finished | <code title="${a.id}">${a.id.slice(0, 8)}</code>&nbsp;Create branch | 2s |`,
      `| ✅&nbsp;finished | <code title="${b.id}">${b.id.slice(0, 8)}</code>&nbsp;Start compute | 4s |`
    ]);
    expect(table.errors).toEqual([]);
  });

  it('keeps the columns that differ between rows, with times of one day as times of day', () => {
    const a = op({ status: 'error', branch_id: 'br-a', created_at: '2026-01-02T03:01:00Z' });
    const b = op({ status: 'finished', branch_id: 'br-b', endpoint_id: 'ep-b' });
    const table = operationsTable([a, b], OPTIONS);
    expect(header(table.lines)).toBe(
      '| Status | Operation | Branch | Compute | Duration | Started |'
    );
    expect(cells(table.lines[2] as string)).toEqual([
      '❌&nbsp;error',
      `<code title="${a.id}">${a.id.slice(0, 8)}</code>&nbsp;Create branch`,
      '<code>br-a</code>',
      `<code>${ENDPOINT}</code>`,
      '3m7s',
      '03:01:00'
    ]);
    expect(cells(table.lines[3] as string).slice(2, 4)).toEqual([
      '<code>br-b</code>',
      '<code>ep-b</code>'
    ]);
    expect(table.caption).toBe('Started on 2026-01-02, times UTC');
  });

  it('keeps a compute column alone when only the computes differ', () => {
    const table = operationsTable(
      [op({ endpoint_id: 'ep-a' }), op({ endpoint_id: 'ep-b' })],
      OPTIONS
    );
    expect(header(table.lines)).toBe('| Status | Operation | Compute | Duration |');
    expect(table.caption).toBe(
      `On branch <code>${BRANCH}</code> · started 2026-01-02 03:04:05 UTC`
    );
  });

  it('writes whole dates when the rows span several days', () => {
    const table = operationsTable(
      [op({ created_at: '2026-01-01T23:59:59Z' }), op({ created_at: '2026-01-02T00:00:01Z' })],
      OPTIONS
    );
    expect(header(table.lines)).toContain('| Started (UTC) |');
    expect(table.lines[2]).toContain(' | 2026-01-01&nbsp;23:59:59 |');
    expect(table.caption).not.toContain('times UTC');
  });

  it('drops a column that is empty in every row, and says nothing of it', () => {
    const table = operationsTable(
      [
        op({ branch_id: undefined, endpoint_id: undefined, status: 'running' }),
        op({ branch_id: undefined, endpoint_id: undefined })
      ],
      OPTIONS
    );
    expect(header(table.lines)).toBe('| Status | Operation | Duration |');
    expect(table.caption).toBe('Started 2026-01-02 03:04:05 UTC');
  });

  it('puts failures beside the status', () => {
    const mixed = operationsTable(
      [op({ status: 'failed', failures_count: 2 }), op({ failures_count: 1 }), op()],
      OPTIONS
    );
    expect(mixed.lines.slice(2).map((row) => cells(row)[0])).toEqual([
      '⚠️&nbsp;failed&nbsp;(2&nbsp;failures)',
      '✅&nbsp;finished&nbsp;(1&nbsp;failure)',
      '✅&nbsp;finished'
    ]);
  });

  it('writes a zero duration as under a second (the API gives whole seconds)', () => {
    const table = operationsTable(
      [op({ updated_at: '2026-01-02T03:04:05Z' }), op({ updated_at: '2026-01-02T03:05:05Z' })],
      OPTIONS
    );
    expect(table.lines.slice(2).map((row) => cells(row).at(-1))).toEqual(['&lt;1s', '1m']);
  });

  it('runs the duration of an in-progress operation to now', () => {
    const table = operationsTable(
      [op({ status: 'running', created_at: '2026-01-02T03:09:00Z' })],
      OPTIONS
    );
    expect(table.lines[2]).toContain(' | 1m |');
  });

  it('lists error texts under the table, not in a column, except those shown elsewhere', () => {
    const shown = op({ status: 'error', error: 'shown above' });
    const other = op({ status: 'finished', failures_count: 1, error: 'retried: timeout' });
    const table = operationsTable([shown, other, op()], {
      ...OPTIONS,
      errorsShown: new Set([shown.id])
    });
    expect(header(table.lines)).not.toContain('Error');
    expect(table.errors).toEqual([
      `- ✅ ${idCode(other)} **Create branch** finished (1 failure): retried&#58; timeout`
    ]);
    expect(operationsTable([other], { ...OPTIONS, errorChars: 0 }).errors).toEqual([]);
  });

  it('cuts error texts to errorChars', () => {
    const [item] = operationsTable([op({ error: 'e'.repeat(500) })], {
      ...OPTIONS,
      errorChars: 80
    }).errors;
    expect(item).toContain(`: ${'e'.repeat(79)}…`);
    expect(item).not.toContain('e'.repeat(80));
  });

  it('writes a row for an operation seen only by its id', () => {
    const id = nextId();
    const table = operationsTable([{ id }, op()], OPTIONS);
    expect(table.lines[2]).toBe(
      `| ❔&nbsp;not seen | <code title="${id}">${id.slice(0, 8)}</code> |  |`
    );
  });

  it('links branches to the Neon console only when asked, in cells and in the caption', () => {
    const url = `https://console.neon.tech/app/projects/${PROJECT}/branches/`;
    const mixed = [op({ branch_id: 'br-a' }), op({ branch_id: 'br-b' })];
    expect(operationsTable(mixed, OPTIONS).lines.join('\n')).not.toContain('<a ');
    const linked = operationsTable(mixed, { ...OPTIONS, consoleLinks: true });
    expect(linked.lines[2]).toContain(`<a href="${url}br-a"><code>br-a</code></a>`);
    expect(linked.lines[3]).toContain(`<a href="${url}br-b"><code>br-b</code></a>`);
    const shared = operationsTable([op(), op()], { ...OPTIONS, consoleLinks: true });
    expect(shared.caption).toContain(
      `On branch <a href="${url}${BRANCH}"><code>${BRANCH}</code></a>`
    );
  });

  it('takes the project of the operation for the link, and links no id outside the API’s pattern', () => {
    const table = operationsTable(
      [op({ project_id: 'other-project-1', branch_id: 'br-a' }), op({ branch_id: 'BR_b"' })],
      { ...OPTIONS, consoleLinks: true }
    );
    expect(table.lines[2]).toContain('/app/projects/other-project-1/branches/br-a"');
    expect(table.lines[3]).toContain('<code>BR&#95;b&quot;</code>');
    expect(table.lines[3]).not.toContain('<a ');
  });

  it('writes hostile text as text, every row as wide as the header', () => {
    const hostile = '<img src=x onerror=alert(1)> | `x` [l](http://x)\n| --- |';
    const table = operationsTable(
      [
        op({ status: hostile, action: hostile, branch_id: hostile, endpoint_id: hostile }),
        op({ status: 'toString', failures_count: hostile as unknown as number })
      ],
      OPTIONS
    );
    const pipes = (row: string): number => row.replaceAll('&#124;', '').split('|').length;
    for (const row of table.lines) {
      expect(pipes(row)).toBe(pipes(header(table.lines)));
      expect(row).not.toMatch(/<img|\n|`/);
    }
    expect(table.lines[3]).toMatch(/^\| ❔&nbsp;toString&nbsp;\(&lt;img/);
  });
});

describe('errorItem', () => {
  it('writes the mark, the id, the name, the status, the failures and the error', () => {
    const o = op({
      action: 'start_compute',
      status: 'error',
      failures_count: 3,
      error: 'no *way*'
    });
    expect(errorItem(o, 300)).toBe(
      `- ❌ ${idCode(o)} **Start compute** error (3 failures): no &#42;way&#42;`
    );
    expect(errorItem(o, 0)).toBe(`- ❌ ${idCode(o)} **Start compute** error (3 failures)`);
  });
});

describe('the PR comment digest (stableView) follows the columns that count', () => {
  const base = op({ status: 'running', failures_count: 0 });
  const viewOf = (o: Operation): string => stableView(makeReport({ operations: [o] }));

  it.each(COLUMNS.filter((c) => c.digest).map((c) => [c.header, c] as const))(
    'a change in %s rewrites the comment',
    (_, column) => {
      // Every field of the row other than its times: a column that counts must see its change.
      const changed = op({
        status: 'finished',
        failures_count: 1,
        action: 'start_compute',
        branch_id: 'br-other-1',
        endpoint_id: 'ep-other-1',
        retry_at: '2026-01-02T03:11:00Z'
      });
      expect(column.digest!(changed)).not.toEqual(column.digest!(base));
      expect(viewOf(changed)).not.toBe(viewOf(base));
    }
  );

  it('the time an operation took, which changes on every run, does not', () => {
    expect(viewOf({ ...base, updated_at: new Date(NOW).toISOString() })).toBe(viewOf(base));
  });
});
