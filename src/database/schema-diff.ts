/**
 * What a schema diff changes and what it destroys, read from the unified diff Neon's
 * `compare_schema` answers: a diff of two pg_dump dumps (`--- a/neondb`, `+++ b/neondb`), where each
 * object is a block that starts with a `-- Name: …; Type: …; Schema: …` comment. Objects are told
 * apart by those comments, or by their `CREATE` line where the comment is outside the diff's
 * context; columns and enum values by their lines inside a `CREATE TABLE` / `CREATE TYPE` block.
 * What counts as destructive is listed in docs/schema-review.md.
 */
import { type DiffLine, readUnifiedDiff } from './unified-diff.js';
import { compareColumnTypes } from './column-types.js';

export const SCHEMA_OBJECT_KINDS = [
  'schema',
  'extension',
  'table',
  'column',
  'view',
  'materialized view',
  'index',
  'constraint',
  'sequence',
  'function',
  'type',
  'trigger',
  'policy',
  'other'
] as const;
export type SchemaObjectKind = (typeof SCHEMA_OBJECT_KINDS)[number];

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

/** pg_dump's `Type:` words, to the kinds counted. */
const DUMP_TYPES: Record<string, SchemaObjectKind | 'default'> = {
  SCHEMA: 'schema',
  EXTENSION: 'extension',
  TABLE: 'table',
  'FOREIGN TABLE': 'table',
  VIEW: 'view',
  'MATERIALIZED VIEW': 'materialized view',
  INDEX: 'index',
  CONSTRAINT: 'constraint',
  'FK CONSTRAINT': 'constraint',
  'CHECK CONSTRAINT': 'constraint',
  SEQUENCE: 'sequence',
  'SEQUENCE OWNED BY': 'sequence',
  FUNCTION: 'function',
  PROCEDURE: 'function',
  AGGREGATE: 'function',
  TYPE: 'type',
  DOMAIN: 'type',
  TRIGGER: 'trigger',
  'EVENT TRIGGER': 'trigger',
  POLICY: 'policy',
  DEFAULT: 'default'
};

/** Kinds whose drop is destructive (an index only when unique; `other` never). */
const DESTRUCTIVE_DROPS = new Set<SchemaObjectKind>([
  'schema',
  'extension',
  'table',
  'view',
  'materialized view',
  'constraint',
  'sequence',
  'function',
  'type',
  'trigger'
]);

type Side = 'old' | 'new';

/** One object as one side of one hunk shows it. */
interface Sighting {
  key: string;
  kind: SchemaObjectKind | 'default';
  /** Qualified name: `public.users`; `public.users users_pkey` for an object of a table. */
  name: string;
  table?: string;
  unique?: boolean;
  side: Side;
  /** The line that defines it (its `-- Name:` comment, else its `CREATE` line) is added or removed. */
  defined: boolean;
  touched: boolean;
}

interface ColumnLine {
  table: string;
  tableKnown: boolean;
  column: string;
  definition: string;
  side: Side;
}

interface EnumLine {
  type: string;
  value: string;
  side: Side;
}

interface Facts {
  sightings: Sighting[];
  columns: ColumnLine[];
  enumValues: EnumLine[];
}

const HEADER = /^-- Name: (.+?); Type: (.+?); Schema: (.+?); Owner: ?.*$/;

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
// One side of a hunk, line by line
// ---------------------------------------------------------------------------------------------

/** Where the walk is: the object being read and the block it is in. */
interface Place {
  sighting?: Sighting;
  /** Set by a `-- Name:` comment, until the next one: the statement below it is that object. */
  fromHeader: boolean;
  block?: 'columns' | 'enum' | 'constraint';
  /** `ALTER TABLE ONLY x` waiting for its `ADD CONSTRAINT` line. */
  alterTable?: string;
  /** Inside a dollar-quoted body (`AS $$ … $$`): its tag. */
  body?: string;
  /** Column lines seen before any statement (the hunk starts inside a table). */
  loose: Omit<ColumnLine, 'table' | 'tableKnown'>[];
}

function readSide(lines: DiffLine[], side: Side, hunk: number, facts: Facts): void {
  const shown = lines.filter((l) => l.op !== (side === 'old' ? '+' : '-'));
  const place: Place = { fromHeader: false, loose: [] };
  const see = (sighting: Omit<Sighting, 'side' | 'touched'>, changed: boolean): Sighting => {
    const seen: Sighting = { ...sighting, side, touched: changed };
    facts.sightings.push(seen);
    return seen;
  };
  shown.forEach((line, at) => {
    const changed = line.op !== ' ';
    const text = line.text;
    const header = HEADER.exec(text);
    if (header) {
      place.sighting = headerSighting(header, see, changed);
      place.fromHeader = true;
      place.block = undefined;
      place.body = undefined;
      return;
    }
    if (place.body !== undefined) {
      if (text.includes(place.body)) place.body = undefined;
      if (changed && place.sighting) place.sighting.touched = true;
      return;
    }
    if (/^\s*$/.test(text) || text.startsWith('--')) return;
    if (/^\S/.test(text) && !text.startsWith(')')) {
      readStatement(text, changed, place, see, hunk);
      return;
    }
    const placed = readInside(text, changed, place, side, facts);
    if (!placed && changed) place.sighting = see(otherLine(hunk, text), true);
    if (text.startsWith(')')) endBlock(place, side, nextStatement(shown, at + 1), hunk, facts);
  });
  // A table block still open at the hunk's end with loose columns: their table is unknown.
  endLoose(place, side, `?${hunk}`, false, facts);
}

function headerSighting(
  header: RegExpExecArray,
  see: (s: Omit<Sighting, 'side' | 'touched'>, changed: boolean) => Sighting,
  changed: boolean
): Sighting {
  const [, written = '', type = '', schema = ''] = header;
  const kind = DUMP_TYPES[type] ?? 'other';
  // A function's name comes with its argument types (`f(integer)`): read by name, as its CREATE line.
  const name = kind === 'function' ? written.replace(/\(.*$/, '') : written;
  const qualified = schema === '-' ? name : `${schema}.${name}`;
  const table = /^(\S+) /.exec(name)?.[1];
  const key = kind === 'other' ? `other:${type}:${qualified}` : `${kind}:${qualified}`;
  return see(
    { key, kind, name: qualified, ...(table && { table: `${schema}.${table}` }), defined: changed },
    changed
  );
}

/** A line at column 0: a statement starts. */
function readStatement(
  text: string,
  changed: boolean,
  place: Place,
  see: (s: Omit<Sighting, 'side' | 'touched'>, changed: boolean) => Sighting,
  hunk: number
): void {
  const statement = statementOf(text);
  // Lines that looked like columns but were not closed by `);` before a statement: not a table's.
  place.loose = [];
  place.alterTable = /^ALTER TABLE (?:ONLY )?(\S+)$/.exec(text)?.[1];
  place.block = statement.block;
  if (statement.body !== undefined) place.body = statement.body;
  if (place.sighting && place.fromHeader) {
    // The statement of the object the comment above named: it adds details, not another object.
    if (statement.table && !place.sighting.table) place.sighting.table = statement.table;
    if (statement.unique) place.sighting.unique = true;
    if (changed) place.sighting.touched = true;
    return;
  }
  if (statement.kind === 'other') {
    // A line the reader does not know (a body's `END;` seen without its start, a GRANT…).
    if (changed) place.sighting = see(otherLine(hunk, text), true);
    return;
  }
  const { kind, name, table, unique } = statement;
  place.sighting = see(
    {
      key: `${kind}:${name}`,
      kind,
      name,
      ...(table && { table }),
      ...(unique && { unique }),
      defined: changed
    },
    changed
  );
}

/** A changed line outside any object the reader knows: one `other` change per hunk. */
const otherLine = (hunk: number, text: string): Omit<Sighting, 'side' | 'touched'> => ({
  key: `other:${hunk}`,
  kind: 'other',
  name: text,
  defined: false
});

interface Statement {
  kind: SchemaObjectKind | 'default';
  name: string;
  table?: string;
  unique?: boolean;
  block?: Place['block'];
  body?: string;
}

/** The object a statement's first line creates, or `other`; names as pg_dump's comments write them (unquoted). */
function statementOf(text: string): Statement {
  const statement = createdBy(text);
  const table = statement.table === undefined ? {} : { table: unquote(statement.table) };
  return { ...statement, name: unquote(statement.name), ...table };
}

/** `public."Order"` → `public.Order`, `"a""b"` → `a"b`. */
const unquote = (name: string): string =>
  name.replace(/"((?:[^"]|"")*)"/g, (_, inner: string) => inner.replace(/""/g, '"'));

function createdBy(text: string): Statement {
  let m: RegExpExecArray | null;
  if ((m = /^CREATE (?:UNLOGGED |FOREIGN )?TABLE (\S+)/.exec(text)))
    return {
      kind: 'table',
      name: m[1] as string,
      block: text.endsWith('(') ? 'columns' : undefined
    };
  if ((m = /^CREATE (UNIQUE )?INDEX (\S+) ON (?:ONLY )?(\S+)/.exec(text))) {
    const table = m[3] as string;
    return { kind: 'index', name: `${schemaOf(table)}${m[2]}`, table, unique: Boolean(m[1]) };
  }
  if ((m = /^CREATE (?:OR REPLACE )?(?:FUNCTION|PROCEDURE|AGGREGATE) ([^(\s]+)/.exec(text)))
    return { kind: 'function', name: m[1] as string, body: dollarTag(text) };
  if ((m = /^CREATE MATERIALIZED VIEW (\S+)/.exec(text)))
    return { kind: 'materialized view', name: m[1] as string };
  if ((m = /^CREATE (?:OR REPLACE )?VIEW (\S+)/.exec(text)))
    return { kind: 'view', name: m[1] as string };
  if ((m = /^CREATE SEQUENCE (\S+)/.exec(text))) return { kind: 'sequence', name: m[1] as string };
  if ((m = /^CREATE TYPE (\S+) AS ENUM/.exec(text)))
    return { kind: 'type', name: m[1] as string, block: 'enum' };
  if ((m = /^CREATE (?:TYPE|DOMAIN) (\S+)/.exec(text)))
    return { kind: 'type', name: m[1] as string };
  if ((m = /^CREATE (?:CONSTRAINT )?TRIGGER (\S+) .* ON (\S+)/.exec(text))) {
    const table = m[2] as string;
    return { kind: 'trigger', name: `${table} ${m[1]}`, table };
  }
  if ((m = /^CREATE EXTENSION (?:IF NOT EXISTS )?(\S+?);?(?: |$)/.exec(text)))
    return { kind: 'extension', name: m[1] as string };
  if ((m = /^CREATE SCHEMA (\S+?);?$/.exec(text))) return { kind: 'schema', name: m[1] as string };
  if ((m = /^CREATE POLICY (\S+) ON (\S+)/.exec(text))) {
    const table = m[2] as string;
    return { kind: 'policy', name: `${table} ${m[1]}`, table };
  }
  if ((m = /^ALTER TABLE (?:ONLY )?(\S+) ALTER COLUMN (\S+) SET DEFAULT/.exec(text))) {
    const table = m[1] as string;
    return { kind: 'default', name: `${table} ${m[2]}`, table };
  }
  if ((m = /^ALTER TABLE (?:ONLY )?(\S+)$/.exec(text)))
    return { kind: 'other', name: m[1] as string, block: 'constraint' };
  if ((m = /^ALTER SEQUENCE (\S+) OWNED BY (\S+)\.[^.]+;$/.exec(text)))
    return { kind: 'sequence', name: m[1] as string, table: m[2] as string };
  return { kind: 'other', name: text };
}

/** `public.users` → `public.`, the schema an index shares with its table. */
const schemaOf = (qualified: string): string => /^(.+\.)[^.]+$/.exec(qualified)?.[1] ?? '';

/** The tag of a dollar-quoted body opened and not closed on this line (`AS $$`, `AS $_$`). */
function dollarTag(text: string): string | undefined {
  const tag = /\bAS (\$\w*\$)/.exec(text)?.[1];
  if (!tag) return undefined;
  const after = text.slice(text.indexOf(tag) + tag.length);
  return after.includes(tag) ? undefined : tag;
}

/** An indented line: a column, an enum value, a constraint, or a body line; false when it belongs to nothing seen. */
function readInside(
  text: string,
  changed: boolean,
  place: Place,
  side: Side,
  facts: Facts
): boolean {
  const sighting = place.sighting;
  if (place.block === 'constraint') {
    const m = /^\s+ADD CONSTRAINT (\S+) /.exec(text);
    const table = place.alterTable;
    if (m && sighting?.kind === 'constraint' && place.fromHeader) {
      if (changed) sighting.touched = true;
    } else if (m && table) {
      facts.sightings.push({
        key: `constraint:${table} ${m[1]}`,
        kind: 'constraint',
        name: `${table} ${m[1]}`,
        table,
        side,
        defined: changed,
        touched: changed
      });
    }
    return true;
  }
  if (!place.body) {
    const tag = dollarTag(text);
    if (tag) place.body = tag;
  }
  if (place.block === 'enum' && sighting) {
    const value = /^\s+'((?:[^']|'')*)',?$/.exec(text)?.[1];
    if (value !== undefined && changed) facts.enumValues.push({ type: sighting.name, value, side });
    if (changed) sighting.touched = true;
    return true;
  }
  const column = columnOf(text);
  if (place.block === 'columns' && sighting) {
    if (changed) sighting.touched = true;
    if (column && changed)
      facts.columns.push({ ...column, table: sighting.name, tableKnown: true, side });
    return true;
  }
  if (!sighting && column) {
    if (changed) place.loose.push({ ...column, side });
    return true;
  }
  if (changed && sighting) sighting.touched = true;
  return sighting !== undefined || text.startsWith(')');
}

/** A column's line in a `CREATE TABLE` block (`    email character varying(255) NOT NULL,`). */
function columnOf(text: string): { column: string; definition: string } | undefined {
  const m = /^ {4}("(?:[^"]|"")+"|[a-z_][\w$]*) (\S.*?),?$/i.exec(text);
  // A body's `x integer := 0;` ends with `;` or assigns; a column line never does.
  if (
    !m ||
    /;$|:=/.test(text) ||
    /^(CONSTRAINT|CHECK|PRIMARY|UNIQUE|FOREIGN|EXCLUDE|AS|START|INCREMENT|NO|CACHE|MINVALUE|MAXVALUE|CYCLE|OWNED)$/i.test(
      m[1] as string
    )
  )
    return undefined;
  const column = (m[1] as string).replace(/^"(.*)"$/, '$1').replace(/""/g, '"');
  return { column, definition: (m[2] as string).trim() };
}

/** The first line from `from` on that starts a statement (neither blank, nor a comment, nor indented). */
function nextStatement(lines: DiffLine[], from: number): string | undefined {
  for (let i = from; i < lines.length; i++) {
    const text = (lines[i] as DiffLine).text;
    if (/^\S/.test(text) && !text.startsWith('--')) return text;
  }
  return undefined;
}

/** `);` closes a table or type block; loose columns before it belong to a table named after it, if at all. */
function endBlock(
  place: Place,
  side: Side,
  next: string | undefined,
  hunk: number,
  facts: Facts
): void {
  place.block = undefined;
  if (place.loose.length === 0) return;
  // pg_dump follows a table with `ALTER TABLE x OWNER TO …` two blank lines below.
  const owner = next && /^ALTER TABLE (?:ONLY )?(\S+) OWNER TO /.exec(next)?.[1];
  const table = owner && unquote(owner);
  endLoose(place, side, table || `?${hunk}`, Boolean(table), facts);
}

function endLoose(
  place: Place,
  side: Side,
  table: string,
  tableKnown: boolean,
  facts: Facts
): void {
  for (const column of place.loose) facts.columns.push({ ...column, table, tableKnown, side });
  place.loose = [];
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
    if (!how) continue;
    // The sightings of one object, the one naming its table first (a sequence's `OWNED BY` names it).
    const first = list.find((s) => s.table) ?? (list[0] as Sighting);
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
