/**
 * What a schema diff changes and what it destroys, read from the unified diff Neon's
 * `compare_schema` answers: a diff of two pg_dump dumps (`--- a/neondb`, `+++ b/neondb`), where each
 * object is a block that starts with a `-- Name: …; Type: …; Schema: …` comment. Objects are told
 * apart by those comments, or by their `CREATE` line where the comment is outside the diff's
 * context; columns and enum values by their lines inside a `CREATE TABLE` / `CREATE TYPE` block.
 * What counts as destructive is listed in docs/schema-review.md.
 */
import { readUnifiedDiff } from './unified-diff.js';
import { compareColumnTypes } from './column-types.js';
import {
  type ColumnLine,
  type EnumLine,
  type Facts,
  readSide,
  SCHEMA_OBJECT_KINDS,
  type SchemaObjectKind,
  type Sighting
} from './dump-reader.js';

export interface ChangeCount {
  added: number;
  removed: number;
  changed: number;
}

/** A change that loses data or breaks what uses the schema. Names are as pg_dump writes them, `public.` left out. */
export interface DestructiveChange {
  action: 'drops' | 'narrows' | 'changes the type of' | 'removes a value from';
  kind: SchemaObjectKind;
  /** `users`, `users.email`; a column whose table is outside the diff's context: `email`. */
  name: string;
  /** A constraint's, index's, trigger's or policy's table. */
  on?: string;
  /** A unique index (its drop ends a uniqueness guarantee). */
  unique?: boolean;
  /** A column's types before and after; the enum value removed (`from`). */
  from?: string;
  to?: string;
  /** A column seen without its table (the table's `CREATE` line is outside the diff's context). */
  tableUnknown?: boolean;
}

export interface SchemaDiff {
  /** Whether the diff adds or removes any line. */
  changed: boolean;
  lines: { added: number; removed: number };
  /** Objects added, removed or changed, by kind; kinds without a change left out. */
  counts: Partial<Record<SchemaObjectKind, ChangeCount>>;
  destructive: DestructiveChange[];
}

/** Kinds whose drop is destructive (an index only when unique; a column's is read by `readColumns`). */
export const DESTRUCTIVE_DROPS = new Set<SchemaObjectKind>([
  'schema',
  'extension',
  'table',
  'column',
  'view',
  'materialized view',
  'constraint',
  'sequence',
  'function',
  'type',
  'trigger'
]);

/** The review's reading of a `compare_schema` diff. Never throws: unreadable parts count as `other`. */
export function readSchemaDiff(diff: string): SchemaDiff {
  const hunks = readUnifiedDiff(diff);
  const facts: Facts = { sightings: [], columns: [], enumValues: [] };
  let added = 0;
  let removed = 0;
  hunks.forEach((hunk, index) => {
    added += hunk.lines.filter((l) => l.op === '+').length;
    removed += hunk.lines.filter((l) => l.op === '-').length;
    readSide(hunk.lines, 'old', index, facts);
    readSide(hunk.lines, 'new', index, facts);
  });
  return { changed: added + removed > 0, lines: { added, removed }, ...conclude(facts) };
}

// ---------------------------------------------------------------------------------------------
// The sightings of both sides, to counts and destructive changes
// ---------------------------------------------------------------------------------------------

function conclude(facts: Facts): Pick<SchemaDiff, 'counts' | 'destructive'> {
  const counts: Partial<Record<SchemaObjectKind, ChangeCount>> = {};
  const count: Count = (kind, how, times = 1) => {
    const entry = (counts[kind] ??= { added: 0, removed: 0, changed: 0 });
    entry[how] += times;
  };
  const destructive: DestructiveChange[] = [];
  const byKey = new Map<string, Sighting[]>();
  for (const s of facts.sightings) {
    const list = byKey.get(s.key);
    if (list) list.push(s);
    else byKey.set(s.key, [s]);
  }
  const statusOf = (key: string) => status(byKey.get(key) ?? []);
  const wholeTable = (table: string | undefined): boolean => {
    const how = table === undefined ? undefined : statusOf(`table:${table}`);
    return how === 'added' || how === 'removed';
  };

  const columns = readColumns(facts.columns, wholeTable, count, destructive);
  const wholeType = (type: string) => ['added', 'removed'].includes(statusOf(`type:${type}`) ?? '');
  const types = readEnumValues(facts.enumValues, wholeType, destructive);
  for (const list of byKey.values()) {
    const how = status(list);
    // The sightings of one object, the one naming its table first (a sequence's `OWNED BY` names it).
    const first = list.find((s) => s.table) ?? list[0];
    if (!how || !first) continue;
    if (first.kind === 'default') {
      // A column's default: a change of that column, unless its table or the column itself came or went.
      const column = first.name.replace(' ', '.');
      if (!wholeTable(first.table) && !columns.comeOrGone.has(column)) count('column', 'changed');
      continue;
    }
    count(first.kind, how);
    if (first.kind === 'table') columns.tables.delete(first.name);
    if (first.kind === 'type') types.delete(first.name);
    const unique = list.some((s) => s.unique);
    const destroys = DESTRUCTIVE_DROPS.has(first.kind) || (first.kind === 'index' && unique);
    // What goes with a dropped table (its constraints, indexes, triggers) is named by the table.
    const withTable = first.kind !== 'table' && wholeTable(first.table);
    if (how === 'removed' && destroys && !withTable) destructive.push(dropOf(first, unique));
  }
  // Tables and types changed only by their column or value lines, their CREATE line out of view.
  if (columns.tables.size) count('table', 'changed', columns.tables.size);
  if (types.size) count('type', 'changed', types.size);
  // Whole objects first, in the order of the kinds; then their parts.
  const rank = (d: DestructiveChange) => SCHEMA_OBJECT_KINDS.indexOf(d.kind);
  destructive.sort((a, b) => rank(a) - rank(b));
  return { counts, destructive };
}

type Count = (kind: SchemaObjectKind, how: keyof ChangeCount, times?: number) => void;

function status(list: Sighting[]): keyof ChangeCount | undefined {
  const gone = list.some((s) => s.side === 'old' && s.defined);
  const come = list.some((s) => s.side === 'new' && s.defined);
  if (gone && !come) return 'removed';
  if (come && !gone) return 'added';
  return list.some((s) => s.touched) ? 'changed' : undefined;
}

/** `public.users` → `users`: the schema most dumps have is left out; others are kept. */
export const shortName = (qualified: string): string => qualified.replace(/^public\./, '');

function dropOf(s: Sighting, unique: boolean): DestructiveChange {
  const ofTable = s.table !== undefined && s.name.startsWith(`${s.table} `);
  return {
    action: 'drops',
    kind: s.kind === 'default' ? 'column' : s.kind,
    name: shortName(ofTable ? s.name.slice(`${s.table} `.length) : s.name),
    ...(s.table && s.kind !== 'sequence' && { on: shortName(s.table) }),
    ...(s.kind === 'index' && unique && { unique: true })
  };
}

/**
 * Columns added, dropped or changed in tables that stay. Returns the columns that came or went
 * (`public.users.email`) and the tables whose columns changed.
 */
function readColumns(
  lines: ColumnLine[],
  wholeTable: (table: string) => boolean,
  count: Count,
  destructive: DestructiveChange[]
): { comeOrGone: Set<string>; tables: Set<string> } {
  const comeOrGone = new Set<string>();
  const tables = new Set<string>();
  const byTable = new Map<
    string,
    { known: boolean; old: Map<string, string>; new: Map<string, string> }
  >();
  for (const line of lines) {
    if (wholeTable(line.table)) continue;
    const entry = byTable.get(line.table) ?? {
      known: line.tableKnown,
      old: new Map(),
      new: new Map()
    };
    entry[line.side].set(line.column, line.definition);
    byTable.set(line.table, entry);
  }
  for (const [table, { known, old, new: now }] of byTable) {
    const name = (column: string) => (known ? `${shortName(table)}.${column}` : column);
    const where = known ? {} : { tableUnknown: true };
    const changes = (column: string) => {
      tables.add(table);
      return `${table}.${column}`;
    };
    for (const [column, before] of old) {
      const after = now.get(column);
      if (after === before) continue; // only the comma after it moved
      if (after === undefined) {
        comeOrGone.add(changes(column));
        count('column', 'removed');
        destructive.push({ action: 'drops', kind: 'column', name: name(column), ...where });
        continue;
      }
      changes(column);
      count('column', 'changed');
      const [from, to] = [typeOf(before), typeOf(after)];
      const change = compareColumnTypes(from, to);
      if (change === 'narrowed' || change === 'changed') {
        const action = change === 'narrowed' ? 'narrows' : 'changes the type of';
        destructive.push({ action, kind: 'column', name: name(column), from, to, ...where });
      }
    }
    for (const column of now.keys())
      if (!old.has(column)) {
        comeOrGone.add(changes(column));
        count('column', 'added');
      }
  }
  return { comeOrGone, tables };
}

/** A column definition's type: what comes before COLLATE, DEFAULT, NOT NULL, GENERATED… */
function typeOf(definition: string): string {
  const [type = definition] = definition.split(
    / (?:COLLATE|DEFAULT|NOT NULL|NULL|GENERATED|CONSTRAINT|CHECK|REFERENCES|PRIMARY KEY|UNIQUE)\b/
  );
  return type.trim();
}

/** Values removed from an enum type (a value added is a change, not a loss); returns the types touched. */
function readEnumValues(
  lines: EnumLine[],
  wholeType: (type: string) => boolean,
  destructive: DestructiveChange[]
): Set<string> {
  const types = new Set(lines.map((l) => l.type).filter((type) => !wholeType(type)));
  for (const type of types) {
    const kept = new Set(
      lines.filter((l) => l.type === type && l.side === 'new').map((l) => l.value)
    );
    for (const line of lines)
      if (line.type === type && line.side === 'old' && !kept.has(line.value))
        destructive.push({
          action: 'removes a value from',
          kind: 'type',
          name: shortName(type),
          from: line.value
        });
  }
  return types;
}
