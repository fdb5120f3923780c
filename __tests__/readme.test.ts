import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { withTables } from '../scripts/readme-tables.js';

const root = resolve(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const actionYml = readFileSync(join(root, 'action.yml'), 'utf8');

describe('README', () => {
  it('has the inputs and outputs tables of action.yml (npm run docs rewrites them)', () => {
    // Prettier may pad table cells; compare without the padding.
    const squeeze = (text: string): string => text.replace(/ {2,}/g, ' ').replace(/-{3,}/g, '---');
    expect(squeeze(readme)).toBe(squeeze(withTables(readme, actionYml)));
  });

  it('names every input and output of action.yml', () => {
    const action = parse(actionYml) as { inputs: object; outputs: object };
    for (const name of [...Object.keys(action.inputs), ...Object.keys(action.outputs)]) {
      expect(readme).toContain(`\`${name}\``);
    }
  });

  it('starts with the two commands that work on a fresh machine', () => {
    const firstBlock = readme.slice(
      readme.indexOf('```sh'),
      readme.indexOf('```', readme.indexOf('```sh') + 5)
    );
    expect(firstBlock).toContain('npm ci && npm run demo');
    expect(firstBlock).toContain('npm test');
  });
});
