import { describe, expect, it } from '@jest/globals';
import { actionName, operationDurationMs, statusCounts, utc } from '../src/report/display.js';
import type { Operation, UnseenOperation } from '../src/neon/operation.js';
import { makeOperation } from './helpers/builders.js';
import { officialEnum } from './helpers/openapi.js';
import { statusLabel, statusMarker } from '../src/wait/status.js';

/** The action enum of the official OpenAPI document (API v2) shipped in `@neondatabase/api-client`. */
const OFFICIAL_ACTIONS = officialEnum('OperationAction');

/** What each official action reads as in the summary. */
const NAMES: Record<string, string> = {
  create_compute: 'Create compute',
  create_timeline: 'Create timeline',
  start_compute: 'Start compute',
  suspend_compute: 'Suspend compute',
  apply_config: 'Apply config',
  check_availability: 'Check availability',
  delete_timeline: 'Delete timeline',
  create_branch: 'Create branch',
  import_data: 'Import data',
  tenant_ignore: 'Tenant ignore',
  tenant_attach: 'Tenant attach',
  tenant_detach: 'Tenant detach',
  tenant_reattach: 'Tenant reattach',
  replace_safekeeper: 'Replace safekeeper',
  disable_maintenance: 'Disable maintenance',
  apply_storage_config: 'Apply storage config',
  prepare_secondary_pageserver: 'Prepare secondary pageserver',
  switch_pageserver: 'Switch pageserver',
  detach_parent_branch: 'Detach parent branch',
  timeline_archive: 'Timeline archive',
  timeline_unarchive: 'Timeline unarchive',
  start_reserved_compute: 'Start reserved compute',
  sync_dbs_and_roles_from_compute: 'Sync databases and roles from compute',
  apply_schema_from_branch: 'Apply schema from branch',
  timeline_mark_invisible: 'Mark timeline invisible',
  timeline_update_protected_config: 'Update timeline protection',
  prewarm_replica: 'Prewarm replica',
  promote_replica: 'Promote replica',
  set_storage_non_dirty: 'Set storage non dirty',
  swap_binding_id: 'Swap binding id',
  finalize_migration: 'Finalize migration',
  mark_migration_prepared: 'Mark migration prepared',
  update_catalog: 'Update catalog'
};

const NOW = Date.parse('2026-01-02T03:04:05Z');

const op = (fields: Partial<Operation> = {}): Operation =>
  makeOperation({
    id: 'd8ac46eb-a757-42b1-9907-f78322ee394e',
    created_at: '2026-01-02T03:00:00Z',
    updated_at: '2026-01-02T03:00:02Z',
    ...fields
  });

describe('actionName', () => {
  it('knows every action of the official list', () => {
    expect(OFFICIAL_ACTIONS.length).toBeGreaterThan(20);
    expect(OFFICIAL_ACTIONS.filter((action) => !(action in NAMES))).toEqual([]);
  });

  it.each(Object.entries(NAMES))('reads %s as %j', (action, name) => {
    expect(actionName(action)).toBe(name);
  });

  it.each(OFFICIAL_ACTIONS)('writes %s as a plain sentence-case phrase', (action) => {
    const name = actionName(action);
    expect(name).toMatch(/^[A-Z][a-z ]+$/);
    expect(name).not.toContain('_');
  });

  it.each([
    ['future_thing', 'Future thing'],
    ['future-thing', 'Future thing'],
    ['__double__under__', 'Double under'],
    ['x', 'X'],
    ['', 'Operation'],
    ['___', 'Operation'],
    ['  ', 'Operation']
  ])('reads the unknown action %j as %j', (action, name) => {
    expect(actionName(action)).toBe(name);
  });

  // Action strings come from the API: one that happens to be a property of every object must not
  // pick up Object.prototype members from the lookup table.
  it.each([
    ['constructor', 'Constructor'],
    ['toString', 'ToString'],
    ['hasOwnProperty', 'HasOwnProperty'],
    ['__proto__', 'Proto']
  ])('reads the action %j like any other unknown one', (action, name) => {
    expect(actionName(action)).toBe(name);
  });
});

describe('utc', () => {
  it('writes UTC wall-clock time to the second', () => {
    expect(utc(Date.parse('2026-11-25T21:36:04.789Z'))).toBe('2026-11-25 21:36:04 UTC');
  });

  it('does not depend on the offset the time was given in', () => {
    expect(utc(Date.parse('2026-01-02T05:04:05+02:00'))).toBe('2026-01-02 03:04:05 UTC');
  });

  it('writes nothing for NaN', () => {
    expect(utc(Number.NaN)).toBe('');
  });
});

describe('utc date and time of day', () => {
  it('split a time into its UTC date and time of day', () => {
    const ms = Date.parse('2026-11-25T23:36:04.789-02:00');
    expect(utc(ms, 'date')).toBe('2026-11-26');
    expect(utc(ms, 'time')).toBe('01:36:04');
  });

  it('write nothing for a time a Date cannot hold', () => {
    for (const ms of [Number.NaN, 9e15]) {
      expect(utc(ms, 'date')).toBe('');
      expect(utc(ms, 'time')).toBe('');
    }
  });
});

describe('statusMarker and statusLabel', () => {
  // The wait's own statuses, and the API's, each with its mark; the summary's heading starts with it.
  it.each([
    ['finished', '✅', 'finished'],
    ['skipped', '⏭️', 'skipped'],
    ['idle', '✅', 'idle'],
    ['busy', '⏳', 'busy (work in progress)'],
    ['running', '⏳', 'running'],
    ['scheduling', '🕓', 'scheduling'],
    ['cancelling', '⏳', 'cancelling'],
    ['failed', '⚠️', 'failed'],
    ['error', '❌', 'error'],
    ['cancelled', '🚫', 'cancelled'],
    ['timeout', '⌛', 'timed out'],
    ['aborted', '🛑', 'interrupted'],
    ['api_error', '❌', 'API error'],
    ['input_error', '❌', 'input error'],
    ['database_error', '❌', 'database error'],
    ['not seen', '❔', 'not seen'],
    ['something new', '❔', 'something new']
  ])('marks %s with %s and reads it as %j', (status, marker, label) => {
    expect(statusMarker(status)).toBe(marker);
    expect(statusLabel(status)).toBe(label);
  });

  // Statuses come from the API: one named like an Object.prototype member must find nothing.
  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])(
    'marks the unknown status %j with a question mark and reads it as it is',
    (status) => {
      expect(statusMarker(status)).toBe('❔');
      expect(statusLabel(status)).toBe(status);
    }
  );
});

describe('statusCounts', () => {
  it('puts the most common status first', () => {
    const ops = [
      op({ status: 'error' }),
      op({ status: 'finished' }),
      op({ status: 'running' }),
      op({ status: 'finished' }),
      op({ status: 'running' }),
      op({ status: 'finished' })
    ];
    expect(statusCounts(ops)).toBe('3 finished · 2 running · 1 error');
  });

  it('keeps first-seen order between equal counts', () => {
    const ops = [op({ status: 'running' }), op({ status: 'error' }), op({ status: 'finished' })];
    expect(statusCounts(ops)).toBe('1 running · 1 error · 1 finished');
  });

  it('counts operations without a status as not seen', () => {
    const unseen: UnseenOperation = { id: 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee' };
    expect(statusCounts([unseen, op(), unseen])).toBe('2 not seen · 1 finished');
  });

  it('is empty for no operations', () => {
    expect(statusCounts([])).toBe('');
  });
});

describe('operationDurationMs', () => {
  // The service's total_duration_ms is not wall time (0 while running, 200 ms for a 2 s span).
  it('takes the timestamps, not total_duration_ms, for an ended operation', () => {
    expect(operationDurationMs(op({ total_duration_ms: 200 }), NOW)).toBe(2000);
  });

  it('counts a running operation whose total_duration_ms is 0 up to now', () => {
    const running = op({ status: 'running', total_duration_ms: 0 });
    expect(operationDurationMs(running, NOW)).toBe(NOW - Date.parse(running.created_at));
    expect(operationDurationMs(running, NOW)).toBeGreaterThan(30_000);
  });

  it('ignores a negative or non-numeric total_duration_ms', () => {
    expect(operationDurationMs(op({ total_duration_ms: -5 }), NOW)).toBe(2000);
    expect(operationDurationMs(op({ total_duration_ms: '7' as unknown as number }), NOW)).toBe(
      2000
    );
  });

  it('takes updated_at minus created_at for an ended operation', () => {
    expect(operationDurationMs(op(), NOW)).toBe(2000);
    expect(operationDurationMs(op({ status: 'error' }), NOW)).toBe(2000);
    expect(operationDurationMs(op({ status: 'cancelled' }), NOW)).toBe(2000);
  });

  it.each(['running', 'scheduling', 'cancelling', 'failed'])(
    'runs a %s operation to now',
    (status) => {
      expect(operationDurationMs(op({ status }), NOW)).toBe(245_000);
    }
  );

  it('never gives a negative duration', () => {
    expect(operationDurationMs(op({ updated_at: '2026-01-02T02:59:00Z' }), NOW) as number).toBe(0);
    expect(
      operationDurationMs(op({ status: 'running', created_at: '2026-01-02T04:00:00Z' }), NOW)
    ).toBe(0);
  });

  it.each([
    ['a bad created_at', { created_at: 'yesterday-ish' }],
    ['a missing created_at', { created_at: undefined as unknown as string }],
    ['a bad updated_at', { updated_at: 'not a date' }],
    ['an empty updated_at', { updated_at: '' }]
  ])('gives undefined for %s', (_name, fields) => {
    expect(operationDurationMs(op(fields), NOW)).toBeUndefined();
  });

  it('still runs an in-progress operation to now when only updated_at is bad', () => {
    expect(operationDurationMs(op({ status: 'running', updated_at: 'nope' }), NOW)).toBe(245_000);
  });
});
