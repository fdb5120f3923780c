/**
 * docs/reference.md's tables are made from the rows of `src/inputs.ts` and `src/outputs.ts`, so
 * they never drift: `npm run docs` rewrites them, and a test fails when the page is not current
 * (another checks action.yml against the same rows). The prose between the tables is the page's.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { FLAGS } from '../src/cli/args.js';
import { flagText, flagUsage } from '../src/cli/help.js';
import { type Input, INPUTS } from '../src/inputs.js';
import { COMMAND_FIELDS, OUTPUTS } from '../src/outputs.js';

/** What a cell shows where a front end has nothing: an action-only input's flag, an output's field. */
export const NONE = '—';

const cell = (text: string): string => text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();

const table = (head: string[], rows: string[][]): string =>
  [
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`)
  ].join('\n');

/** The text between `<!-- NAME:start -->` and `<!-- NAME:end -->` replaced. */
function put(text: string, name: string, content: string): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  if (a < 0 || b < a) throw new Error(`no ${start} … ${end} block`);
  return `${text.slice(0, a + start.length)}\n\n${content}\n\n${text.slice(b)}`;
}

const code = (text: string): string => `\`${text}\``;

/** An input's words: its description (it states the default), then the command's own where it has them. */
const inputText = (row: Input): string =>
  row.help && row.only !== 'action'
    ? `${row.description}<br>Command: ${flagText(row)}`
    : row.description;

/**
 * The four tables: the inputs with their flags, the command's own flags, the outputs with their
 * `--json` field, and the command's own fields (after the outputs', as `--json` writes them).
 */
export function withReference(page: string): string {
  const inputs = INPUTS.filter((row) => row.only !== 'command').map((row) => [
    code(row.name),
    row.only === 'action' ? NONE : code(flagUsage(row)),
    inputText(row)
  ]);
  const flags = FLAGS.filter((row) => row.only === 'command').map((row) => [
    code(flagUsage(row)),
    flagText(row)
  ]);
  const outputs = OUTPUTS.map((o) => [code(o.name), o.description, o.json ?? NONE]);
  const fields = COMMAND_FIELDS.map((f) => [code(f.name), f.json]);
  const tables = {
    inputs: table(['input', 'flag', 'description'], inputs),
    flags: table(['flag', 'what it does'], flags),
    outputs: table(['output', 'description', '`--json` field'], outputs),
    'json-fields': table(['field', 'type'], fields)
  };
  return Object.entries(tables).reduce((text, [name, content]) => put(text, name, content), page);
}

if (process.argv[1]?.endsWith('reference-tables.js')) {
  const path = join(resolve(import.meta.dirname, '..', '..'), 'docs', 'reference.md');
  writeFileSync(path, withReference(readFileSync(path, 'utf8')));
  console.log('docs/reference.md: tables written from src/inputs.ts and src/outputs.ts');
}
