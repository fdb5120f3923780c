/**
 * The README's inputs and outputs tables are made from action.yml, so they never drift:
 * `npm run docs` rewrites them, and a test fails when the README is not current.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';

interface ActionYml {
  inputs: Record<string, { description: string }>;
  outputs: Record<string, { description: string }>;
}

const cell = (text: string): string => text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();

/** Two columns: each description states its default (`npm run lint:actions` checks that). */
export function inputsTable(action: ActionYml): string {
  const rows = Object.entries(action.inputs).map(
    ([name, input]) => `| \`${name}\` | ${cell(input.description)} |`
  );
  return ['| input | description |', '| --- | --- |', ...rows].join('\n');
}

export function outputsTable(action: ActionYml): string {
  const rows = Object.entries(action.outputs).map(
    ([name, output]) => `| \`${name}\` | ${cell(output.description)} |`
  );
  return ['| output | description |', '| --- | --- |', ...rows].join('\n');
}

/** The README with the text between `<!-- NAME:start -->` and `<!-- NAME:end -->` replaced. */
export function withTables(readme: string, actionYml: string): string {
  const action = parse(actionYml) as ActionYml;
  const put = (text: string, name: string, table: string): string => {
    const start = `<!-- ${name}:start -->`;
    const end = `<!-- ${name}:end -->`;
    const a = text.indexOf(start);
    const b = text.indexOf(end);
    if (a < 0 || b < a) throw new Error(`README.md has no ${start} … ${end} block`);
    return `${text.slice(0, a + start.length)}\n\n${table}\n\n${text.slice(b)}`;
  };
  return put(put(readme, 'inputs', inputsTable(action)), 'outputs', outputsTable(action));
}

if (process.argv[1]?.endsWith('readme-tables.js')) {
  const root = resolve(import.meta.dirname, '..', '..');
  const readmePath = join(root, 'README.md');
  const updated = withTables(
    readFileSync(readmePath, 'utf8'),
    readFileSync(join(root, 'action.yml'), 'utf8')
  );
  writeFileSync(readmePath, updated);
  console.log('README.md: inputs and outputs tables written from action.yml');
}
