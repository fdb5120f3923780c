import { describe, expect, it } from '@jest/globals';
import { API_STATUSES, isInProgress, isKnownStatus } from '../src/neon/operation-status.js';
import {
  aggregateStatus,
  DEFAULT_POLICY,
  shownAs,
  STATUS_NAMES,
  statusRows,
  verdictOf,
  WAIT_STATUS
} from '../src/wait/status.js';
import { officialEnum } from './helpers/openapi.js';

/** The API's OperationStatus enum, as Neon's OpenAPI document lists it. */
const OFFICIAL = officialEnum('OperationStatus');

// status, without fail_fast, with fail_fast
const TABLE: Array<[string, string, string]> = [
  ['scheduling', 'pending', 'pending'],
  ['running', 'pending', 'pending'],
  ['finished', 'success', 'success'],
  ['failed', 'pending', 'failure'],
  ['error', 'failure', 'failure'],
  ['cancelling', 'pending', 'pending'],
  ['cancelled', 'failure', 'failure'],
  ['skipped', 'success', 'success'],
  ['some_new_status', 'pending', 'pending'],
  ['', 'pending', 'pending']
];

const FAIL_FAST = { ...DEFAULT_POLICY, failFast: true };

describe("the API's statuses (src/neon/operation-status.ts)", () => {
  it("are the OpenAPI document's OperationStatus enum, in its order", () => {
    expect(OFFICIAL.length).toBeGreaterThanOrEqual(8);
    expect([...API_STATUSES]).toEqual(OFFICIAL);
  });
});

describe('verdictOf', () => {
  it.each(TABLE)('%j is %s, and %s with fail_fast', (status, plain, failFast) => {
    expect(verdictOf(status, DEFAULT_POLICY)).toBe(plain);
    expect(verdictOf(status, FAIL_FAST)).toBe(failFast);
  });

  it('fails on exactly the final statuses fail_on lists', () => {
    const policy = { failOn: ['skipped'], failFast: false };
    expect(['skipped', 'cancelled', 'error'].map((s) => verdictOf(s, policy))).toEqual([
      'failure',
      'success',
      'success'
    ]);
    expect(['skipped', 'cancelled', 'error'].map((s) => shownAs(s, policy))).toEqual([
      'failure',
      'skipped',
      'skipped'
    ]);
  });

  it('covers every official status in the table above', () => {
    expect(TABLE.map(([status]) => status)).toEqual(expect.arrayContaining(OFFICIAL));
  });
});

describe('isKnownStatus', () => {
  it.each(OFFICIAL)('knows %s', (status) => expect(isKnownStatus(status)).toBe(true));

  it.each(['some_new_status', '', 'FINISHED', 'Running', ' finished', 'timeout'])(
    'does not know %j',
    (status) => expect(isKnownStatus(status)).toBe(false)
  );
});

describe('aggregateStatus', () => {
  it.each([
    [['finished'], 'finished'],
    [['skipped'], 'skipped'],
    [['skipped', 'skipped', 'skipped'], 'skipped'],
    [['skipped', 'finished'], 'finished'],
    [['finished', 'skipped'], 'finished'],
    [['failed', 'finished', 'skipped'], 'failed'],
    [['finished', 'cancelled', 'failed'], 'cancelled'],
    [['cancelled', 'error', 'failed'], 'error'],
    [['error', 'timeout', 'cancelled'], 'timeout'],
    [['finished', 'timeout'], 'timeout'],
    [['finished', 'running'], 'running'],
    [['scheduling', 'finished', 'skipped'], 'scheduling'],
    [['cancelling', 'finished'], 'cancelling'],
    [['running', 'failed'], 'failed'],
    [['running', 'error'], 'error']
  ])('%j gives %s', (statuses, expected) => {
    expect(aggregateStatus(statuses)).toBe(expected);
  });

  it('ranks timeout > error > cancelled > failed > finished > skipped whatever the order', () => {
    const ranked = ['timeout', 'error', 'cancelled', 'failed', 'finished', 'skipped'];
    for (let i = 0; i < ranked.length; i++) {
      const worst = ranked[i] as string;
      const rest = ranked.slice(i);
      expect(aggregateStatus(rest)).toBe(worst);
      expect(aggregateStatus([...rest].reverse())).toBe(worst);
    }
  });

  it('puts any in-progress status above finished and skipped', () => {
    for (const status of ['scheduling', 'running', 'cancelling']) {
      expect(aggregateStatus(['finished', status, 'skipped'])).toBe(status);
    }
  });
});

describe('the status table', () => {
  it("holds pending exactly the API's statuses in progress to the service", () => {
    for (const [status, row] of statusRows().filter(([name]) => isKnownStatus(name)))
      expect([status, row.verdict === 'pending']).toEqual([status, isInProgress(status)]);
  });

  it('agrees with the default policy on what fail_on decides', () => {
    const operations = statusRows().filter(([status]) => isKnownStatus(status));
    for (const [status, row] of operations)
      expect([status, row.verdict]).toEqual([status, verdictOf(status, DEFAULT_POLICY)]);
  });

  it('has a row for every status the API or the wait can give, and every row has every column', () => {
    expect(STATUS_NAMES).toEqual(
      expect.arrayContaining([...OFFICIAL, ...Object.values(WAIT_STATUS)])
    );
    for (const [status, row] of statusRows()) {
      expect([status, Object.keys(row)]).toEqual([
        status,
        expect.arrayContaining(['marker', 'rank', 'verdict'])
      ]);
      for (const value of Object.values(row)) expect([status, value]).not.toContainEqual('');
      expect([status, row.marker]).not.toEqual([status, '❔']);
    }
  });
});
