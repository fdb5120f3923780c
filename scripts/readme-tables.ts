/**
 * The README's inputs and outputs tables and docs/cli.md's options table are made from the rows of
 * `src/inputs.ts` and `src/outputs.ts`, so they never drift: `npm run docs` rewrites them, and a
 * test fails when a page is not current (another checks action.yml against the same rows).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { FLAGS } from '../src/cli/args.js';
import { flagText, flagUsage } from '../src/cli/help.js';
import { INPUTS } from '../src/inputs.js';
import { COMMAND_FIELDS, OUTPUTS } from '../src/outputs.js';

const cell = (text: string): string => text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();

const table = (head: [string, string], rows: Array<[string, string]>): string =>
  [
    `| ${head.join(' | ')} |`,
    '| --- | --- |',
    ...rows.map(([a, b]) => `| ${a} | ${cell(b)} |`)
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

/** Two columns: each description states its default (a test checks that). */
export function withTables(readme: string): string {
  const inputs = INPUTS.filter((row) => row.only !== 'command');
  return put(
    put(
      readme,
      'inputs',
      table(
        ['input', 'description'],
        inputs.map((r) => [`\`${r.name}\``, r.description])
      )
    ),
    'outputs',
    table(
      ['output', 'description'],
      OUTPUTS.map((o) => [`\`${o.name}\``, o.description])
    )
  );
}

/** docs/cli.md's options, and the fields of `--json`: the outputs that have one, then the command's own. */
export function withOptions(cliMd: string): string {
  const rows = FLAGS.map((row): [string, string] => [`\`${flagUsage(row)}\``, flagText(row)]);
  const fields = [...OUTPUTS, ...COMMAND_FIELDS].flatMap(
    ({ name, json }): Array<[string, string]> => (json ? [[`\`${name}\``, json]] : [])
  );
  const withFields = put(cliMd, 'json-fields', table(['field', 'type'], fields));
  return put(withFields, 'options', table(['option', 'what it does'], rows));
}

if (process.argv[1]?.endsWith('readme-tables.js')) {
  const root = resolve(import.meta.dirname, '..', '..');
  for (const [file, rewrite] of [
    ['README.md', withTables],
    ['docs/cli.md', withOptions]
  ] as const) {
    const path = join(root, file);
    writeFileSync(path, rewrite(readFileSync(path, 'utf8')));
  }
  console.log('README.md and docs/cli.md: tables written from src/inputs.ts and src/outputs.ts');
}
