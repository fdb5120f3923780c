import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { DESTRUCTIVE_DROPS, readSchemaDiff } from '../src/database/schema-diff.js';
import { SCHEMA_OBJECT_KINDS, type SchemaObjectKind } from '../src/database/dump-reader.js';
import { compareColumnTypes } from '../src/database/column-types.js';
import { readUnifiedDiff } from '../src/database/unified-diff.js';
import {
  ADD_TABLE_AND_INDEX,
  DROP_COLUMN_AND_TABLE,
  DROPPED_OBJECTS,
  NARROWED_COLUMNS,
  schemaDiffOf
} from '../simulator/schema-diffs.js';

describe('readSchemaDiff on migrations', () => {
  it('reads a migration that adds a table with its index: counts, nothing destructive', () => {
    const read = readSchemaDiff(ADD_TABLE_AND_INDEX);
    expect(read.changed).toBe(true);
    expect(read.counts).toEqual({
      table: { added: 1, removed: 0, changed: 0 },
      sequence: { added: 1, removed: 0, changed: 0 },
      constraint: { added: 2, removed: 0, changed: 0 },
      index: { added: 1, removed: 0, changed: 0 }
    });
    expect(read.destructive).toEqual([]);
  });

  it('names a dropped column and a dropped table, not what goes with the table', () => {
    const read = readSchemaDiff(DROP_COLUMN_AND_TABLE);
    expect(read.destructive).toEqual([
      { action: 'drops', kind: 'table', name: 'posts' },
      { action: 'drops', kind: 'column', name: 'users.name' }
    ]);
    expect(read.counts).toEqual({
      table: { added: 0, removed: 1, changed: 1 },
      column: { added: 0, removed: 1, changed: 0 },
      sequence: { added: 0, removed: 1, changed: 0 },
      constraint: { added: 0, removed: 2, changed: 0 },
      index: { added: 0, removed: 1, changed: 0 }
    });
  });

  it('names narrowed and retyped columns with both types; a widened one is a change only', () => {
    const read = readSchemaDiff(NARROWED_COLUMNS);
    expect(read.counts).toEqual({
      table: { added: 0, removed: 0, changed: 1 },
      column: { added: 0, removed: 0, changed: 5 }
    });
    expect(read.destructive).toEqual([
      { action: 'narrows', kind: 'column', name: 'users.id', from: 'bigint', to: 'integer' },
      {
        action: 'narrows',
        kind: 'column',
        name: 'users.email',
        from: 'character varying(255)',
        to: 'character varying(50)'
      },
      {
        action: 'narrows',
        kind: 'column',
        name: 'users.name',
        from: 'text',
        to: 'character varying(100)'
      },
      {
        action: 'narrows',
        kind: 'column',
        name: 'users.balance',
        from: 'numeric(12,2)',
        to: 'numeric(8,2)'
      }
    ]);
  });

  it('names a dropped constraint, function, trigger, unique index, view and enum value; not a plain index', () => {
    const read = readSchemaDiff(DROPPED_OBJECTS);
    expect(read.destructive).toEqual([
      { action: 'drops', kind: 'view', name: 'active_users' },
      { action: 'drops', kind: 'index', name: 'users_lower_email_idx', on: 'users', unique: true },
      { action: 'drops', kind: 'constraint', name: 'users_email_key', on: 'users' },
      { action: 'drops', kind: 'function', name: 'set_updated_at' },
      { action: 'removes a value from', kind: 'type', name: 'mood', from: 'ok' },
      { action: 'drops', kind: 'trigger', name: 'users_set_updated_at', on: 'users' }
    ]);
    expect(read.counts).toEqual({
      type: { added: 0, removed: 0, changed: 1 },
      function: { added: 0, removed: 1, changed: 0 },
      view: { added: 0, removed: 1, changed: 0 },
      constraint: { added: 0, removed: 1, changed: 0 },
      index: { added: 0, removed: 2, changed: 0 },
      trigger: { added: 0, removed: 1, changed: 0 }
    });
  });

  it("reads a column added to a short table, in the shape of Neon's documented answer", () => {
    // Neon's schema diff guide ("Using the Neon API") shows this shape: the new column after the
    // old last one, which gains a comma.
    const diff = [
      '--- a/neondb',
      '+++ b/neondb',
      '@@ -31,7 +31,8 @@',
      ' CREATE TABLE public.readings (',
      '     id integer NOT NULL,',
      '     label text NOT NULL,',
      '-    reading double precision',
      '+    reading double precision,',
      '+    taken_at timestamp with time zone DEFAULT now()',
      ' );',
      ' ',
      ' '
    ].join('\n');
    expect(readSchemaDiff(diff)).toEqual({
      changed: true,
      lines: { added: 2, removed: 1 },
      counts: {
        table: { added: 0, removed: 0, changed: 1 },
        column: { added: 1, removed: 0, changed: 0 }
      },
      destructive: []
    });
  });

  it('reads one object going and another coming where the diff aligns their comment lines', () => {
    // As in Neon's API reference example: an extension the base has, a schema only the branch has,
    // their `--` lines shared; the hunk cut short of what its header counts.
    const diff = [
      '--- a/neondb',
      '+++ b/neondb',
      '@@ -18,40 +18,90 @@',
      ' SET row_security = off;',
      ' ',
      ' --',
      '--- Name: pgcrypto; Type: EXTENSION; Schema: -; Owner: -',
      '+-- Name: billing; Type: SCHEMA; Schema: -; Owner: neondb_owner',
      ' --',
      ' ',
      '-CREATE EXTENSION IF NOT EXISTS pgcrypto WITH SCHEMA public;',
      '+CREATE SCHEMA billing;',
      ' ',
      ' ',
      '+ALTER SCHEMA billing OWNER TO neondb_owner;',
      '+'
    ].join('\n');
    const read = readSchemaDiff(diff);
    expect(read.counts).toEqual({
      schema: { added: 1, removed: 0, changed: 0 },
      extension: { added: 0, removed: 1, changed: 0 }
    });
    expect(read.destructive).toEqual([{ action: 'drops', kind: 'extension', name: 'pgcrypto' }]);
  });
});

describe('readSchemaDiff on changes inside objects', () => {
  it('names a CHECK constraint dropped from inside its table; one changed is a change', () => {
    const read = readSchemaDiff(
      schemaDiffOf([
        ' CREATE TABLE public.accounts (',
        '     id bigint NOT NULL,',
        '     balance numeric(12,2) NOT NULL,',
        '-    limit_cents integer,',
        '-    CONSTRAINT positive_balance CHECK ((balance >= (0)::numeric)),',
        '-    CONSTRAINT sane_limit CHECK ((limit_cents < 100000))',
        '+    CONSTRAINT positive_balance CHECK ((balance > (0)::numeric))',
        ' );'
      ])
    );
    expect(read.destructive).toEqual([
      { action: 'drops', kind: 'column', name: 'accounts.limit_cents' },
      { action: 'drops', kind: 'constraint', name: 'sane_limit', on: 'accounts' }
    ]);
    expect(read.counts).toEqual({
      table: { added: 0, removed: 0, changed: 1 },
      column: { added: 0, removed: 1, changed: 0 },
      constraint: { added: 0, removed: 1, changed: 1 }
    });
  });

  it('counts an index whose definition changed as changed, not dropped', () => {
    const read = readSchemaDiff(
      schemaDiffOf([
        ' -- Name: users_email_idx; Type: INDEX; Schema: public; Owner: neondb_owner',
        ' --',
        ' ',
        '-CREATE UNIQUE INDEX users_email_idx ON public.users USING btree (email);',
        '+CREATE UNIQUE INDEX users_email_idx ON public.users USING btree (lower((email)::text));',
        ' ',
        ' '
      ])
    );
    expect(read.counts).toEqual({ index: { added: 0, removed: 0, changed: 1 } });
    expect(read.destructive).toEqual([]);
  });

  it('reads a NOT NULL or a default added to a column as a change, not destructive', () => {
    const read = readSchemaDiff(
      schemaDiffOf([
        ' CREATE TABLE public.users (',
        '-    email text,',
        '+    email text NOT NULL,',
        '-    plan text',
        "+    plan text DEFAULT 'free'::text",
        ' );'
      ])
    );
    expect(read.counts.column).toEqual({ added: 0, removed: 0, changed: 2 });
    expect(read.destructive).toEqual([]);
  });
});

describe('readSchemaDiff where the diff hides the table', () => {
  /** A column dropped deep in a long table: three lines of context show no CREATE TABLE line. */
  const deep = (after: string[]) =>
    schemaDiffOf(
      [
        '     plan text,',
        '     seats integer,',
        '     trial_ends_at date,',
        '-    legacy_code character varying(12),',
        '     notes text',
        ' );',
        ...after
      ],
      120
    );

  it('names the column alone when its table is outside the context', () => {
    const read = readSchemaDiff(deep([' ']));
    expect(read.destructive).toEqual([
      { action: 'drops', kind: 'column', name: 'legacy_code', tableUnknown: true }
    ]);
    expect(read.counts.column).toEqual({ added: 0, removed: 1, changed: 0 });
  });

  it('takes the table from the `ALTER TABLE … OWNER TO` line pg_dump writes after it, when shown', () => {
    const read = readSchemaDiff(
      deep([' ', ' ', ' ALTER TABLE public.accounts OWNER TO neondb_owner;'])
    );
    expect(read.destructive).toEqual([
      { action: 'drops', kind: 'column', name: 'accounts.legacy_code' }
    ]);
  });

  it('does not take the lines of a function body for columns', () => {
    const read = readSchemaDiff(
      schemaDiffOf([
        ' DECLARE',
        '     total integer := 0;',
        ' BEGIN',
        '-    RETURN total;',
        '+    RETURN total + 1;',
        ' END;',
        ' $$;'
      ])
    );
    expect(read.destructive).toEqual([]);
    expect(read.counts).toEqual({ other: { added: 0, removed: 0, changed: 1 } });
  });

  it('counts a function whose body changed as changed, by its CREATE line', () => {
    const read = readSchemaDiff(
      schemaDiffOf([
        ' CREATE FUNCTION public.set_updated_at() RETURNS trigger',
        '     LANGUAGE plpgsql',
        '     AS $$',
        ' BEGIN',
        '-  NEW.updated_at = now();',
        '+  NEW.updated_at = clock_timestamp();',
        '   RETURN NEW;',
        ' END;',
        ' $$;'
      ])
    );
    expect(read.counts).toEqual({ function: { added: 0, removed: 0, changed: 1 } });
    expect(read.destructive).toEqual([]);
  });
});

describe('readSchemaDiff on odd input', () => {
  it.each([
    ['an empty answer', ''],
    ['only the file header', '--- a/neondb\n+++ b/neondb\n'],
    ['text that is no diff', 'ERROR: something went wrong\n<html>'],
    ['a hunk of context only', schemaDiffOf([' SET x = 1;', ' '])]
  ])('%s: no change', (_, diff) => {
    expect(readSchemaDiff(diff)).toEqual({
      changed: false,
      lines: { added: 0, removed: 0 },
      counts: {},
      destructive: []
    });
  });

  it('reads CRLF and CR line endings, and a last line without a newline, as LF', () => {
    const expected = readSchemaDiff(DROP_COLUMN_AND_TABLE);
    expect(readSchemaDiff(DROP_COLUMN_AND_TABLE.replace(/\n/g, '\r\n'))).toEqual(expected);
    expect(readSchemaDiff(DROP_COLUMN_AND_TABLE.replace(/\n/g, '\r'))).toEqual(expected);
    expect(readSchemaDiff(DROP_COLUMN_AND_TABLE.trimEnd())).toEqual(expected);
  });

  it('skips `\\ No newline at end of file` and stops a hunk shorter than its header says', () => {
    const diff = [
      '--- a/neondb',
      '+++ b/neondb',
      '@@ -1,3 +1,3 @@',
      ' CREATE TABLE public.t (',
      '-    a integer',
      '\\ No newline at end of file',
      '+    a bigint',
      'trailing text after the hunk'
    ].join('\n');
    expect(readSchemaDiff(diff)).toEqual({
      changed: true,
      lines: { added: 1, removed: 1 },
      counts: {
        table: { added: 0, removed: 0, changed: 1 },
        column: { added: 0, removed: 0, changed: 1 }
      },
      destructive: []
    });
  });

  it('never takes a removed `-- Name:` comment (`--- Name:`) for a file header', () => {
    const hunks = readUnifiedDiff(DROP_COLUMN_AND_TABLE);
    expect(hunks[0]?.lines[3]).toEqual({
      op: '-',
      text: '-- Name: posts; Type: TABLE; Schema: public; Owner: neondb_owner'
    });
  });

  it('reads a 5 MB diff of 20,000 dropped tables, each named', () => {
    const lines: string[] = [];
    for (let i = 0; i < 20_000; i++)
      lines.push(
        '---',
        `--- Name: t${i}; Type: TABLE; Schema: public; Owner: o`,
        '---',
        '-',
        `-CREATE TABLE public.t${i} (`,
        `-    c${i} text`,
        '-);'
      );
    const diff = schemaDiffOf(lines).padEnd(5_000_000, '\n');
    const read = readSchemaDiff(diff);
    expect(read.counts).toEqual({ table: { added: 0, removed: 20_000, changed: 0 } });
    expect(read.destructive).toHaveLength(20_000);
    expect(read.destructive[19_999]).toEqual({ action: 'drops', kind: 'table', name: 't19999' });
  });
});

describe('compareColumnTypes', () => {
  it.each([
    ['character varying(255)', 'character varying(50)', 'narrowed'],
    ['character varying(50)', 'character varying(255)', 'widened'],
    ['character varying(50)', 'text', 'widened'],
    ['text', 'character varying(50)', 'narrowed'],
    ['character varying', 'character varying(10)', 'narrowed'],
    ['bigint', 'integer', 'narrowed'],
    ['smallint', 'bigint', 'widened'],
    ['integer', 'numeric', 'widened'],
    ['bigint', 'numeric(10,0)', 'narrowed'],
    ['numeric(12,2)', 'numeric(8,2)', 'narrowed'],
    ['numeric(12,2)', 'numeric(12,1)', 'narrowed'],
    ['numeric(12,2)', 'numeric(14,3)', 'widened'],
    ['numeric', 'numeric(10,2)', 'narrowed'],
    ['numeric(10,2)', 'integer', 'narrowed'],
    ['double precision', 'real', 'narrowed'],
    ['real', 'double precision', 'widened'],
    ['timestamp with time zone', 'date', 'narrowed'],
    ['timestamp(6) with time zone', 'timestamp(3) with time zone', 'narrowed'],
    ['timestamp(3) without time zone', 'timestamp without time zone', 'widened'],
    ['text', 'integer', 'changed'],
    ['integer[]', 'integer', 'changed'],
    ['jsonb', 'text', 'widened'],
    ['int4', 'integer', 'same'],
    ['VARCHAR(20)', 'character varying(20)', 'same']
  ])('%s → %s: %s', (from, to, expected) => expect(compareColumnTypes(from, to)).toBe(expected));
});

describe('docs/schema-review.md', () => {
  const doc = readFileSync(new URL('../docs/schema-review.md', import.meta.url), 'utf8');
  const rows = [...doc.matchAll(/^\| ([a-z ]+?) +\| (yes|no|unique ones only) +\|/gm)].map(
    ([, kind, named]) => [kind, named]
  );
  const namedWhenDropped = (kind: SchemaObjectKind): string =>
    DESTRUCTIVE_DROPS.has(kind) ? 'yes' : kind === 'index' ? 'unique ones only' : 'no';

  it('lists every kind the review counts, in its order, with whether its drop is named', () => {
    expect(rows).toEqual(SCHEMA_OBJECT_KINDS.map((kind) => [kind, namedWhenDropped(kind)]));
  });
});
