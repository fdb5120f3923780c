/**
 * The job summary through the action's step as the runner sees it, run in-process
 * (`runInProcess`); the sticky comment's cases are in `comment.test.ts` beside it.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { operation } from '../../simulator/scenario.js';
import type { Simulator } from '../../simulator/server.js';
import { runInProcess as runAction } from '../helpers/in-process-action.js';
import { DEFAULT_KEY, history, PROJECT, simulate } from '../helpers/sim.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const listRequests = (s: Simulator) => s.requests.filter((r) => r.path.endsWith('/operations'));

function inputs(s: Simulator, more: Record<string, string>): { inputs: Record<string, string> } {
  return {
    inputs: { api_key: DEFAULT_KEY, api_host: s.url, interval: '1s', timeout: '20s', ...more }
  };
}

describe('job summary', () => {
  it('shows the awaited operations, the recent ones and a timeline, with one List request for summary_limit', async () => {
    // (The wait's first check lists too, for the project's history: that page is older than the end.)
    const op = operation(
      PROJECT,
      'create_branch',
      [
        [0, 'running'],
        [500, 'finished']
      ],
      { branch_id: 'br-new' }
    );
    sim = await simulate([op, ...history(60)]);
    const run = await runAction(
      inputs(sim, { operation_id: op.id, project_id: PROJECT, summary_limit: '25' })
    );
    expect(run.code).toBe(0);
    expect(run.summary).toMatch(/^### ✅ Neon operations: finished · Create branch in [\d.]+m?s\n/);
    expect(run.summary).toContain('#### Awaited operations (1 finished)');
    expect(run.summary).toMatch(/#### Recent operations \(\d+ finished · \d+ error\)/);
    expect(run.summary).toContain(
      `| <code title="${op.id}">${op.id.slice(0, 8)}</code>&nbsp;Create branch |`
    );
    expect(run.summary).toContain('```mermaid\ngantt\n  dateFormat x\n');
    expect(run.summary).toContain('On branch <code>br-new</code> · started ');
    // The awaited operation is the newest of the 25: the other 24 are listed, it is not again.
    const recent = run.summary.split('#### Recent operations')[1] ?? '';
    expect(recent).toContain('the 1 awaited above is not repeated');
    expect(recent).not.toContain(op.id);
    const recentRows = recent.split('\n').filter((l) => /^\| (✅|❌)&nbsp;/.test(l));
    expect(recentRows).toHaveLength(24);
    // Not Neon's API: no links to Neon's console.
    expect(run.summary).not.toContain('<a ');
    expect(listRequests(sim).map((r) => r.query)).toEqual([{ limit: '100' }, { limit: '25' }]);
    expect(run.outputs.summary?.trim()).toBe(run.summary.trim());
  });

  it('sends no List request of its own with summary_limit 0, and no summary with summary: false', async () => {
    const op = operation(PROJECT, 'create_branch', [[-100, 'finished']]);
    sim = await simulate([op, ...history(5)]);
    const none = await runAction(
      inputs(sim, { operation_id: op.id, project_id: PROJECT, summary_limit: '0' })
    );
    expect(none.summary).not.toContain('Recent operations');
    // The one request is the wait's check, which lists the project's history with the operation.
    expect(sim.requests.map((r) => r.query)).toEqual([{ limit: '100' }]);
    const off = await runAction(
      inputs(sim, { operation_id: op.id, project_id: PROJECT, summary: 'false' })
    );
    expect(off.summary).toBe('');
    expect(off.outputs.summary).toBe('');
  });

  it('shares one List request between the wait and the summary when the first check ends the wait', async () => {
    const op = operation(PROJECT, 'create_branch', [[-100, 'finished']]);
    sim = await simulate([op, ...history(5)]);
    const run = await runAction(
      inputs(sim, { operation_id: op.id, project_id: PROJECT, summary_limit: '25' })
    );
    expect(run.summary).toContain('#### Recent operations');
    expect(sim.requests.map((r) => r.query)).toEqual([{ limit: '100' }]);
  });

  it('with branch_id pages with the cursor, filters, and stops on the short last page', async () => {
    const mine = history(3, { branch_id: 'br-mine' });
    sim = await simulate([...history(250), ...mine]);
    const run = await runAction(
      inputs(sim, { project_id: PROJECT, branch_id: 'br-mine', summary_limit: '10' })
    );
    expect(run.code).toBe(0);
    // The wait's last List (the newest 100) is reused as the first page; the summary asks only
    // for the next one, by cursor, and stops on its short page.
    const last = listRequests(sim).at(-1);
    expect(last?.query.limit).toBe('200');
    expect(last?.query.cursor).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(last?.target).toContain('%3A');
    // The branch looked up once before the wait (a wrong id is not found), then the lists.
    expect(sim.requests[0]?.route).toBe('GET /projects/{project_id}/branches/{branch_id}');
    expect(run.summary).toMatch(/· 5 API requests/);
    const recent = run.summary.split('#### Recent operations')[1] ?? '';
    expect(recent).toContain('On branch <code>br-mine</code>');
    for (const op of mine) expect(recent).toContain(op.id.slice(0, 8));
    expect(recent).not.toContain('br-main');
  });

  it('with since lists every operation created since then, across pages, and none older', async () => {
    // One a minute: 1,200 in the last 20 hours; `since: 150m` wants the newest 150 or so.
    const ops = history(1200);
    sim = await simulate(ops);
    const run = await runAction(
      inputs(sim, { project_id: PROJECT, since: '150m', summary_limit: '1000', wait: 'false' })
    );
    expect(run.code).toBe(0);
    const since = run.summary.split('#### Operations since ')[1] ?? '';
    expect(since).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(/);
    // The simulator's clock started at `epoch`; a little slack on both sides of the cut.
    const epoch = Date.now() - sim.now();
    const cutoff = Date.now() - 150 * 60_000;
    const inWindow = ops.filter((op) => epoch + op.created >= cutoff + 5000);
    const outside = ops.filter((op) => epoch + op.created < cutoff - 5000);
    expect(inWindow.length).toBeGreaterThan(140);
    for (const op of inWindow) expect(since).toContain(op.id.slice(0, 8));
    for (const op of outside) expect(since).not.toContain(op.id.slice(0, 8));
  });

  it('says so when the bounded branch scan stopped before finding them all', async () => {
    sim = await simulate([
      ...history(1100),
      ...history(2, { branch_id: 'br-old' }).map((op) => ({
        ...op,
        created: op.created - 9e8,
        steps: op.steps.map((s) => ({ ...s, at: s.at - 9e8 }))
      }))
    ]);
    const run = await runAction(
      inputs(sim, { project_id: PROJECT, branch_id: 'br-old', summary_limit: '5', timeout: '30s' })
    );
    expect(run.summary).toMatch(
      /Only the newest 1100 operations of the project were scanned for this branch; older ones may exist/
    );
  });

  it('escapes text from the API so it cannot break the table or inject markup', async () => {
    const evil =
      '<img src=x onerror=alert(1)> | `rm -rf` **bold** [link](http://x)\n| new row |\n<script>x</script>';
    const op = operation(PROJECT, 'apply_config', [[-100, 'error', { error: evil }]]);
    sim = await simulate([op]);
    const run = await runAction(inputs(sim, { operation_id: op.id, project_id: PROJECT }));
    expect(run.code).toBe(1);
    expect(run.summary).not.toMatch(/<img|<script|\*\*bold|\[link\]|`rm/);
    const table = run.summary.split('\n').filter((l) => l.startsWith('|'));
    const columns = (line: string) => line.split('|').length;
    for (const line of table) expect(columns(line)).toBe(columns(table[0] as string));
    expect(run.summary).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('is written on timeout and stays under 1 MiB with 1000 rows of long errors, saying what was left out', async () => {
    const stuck = operation(PROJECT, 'create_branch', [[0, 'running']]);
    const noisy = history(1000, {}, '<&>'.repeat(400));
    sim = await simulate([stuck, ...noisy]);
    const run = await runAction(
      inputs(sim, {
        operation_id: stuck.id,
        project_id: PROJECT,
        timeout: '1s',
        summary_limit: '1000'
      })
    );
    expect(run.outputs.status).toBe('timeout');
    expect(Buffer.byteLength(run.summary)).toBeLessThan(1024 * 1024);
    expect(run.summary).toContain('Neon operations: timed out');
    expect(run.summary).toContain(
      "Error texts were shortened to 80 characters to keep this summary within GitHub's size limit"
    );
    expect(run.summary.match(/^\| ❌&nbsp;error \|/gm)?.length).toBeGreaterThan(100);
    // Each error under its table, shortened: `- ❌ <id> **Apply config** error: <&>…`
    expect(run.summary).toMatch(
      /^- ❌ <code title="[^"]+">[0-9a-f]{8}<\/code> \*\*Apply config\*\* error: (&lt;&amp;&gt;)+/m
    );
  });
});
