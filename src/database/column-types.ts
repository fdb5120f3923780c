/**
 * What a change of a column's type does to the values it holds, read from the type names pg_dump
 * writes (`character varying(255)`, `numeric(10,2)`, `timestamp(3) with time zone`, `text[]`).
 * `widened`: every value fits the new type unchanged; `narrowed`: the same kind of value with less
 * room (values may be cut or refused); `changed`: another kind of value (a conversion that may fail
 * or lose data, and clients read another type).
 */
export type TypeChange = 'same' | 'widened' | 'narrowed' | 'changed';

interface ColumnType {
  /** Canonical name without its modifiers: `character varying`, `numeric`, `integer`. */
  base: string;
  /** The modifiers in parentheses, as numbers: `[255]`, `[10, 2]`, `[3]`; none when unbounded. */
  size: number[];
  array: boolean;
}

const ALIASES: Record<string, string> = {
  int: 'integer',
  int4: 'integer',
  int8: 'bigint',
  int2: 'smallint',
  varchar: 'character varying',
  char: 'character',
  bpchar: 'character',
  float8: 'double precision',
  float4: 'real',
  decimal: 'numeric',
  bool: 'boolean',
  timestamptz: 'timestamp with time zone',
  timestamp: 'timestamp without time zone',
  timetz: 'time with time zone',
  time: 'time without time zone',
  varbit: 'bit varying'
};

/** Types whose modifier is a length or a precision: a smaller one holds less. */
const SIZED = new Set([
  'character varying',
  'character',
  'bit varying',
  'bit',
  'timestamp without time zone',
  'timestamp with time zone',
  'time without time zone',
  'time with time zone',
  'interval'
]);
/** What a precision-typed column holds when no modifier is written. */
const DEFAULT_PRECISION: Record<string, number> = {
  'timestamp without time zone': 6,
  'timestamp with time zone': 6,
  'time without time zone': 6,
  'time with time zone': 6,
  interval: 6
};

/** Integer types by range, and the decimal digits each needs. */
const INTEGER_RANK: Record<string, number> = { smallint: 1, integer: 2, bigint: 3 };
const INTEGER_DIGITS: Record<string, number> = { smallint: 5, integer: 10, bigint: 19 };
const FLOATS: Record<string, number> = { real: 1, 'double precision': 2 };
const TEXT_LIKE = new Set(['text', 'character varying', 'character']);
const TIMESTAMPS = new Set(['timestamp without time zone', 'timestamp with time zone']);

function readType(written: string): ColumnType {
  let text = written.trim().toLowerCase().replace(/\s+/g, ' ');
  const array = /(\[\d*\])+$/.test(text);
  text = text.replace(/(\[\d*\])+$/, '');
  const size = (/\(([^)]*)\)/.exec(text)?.[1] ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map(Number);
  const bare = text.replace(/\s*\([^)]*\)/, '').trim();
  const base = ALIASES[bare] ?? (bare.startsWith('pg_catalog.') ? bare.slice(11) : bare);
  return { base, size: size.some(Number.isNaN) ? [] : size, array };
}

/** Whether a column of type `from` keeps every value when it becomes `to`. */
export function compareColumnTypes(from: string, to: string): TypeChange {
  const [a, b] = [readType(from), readType(to)];
  if (a.array !== b.array) return 'changed';
  if (a.base === b.base && a.size.join() === b.size.join()) return 'same';
  if (b.base === 'text' || (b.base === 'character varying' && b.size.length === 0))
    return 'widened'; // every value has a text form, kept whole
  if (a.base === b.base) return compareSizes(a, b);
  if (TEXT_LIKE.has(a.base) && TEXT_LIKE.has(b.base)) return 'narrowed'; // to a bounded length
  return compareKinds(a, b);
}

/** The same type with other modifiers. */
function compareSizes(a: ColumnType, b: ColumnType): TypeChange {
  if (a.base === 'numeric') return compareNumeric(a.size, b.size);
  if (!SIZED.has(a.base)) return 'changed';
  const fallback = DEFAULT_PRECISION[a.base];
  const [from, to] = [a.size[0] ?? fallback, b.size[0] ?? fallback];
  if (to === undefined) return 'widened'; // unbounded now
  if (from === undefined) return 'narrowed';
  return to < from ? 'narrowed' : 'widened';
}

/** numeric(p,s): the digits before the point (p - s) and after it (s) must both still fit. */
function compareNumeric(from: number[], to: number[]): TypeChange {
  if (to.length === 0) return 'widened';
  if (from.length === 0) return 'narrowed';
  const [p1 = 0, s1 = 0] = from;
  const [p2 = 0, s2 = 0] = to;
  return p2 - s2 < p1 - s1 || s2 < s1 ? 'narrowed' : 'widened';
}

/** Between types of different names. */
function compareKinds(a: ColumnType, b: ColumnType): TypeChange {
  const [intA, intB] = [INTEGER_RANK[a.base], INTEGER_RANK[b.base]];
  if (intA && intB) return intB > intA ? 'widened' : 'narrowed';
  if (intA && b.base === 'numeric') {
    const [p = Infinity, s = 0] = b.size;
    return p - s >= (INTEGER_DIGITS[a.base] ?? Infinity) ? 'widened' : 'narrowed';
  }
  if (intA && b.base === 'double precision') return intA <= 2 ? 'widened' : 'narrowed';
  if (intA && b.base === 'real') return intA === 1 ? 'widened' : 'narrowed';
  const [floatA, floatB] = [FLOATS[a.base], FLOATS[b.base]];
  if (floatA && floatB) return floatB > floatA ? 'widened' : 'narrowed';
  // Fractions are lost on the way to an integer.
  if ((floatA || a.base === 'numeric') && intB) return 'narrowed';
  if (TIMESTAMPS.has(a.base) && b.base === 'date') return 'narrowed';
  if (a.base === 'date' && TIMESTAMPS.has(b.base)) return 'widened';
  return 'changed';
}
