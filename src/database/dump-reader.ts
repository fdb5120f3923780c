/**
 * The lines of a schema diff, read one side of one hunk at a time (the old side: context and
 * removed lines; the new side: context and added lines), as pg_dump writes a dump: each object a
 * block under a `-- Name: …; Type: …; Schema: …` comment, then its statement; columns and enum
 * values one a line inside `CREATE TABLE … (` / `CREATE TYPE … AS ENUM (`; function bodies
 * dollar-quoted. What each side shows becomes sightings of objects, column lines and enum values;
 * `schema-diff.ts` sets the two sides against each other.
 */
import type { DiffLine } from './unified-diff.js';

/** The kinds of object the review counts, in the order it lists them (`other`: what it cannot place). */
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

/** The old side of a hunk is its context and removed lines; the new side, its context and added ones. */
export type Side = 'old' | 'new';

/** One object as one side of one hunk shows it. */
export interface Sighting {
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

/** A column's line, added or removed; `table` is `?n` (hunk n) when the diff does not show it. */
export interface ColumnLine {
  table: string;
  tableKnown: boolean;
  column: string;
  definition: string;
  side: Side;
}

/** An enum value's line, added or removed. */
export interface EnumLine {
  type: string;
  value: string;
  side: Side;
}

/** Everything both sides of every hunk showed. */
export interface Facts {
  sightings: Sighting[];
  columns: ColumnLine[];
  enumValues: EnumLine[];
}

const HEADER = /^-- Name: (.+?); Type: (.+?); Schema: (.+?); Owner: ?.*$/;

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

/** What one side of a hunk shows, added to `facts`; `hunk`: its index, to tell apart what cannot be named. */
export function readSide(lines: DiffLine[], side: Side, hunk: number, facts: Facts): void {
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

interface Statement extends Pick<Sighting, 'kind' | 'name' | 'table' | 'unique'> {
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

/**
 * The statements pg_dump starts at column 0, each with the object it makes from the pattern's
 * groups (a group left out is `''`). The first that matches wins; any other line is `other`.
 */
const STATEMENTS: Array<[RegExp, (groups: string[], text: string) => Statement]> = [
  [
    /^CREATE (?:UNLOGGED |FOREIGN )?TABLE (\S+)/,
    ([name = ''], text) => ({
      kind: 'table',
      name,
      ...(text.endsWith('(') && { block: 'columns' })
    })
  ],
  [
    /^CREATE (UNIQUE )?INDEX (\S+) ON (?:ONLY )?(\S+)/,
    ([unique, name, table = '']) => ({
      kind: 'index',
      name: `${schemaOf(table)}${name}`,
      table,
      unique: unique !== ''
    })
  ],
  [
    /^CREATE (?:OR REPLACE )?(?:FUNCTION|PROCEDURE|AGGREGATE) ([^(\s]+)/,
    ([name = ''], text) => ({ kind: 'function', name, body: dollarTag(text) })
  ],
  [/^CREATE MATERIALIZED VIEW (\S+)/, ([name = '']) => ({ kind: 'materialized view', name })],
  [/^CREATE (?:OR REPLACE )?VIEW (\S+)/, ([name = '']) => ({ kind: 'view', name })],
  [/^CREATE SEQUENCE (\S+)/, ([name = '']) => ({ kind: 'sequence', name })],
  [/^CREATE TYPE (\S+) AS ENUM/, ([name = '']) => ({ kind: 'type', name, block: 'enum' })],
  [/^CREATE (?:TYPE|DOMAIN) (\S+)/, ([name = '']) => ({ kind: 'type', name })],
  [
    /^CREATE (?:CONSTRAINT )?TRIGGER (\S+) .* ON (\S+)/,
    ([name, table = '']) => ({ kind: 'trigger', name: `${table} ${name}`, table })
  ],
  [
    /^CREATE EXTENSION (?:IF NOT EXISTS )?(\S+?);?(?: |$)/,
    ([name = '']) => ({ kind: 'extension', name })
  ],
  [/^CREATE SCHEMA (\S+?);?$/, ([name = '']) => ({ kind: 'schema', name })],
  [
    /^CREATE POLICY (\S+) ON (\S+)/,
    ([name, table = '']) => ({ kind: 'policy', name: `${table} ${name}`, table })
  ],
  [
    /^ALTER TABLE (?:ONLY )?(\S+) ALTER COLUMN (\S+) SET DEFAULT/,
    ([table = '', column]) => ({ kind: 'default', name: `${table} ${column}`, table })
  ],
  // `ALTER TABLE ONLY x` alone on its line: an `ADD CONSTRAINT` line follows.
  [
    /^ALTER TABLE (?:ONLY )?(\S+)$/,
    ([name = '']) => ({ kind: 'other', name, block: 'constraint' })
  ],
  [
    /^ALTER SEQUENCE (\S+) OWNED BY (\S+)\.[^.]+;$/,
    ([name = '', table = '']) => ({ kind: 'sequence', name, table })
  ]
];

function createdBy(text: string): Statement {
  for (const [pattern, make] of STATEMENTS) {
    const match = pattern.exec(text);
    if (match)
      return make(
        match.slice(1).map((group) => group ?? ''),
        text
      );
  }
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
    // pg_dump writes a CHECK constraint inside its table: `    CONSTRAINT name CHECK (…)`.
    const check = /^ {4}CONSTRAINT (\S+) /.exec(text)?.[1];
    if (check && changed) {
      const name = `${sighting.name} ${unquote(check)}`;
      const table = sighting.name;
      facts.sightings.push({
        key: `constraint:${name}`,
        kind: 'constraint',
        name,
        table,
        side,
        defined: true,
        touched: true
      });
    }
    return true;
  }
  if (!sighting && column) {
    if (changed) place.loose.push({ ...column, side });
    return true;
  }
  if (changed && sighting) sighting.touched = true;
  return sighting !== undefined || text.startsWith(')');
}

/** Words that start a line inside a block but name no column. */
const NOT_COLUMNS =
  /^(CONSTRAINT|CHECK|PRIMARY|UNIQUE|FOREIGN|EXCLUDE|AS|START|INCREMENT|NO|CACHE|MINVALUE|MAXVALUE|CYCLE|OWNED)$/i;

/** A column's line in a `CREATE TABLE` block (`    email character varying(255) NOT NULL,`). */
function columnOf(text: string): { column: string; definition: string } | undefined {
  // A body's `x integer := 0;` ends with `;` or assigns; a column line never does.
  if (/;$|:=/.test(text)) return undefined;
  const [, written = '', definition = ''] =
    /^ {4}("(?:[^"]|"")+"|[a-z_][\w$]*) (\S.*?),?$/i.exec(text) ?? [];
  if (!written || NOT_COLUMNS.test(written)) return undefined;
  return { column: unquote(written), definition: definition.trim() };
}

/** The first line from `from` on that starts a statement (neither blank, nor a comment, nor indented). */
function nextStatement(lines: DiffLine[], from: number): string | undefined {
  for (let i = from; i < lines.length; i++) {
    const text = lines[i]?.text ?? '';
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
