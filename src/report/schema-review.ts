/**
 * The schema review in Markdown, for the job summary and the PR comment: above the fold what the
 * migration changed (counted by kind) and each destructive change named; below, folded, the diff.
 * Bounded: the whole review stays within `maxBytes` (UTF-8, so within as many characters too); the
 * diff is cut first, with a note of the lines left out, and the destructive changes only when their
 * list alone would not fit. Safe: names are escaped (`code`), and the diff sits in a fence longer
 * than any backtick run in it, so neither can close a block, start HTML or mention anyone.
 */
import { defuse, truncate } from '../util/text.js';
import { code } from './markdown.js';
import type { ChangeCount, DestructiveChange, SchemaDiff } from '../database/schema-diff.js';
import { SCHEMA_OBJECT_KINDS, type SchemaObjectKind } from '../database/dump-reader.js';

/** Each kind's words, singular and plural. */
const KIND_WORDS: Record<SchemaObjectKind, [string, string]> = {
  schema: ['schema', 'schemas'],
  extension: ['extension', 'extensions'],
  table: ['table', 'tables'],
  column: ['column', 'columns'],
  view: ['view', 'views'],
  'materialized view': ['materialized view', 'materialized views'],
  index: ['index', 'indexes'],
  constraint: ['constraint', 'constraints'],
  sequence: ['sequence', 'sequences'],
  function: ['function', 'functions'],
  type: ['type', 'types'],
  trigger: ['trigger', 'triggers'],
  policy: ['policy', 'policies'],
  other: ['other change', 'other changes']
};

const HOW: Record<keyof ChangeCount, string> = {
  added: 'added',
  changed: 'changed',
  removed: 'removed'
};

const MARKER = '⚠';
/** A diff line longer than this is cut (a view or a function written on one line). */
const LINE_CHARS = 2000;
const TO_FIT = "to keep this within GitHub's size limit";

export interface SchemaReviewInput {
  /** The database compared (`neondb`). */
  database: string;
  /** The diff as the API answered it. */
  diff: string;
  /** What `readSchemaDiff` read in it. */
  read: SchemaDiff;
}

/** What the fold needs besides the diff's lines: its tags, the note of lines left out. */
const FOLD_BYTES = 300;

/**
 * The review, at most `maxBytes` long (UTF-8) for any budget of 1,000 bytes or more: the diff's
 * lines are left out first, from its end; then, if their list alone is too long, destructive changes.
 */
export function renderSchemaReview(input: SchemaReviewInput, maxBytes: number): string {
  const { database, read } = input;
  const heading = `#### Schema review of ${code(database)}`;
  if (!read.changed) return [heading, '', 'No schema change.', ''].join('\n');
  const counted = countsLine(read.counts);
  const verdict =
    read.destructive.length === 0
      ? 'No destructive change.'
      : `${MARKER} **${plural(read.destructive.length, 'destructive change', 'destructive changes')}:**`;
  const top = [heading, '', ...(counted ? [counted, ''] : []), verdict];
  const changes = read.destructive.map((d) => `- ${MARKER} ${phrase(d)}`);
  const lines = diffLines(input.diff);
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(lines) + 1));
  const head = fitList(top, changes, maxBytes - FOLD_BYTES - 2 * bytes(fence));
  return `${head}${foldedDiff(input.read, lines, fence, maxBytes - bytes(head))}`;
}

/** `1 table added · 2 columns added · 1 index removed`, kinds in their order. */
function countsLine(counts: SchemaDiff['counts']): string {
  const parts = SCHEMA_OBJECT_KINDS.flatMap((kind) => {
    const entry = counts[kind];
    if (!entry) return [];
    const [one, many] = KIND_WORDS[kind];
    if (kind === 'other') {
      const n = entry.added + entry.changed + entry.removed;
      return [plural(n, one, many)];
    }
    return (['added', 'changed', 'removed'] as const)
      .filter((how) => entry[how] > 0)
      .map((how) => `${plural(entry[how], one, many)} ${HOW[how]}`);
  });
  return parts.join(' · ');
}

const plural = (n: number, one: string, many: string): string =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** `drops column <code>users.email</code>`: the change in words, every name escaped. */
export function phrase(d: DestructiveChange): string {
  const [kind] = KIND_WORDS[d.kind];
  if (d.action === 'removes a value from')
    return `removes value ${code(d.from ?? '')} from ${kind} ${code(d.name)}`;
  const what = `${d.unique ? 'unique ' : ''}${kind} ${code(d.name)}`;
  const on = d.on ? ` on ${code(d.on)}` : '';
  const types = d.from && d.to ? ` from ${code(d.from)} to ${code(d.to)}` : '';
  const where = d.tableUnknown ? " (its table is outside the diff's context)" : '';
  return `${d.action} ${what}${on}${types}${where}`;
}

/** `top` and as many of `items` as fit in `maxBytes`, with a note of those left out. */
function fitList(top: string[], items: string[], maxBytes: number): string {
  const note = (left: number) => `- … and ${left.toLocaleString('en-US')} more, left out ${TO_FIT}`;
  let used = bytes(top.join('\n')) + bytes(note(items.length)) + 4;
  const kept: string[] = [];
  for (const item of items) {
    used += bytes(item) + 1;
    if (used > maxBytes) break;
    kept.push(item);
  }
  const left = items.length - kept.length;
  const list = [...kept, ...(left > 0 ? [note(left)] : [])];
  return `${[...top, ...(list.length > 0 ? ['', ...list] : [])].join('\n')}\n\n`;
}

/** The diff in a folded block, cut to whole lines to fit `room`, with a note of what was left out. */
function foldedDiff(read: SchemaDiff, lines: string[], fence: string, room: number): string {
  const { added, removed } = read.lines;
  const summary = `<details><summary>Schema diff: +${added} −${removed} lines</summary>`;
  let left = room - FOLD_BYTES - 2 * bytes(fence);
  const kept: string[] = [];
  for (const line of lines) {
    left -= bytes(line) + 1;
    if (left < 0) break;
    kept.push(line);
  }
  const cut = lines.length - kept.length;
  const note =
    cut > 0
      ? [
          '',
          `*${plural(kept.length, 'line', 'lines')} of ${lines.length.toLocaleString('en-US')} shown: ` +
            `${cut.toLocaleString('en-US')} left out ${TO_FIT}.*`
        ]
      : [];
  const block = kept.length > 0 ? [`${fence}diff`, ...kept, fence] : [];
  return [summary, '', ...block, ...note, '', '</details>', ''].join('\n');
}

/**
 * The diff's lines, each on one line and safe as code: secrets redacted and invisible formatting
 * (bidi overrides that make code read otherwise) folded by `defuse`, long lines cut.
 */
function diffLines(diff: string): string[] {
  const lines = defuse(diff).split(/\r\n|\r|\n/);
  if (lines.at(-1) === '') lines.pop();
  return lines.map((line) => truncate(line, LINE_CHARS));
}

function longestBacktickRun(lines: string[]): number {
  let longest = 0;
  for (const line of lines)
    for (const run of line.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}

const bytes = (text: string): number => Buffer.byteLength(text);
