import { describe, expect, it } from '@jest/globals';
import { decodeMark, encodeMark, isAfterMark } from '../src/wait/job-mark.js';
import { makeOperation } from './helpers/builders.js';

describe('the job mark (service timestamps and ids, never the runner clock)', () => {
  const atMark = makeOperation({ created_at: '2026-01-02T03:04:05Z' });
  const mark = { projectId: 'p-1', createdAt: Date.parse(atMark.created_at), ids: [atMark.id] };

  it('counts an operation created after the newest one seen at the start', () => {
    expect(isAfterMark(makeOperation({ created_at: '2026-01-02T03:04:06Z' }), mark)).toBe(true);
    expect(isAfterMark(makeOperation({ created_at: '2026-01-02T03:04:04Z' }), mark)).toBe(false);
  });

  it('tells apart operations of the same second by id', () => {
    expect(isAfterMark(atMark, mark)).toBe(false);
    expect(isAfterMark(makeOperation({ created_at: atMark.created_at }), mark)).toBe(true);
  });

  it('never counts an operation that was there when the mark was taken, whatever its date', () => {
    const ahead = makeOperation({ created_at: '2026-01-02T04:04:05Z' });
    expect(isAfterMark(ahead, { ...mark, ids: [atMark.id, ahead.id] })).toBe(false);
  });

  it('counts everything for a project that had no operation at the start', () => {
    expect(
      isAfterMark(makeOperation({ created_at: '2000-01-01T00:00:00Z' }), {
        projectId: 'p-1',
        ids: []
      })
    ).toBe(true);
  });

  it('ignores an operation whose created_at cannot be read', () => {
    expect(isAfterMark(makeOperation({ created_at: 'soon' }), mark)).toBe(false);
  });

  it('survives the state file and refuses what is not a mark', () => {
    expect(decodeMark(encodeMark(mark))).toEqual(mark);
    expect(decodeMark('')).toBeUndefined();
    expect(decodeMark('{')).toBeUndefined();
    expect(decodeMark('{"ids":[]}')).toBeUndefined();
  });
});
