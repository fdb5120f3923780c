import { describe, expect, it } from '@jest/globals';
import { renderJunit } from '../src/cli/junit.js';
import type { Operation } from '../src/neon/operation.js';
import { inputErrorReport, type Report } from '../src/report/model.js';
import { makeReport, type ReportFields } from './helpers/builders.js';
import { readJunit } from './helpers/junit.js';

const T0 = Date.parse('2026-11-26T10:00:00Z');
const PROJECT = 'spring-example-302709';
const at = (ms: number): string => new Date(T0 + ms).toISOString();

function op(n: number, action: string, status: string, fields: Partial<Operation> = {}): Operation {
  return {
    id: `0000000${n}-0000-4000-8000-000000000000`,
    project_id: PROJECT,
    branch_id: 'br-wispy-meadow-118737',
    action,
    status,
    failures_count: 0,
    created_at: at(0),
    updated_at: at(2000),
    total_duration_ms: 270,
    ...fields
  };
}

function report(operations: Operation[], fields: ReportFields = {}): Report {
  return makeReport({
    projectId: PROJECT,
    operations,
    startedAt: T0 + 500,
    finishedAt: T0 + 9000,
    requests: 3,
    ...fields
  });
}

describe('the JUnit file, as a JUnit reader reads it', () => {
  it('fails each operation that failed with its own text; those cut short are skipped with their own reason', async () => {
    const ops = [
      op(1, 'start_compute', 'error', { failures_count: 3, error: 'quota exceeded' }),
      op(2, 'apply_config', 'cancelled', { error: 'cancelled by the user', endpoint_id: 'ep-a' }),
      op(3, 'create_branch', 'running', { updated_at: at(1000) }),
      op(4, 'suspend_compute', 'scheduling'),
      op(5, 'create_timeline', 'finished')
    ];
    const failure =
      'Operation(s) did not succeed: start_compute … quota exceeded; apply_config … cancelled';
    const junit = await readJunit(renderJunit(report(ops, { status: 'error', failure })));
    expect(junit).toMatchObject({ tests: 5, failures: 2, errors: 0 });
    expect(junit.cases).toEqual([
      {
        classname: `neon-operations-wait.${PROJECT}`,
        name: 'start_compute',
        time: 2,
        outcome: 'failure',
        type: 'error',
        message: 'error (failures_count 3)',
        body: `operation ${ops[0]?.id}: quota exceeded`,
        properties: { operation_id: ops[0]?.id, branch_id: 'br-wispy-meadow-118737' }
      },
      expect.objectContaining({
        name: 'apply_config',
        outcome: 'failure',
        body: `operation ${ops[1]?.id}: cancelled by the user`
      }),
      // Wall time to the end of the wait, not the API's total_duration_ms; nobody else's text.
      expect.objectContaining({
        time: 9,
        outcome: 'skipped',
        message: 'still running when the wait ended (error)'
      }),
      expect.objectContaining({
        outcome: 'skipped',
        message: 'still scheduling when the wait ended (error)'
      }),
      expect.objectContaining({
        name: 'create_timeline',
        outcome: 'passed',
        time: 2
      })
    ]);
    expect(junit.suite).toBe(`Neon operations of project ${PROJECT}`);
    const text = JSON.stringify(junit.cases.slice(2));
    expect(text).not.toContain('quota');
    expect(text).not.toContain('cancelled by');
  });

  it('at a timeout, fails what was still open as timed out', async () => {
    const junit = await readJunit(
      renderJunit(
        report([op(1, 'create_branch', 'running')], {
          status: 'timeout',
          timedOut: true,
          timeoutMs: 2000
        })
      )
    );
    expect(junit.cases).toEqual([
      expect.objectContaining({
        outcome: 'failure',
        type: 'timeout',
        message: 'timed out',
        body: 'still running at the deadline (timeout 2s)'
      })
    ]);
  });

  it("times an operation still open on the service's clock, whatever the runner's says", async () => {
    // Created at T0, open when the wait ended at T0 + 9 s by the service's clock; the runner's
    // clock was 5 minutes behind it.
    const open = report([op(1, 'create_branch', 'running')], {
      status: 'timeout',
      timedOut: true,
      finishedAt: T0 + 9000 - 300_000,
      serviceAheadMs: 300_000
    });
    const junit = await readJunit(renderJunit(open));
    expect(junit.cases[0]?.time).toBe(9);
  });

  it('an input or API error, or an interruption, is an error case, never an empty suite', async () => {
    const input = await readJunit(
      renderJunit(inputErrorReport('--operation-id is empty.', T0, T0 + 5))
    );
    expect(input).toMatchObject({ tests: 1, errors: 1 });
    expect(input.cases).toEqual([
      {
        classname: 'neon-operations-wait',
        name: 'wait',
        time: 0,
        outcome: 'error',
        type: 'input_error',
        message: 'input error',
        body: '--operation-id is empty.'
      }
    ]);
    const api = await readJunit(
      renderJunit(
        report([op(1, 'create_branch', 'running')], {
          status: 'api_error',
          failure: 'The API refused the key (HTTP 401)'
        })
      )
    );
    expect(api.cases.map((c) => [c.outcome, c.type ?? c.message])).toEqual([
      ['skipped', 'still running when the wait ended (api_error)'],
      ['error', 'api_error']
    ]);
  });

  it('bounds text from the API, written once: a 3 MB error gives a small file', async () => {
    const error = `boom ${'x'.repeat(3_000_000)}`;
    const xml = renderJunit(
      report([op(1, 'start_compute', 'error', { error })], { status: 'error' })
    );
    expect(xml.length).toBeLessThan(6000);
    const [testcase] = (await readJunit(xml)).cases;
    expect(testcase?.body?.length).toBeLessThanOrEqual(4000);
    expect(testcase?.message).toBe('error');
  });

  it('tells apart two cases of the same name in one run', async () => {
    const junit = await readJunit(
      renderJunit(report([op(1, 'start_compute', 'finished'), op(2, 'start_compute', 'finished')]))
    );
    expect(junit.cases.map((c) => c.name)).toEqual(['start_compute', 'start_compute #2']);
  });

  it('issue 37 item 5: names stay the same from run to run (a branch per pull request); the ids are properties', async () => {
    const run = async (n: number, branch: string) => {
      const ops = [
        op(n, 'create_branch', 'finished', { branch_id: branch }),
        op(n + 1, 'start_compute', 'finished', { branch_id: branch, endpoint_id: `ep-${branch}` })
      ];
      return (await readJunit(renderJunit(report(ops)))).cases;
    };
    const first = await run(1, 'br-quiet-sun-07272eb0');
    const second = await run(5, 'br-misty-sun-1a2b3c4d');
    expect(first.map((c) => c.name)).toEqual(['create_branch', 'start_compute']);
    expect(second.map((c) => c.name)).toEqual(first.map((c) => c.name));
    expect(second[1]?.properties).toEqual({
      operation_id: '00000006-0000-4000-8000-000000000000',
      branch_id: 'br-misty-sun-1a2b3c4d',
      endpoint_id: 'ep-br-misty-sun-1a2b3c4d'
    });
  });

  it('issue 36 class 7: a run that fails with every operation passed (unconfirmed, database_error without a URI) is never all green', async () => {
    const done = [op(1, 'create_branch', 'finished')];
    const unconfirmed = await readJunit(
      renderJunit(
        report([], { status: 'unconfirmed', failure: 'POST /projects/p/branches got no answer' })
      )
    );
    expect(unconfirmed).toMatchObject({ errors: 1 });
    expect(unconfirmed.cases.at(-1)).toMatchObject({
      name: 'wait',
      outcome: 'error',
      type: 'unconfirmed'
    });
    const noUri = await readJunit(
      renderJunit(
        report(done, { status: 'database_error', failure: 'the answer holds no connection URI' })
      )
    );
    expect(noUri).toMatchObject({ tests: 2, errors: 1 });
    expect(noUri.cases.at(-1)).toMatchObject({
      name: 'wait',
      type: 'database_error',
      body: 'the answer holds no connection URI'
    });
  });
});
