import { describe, expect, it } from '@jest/globals';
import { DEFAULT_POLICY } from '../src/wait/status.js';
import { FAILED_GRACE_MS, OperationTracker, type WaitLog } from '../src/wait/tracker.js';
import { makeOperation } from './helpers/builders.js';

const T0 = Date.parse('2026-01-02T03:05:00Z');
const FAIL_FAST = { ...DEFAULT_POLICY, failFast: true };

function setup(ops = [makeOperation({ status: 'running' })]) {
  let now = T0;
  const lines: string[] = [];
  const log: WaitLog = { info: (m) => lines.push(m), warning: (m) => lines.push(`warning: ${m}`) };
  const tracker = new OperationTracker(
    ops.map((o) => o.id),
    [],
    log,
    () => now
  );
  return {
    tracker,
    lines,
    op: ops[0]!,
    advance: (ms: number) => (now += ms),
    now: () => now
  };
}

describe('OperationTracker: `failed`, decided from evidence', () => {
  it('keeps waiting while retry_at is ahead, and says when the retry is due', () => {
    const { tracker, op, advance, lines } = setup();
    const retryAt = new Date(T0 + 90_000).toISOString();
    tracker.record({ ...op, status: 'failed', failures_count: 1, retry_at: retryAt });
    expect(lines.at(-1)).toMatch(/failed \(failures: 1\) — retry due in 1m30s/);
    advance(80_000);
    expect(tracker.judge(op.id, DEFAULT_POLICY)).toBe('pending');
    expect(tracker.verdict(DEFAULT_POLICY)).toBe('pending');
  });

  it('fails once retry_at has passed by the grace period with no change', () => {
    const { tracker, op, advance } = setup();
    tracker.record({ ...op, status: 'failed', retry_at: new Date(T0 + 10_000).toISOString() });
    advance(10_000 + FAILED_GRACE_MS - 1);
    expect(tracker.verdict(DEFAULT_POLICY)).toBe('pending');
    advance(2);
    expect(tracker.verdict(DEFAULT_POLICY)).toBe('failure');
    expect(tracker.failures(DEFAULT_POLICY).map((o) => o.id)).toEqual([op.id]);
  });

  it('fails a `failed` without retry_at that does not change for the grace period', () => {
    const { tracker, op, advance } = setup();
    tracker.record({ ...op, status: 'failed' });
    advance(FAILED_GRACE_MS - 1000);
    tracker.record({ ...op, status: 'failed' }); // the same again: no change
    expect(tracker.verdict(DEFAULT_POLICY)).toBe('pending');
    advance(1001);
    expect(tracker.verdict(DEFAULT_POLICY)).toBe('failure');
  });

  it('counts a change (another failure) as a sign of life that restarts the grace period', () => {
    const { tracker, op, advance } = setup();
    tracker.record({ ...op, status: 'failed', failures_count: 1 });
    advance(FAILED_GRACE_MS - 1000);
    tracker.record({ ...op, status: 'failed', failures_count: 2 });
    advance(FAILED_GRACE_MS - 1000);
    expect(tracker.verdict(DEFAULT_POLICY)).toBe('pending');
    advance(2000);
    expect(tracker.verdict(DEFAULT_POLICY)).toBe('failure');
  });

  it('fails `failed` at once with fail_fast', () => {
    const { tracker, op } = setup();
    tracker.record({ ...op, status: 'failed', retry_at: new Date(T0 + 60_000).toISOString() });
    expect(tracker.verdict(FAIL_FAST)).toBe('failure');
  });

  it('asks to look again just after retry_at when every open operation waits for a retry', () => {
    const a = makeOperation({ status: 'running' });
    const b = makeOperation({ status: 'running' });
    const { tracker } = setup([a, b]);
    tracker.record({ ...a, status: 'failed', retry_at: new Date(T0 + 40_000).toISOString() });
    tracker.record({ ...b, status: 'running' });
    expect(tracker.nextUsefulCheck(DEFAULT_POLICY)).toBeUndefined();
    tracker.record({ ...b, status: 'failed', retry_at: new Date(T0 + 30_000).toISOString() });
    expect(tracker.nextUsefulCheck(DEFAULT_POLICY)).toBe(T0 + 31_000);
  });

  it('does not take a status given in the `operations` input as the API’s word', () => {
    const op = makeOperation({ status: 'finished' });
    const tracker = new OperationTracker([op.id], [op], { info: () => {}, warning: () => {} });
    expect(tracker.verdict(DEFAULT_POLICY)).toBe('pending');
    tracker.record(op);
    expect(tracker.verdict(DEFAULT_POLICY)).toBe('success');
  });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])(
    'treats the status %j as an unknown status (in progress, one warning)',
    (status) => {
      const { tracker, op, lines } = setup();
      tracker.record({ ...op, status });
      tracker.record({ ...op, status });
      expect(tracker.verdict(DEFAULT_POLICY)).toBe('pending');
      expect(lines.filter((l) => l.startsWith('warning:'))).toHaveLength(1);
    }
  );
});

describe('OperationTracker.stalest', () => {
  it('picks the ids the API answered for longest ago, those never answered for first', () => {
    const ops = [0, 1, 2, 3].map(() => makeOperation({ status: 'running' }));
    const { tracker, advance } = setup(ops);
    const [a, b, c, d] = ops.map((o) => o.id) as [string, string, string, string];
    tracker.record(ops[2]!);
    advance(1000);
    tracker.record(ops[0]!);
    advance(1000);
    tracker.record(ops[1]!);
    expect(tracker.stalest([a, b, c, d], 2)).toEqual([d, c]);
    expect(tracker.stalest([a, b], 5)).toEqual([a, b]);
  });
});
