import { describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { withTables } from '../scripts/readme-tables.js';

const root = resolve(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const actionYml = readFileSync(join(root, 'action.yml'), 'utf8');

/** The Markdown a user reads: the README, CONTRIBUTING and every page under docs/. */
const pages = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`)
];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');

const anchorsOf = (markdown: string): Set<string> =>
  new Set(
    [...markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6} (.+)$/gm)].map((m) =>
      slug(m[1] as string)
    )
  );

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

  it("states each input's default in its description (the table has no default column)", () => {
    const action = parse(actionYml) as {
      inputs: Record<string, { description: string; required?: boolean; default?: string }>;
    };
    for (const [name, input] of Object.entries(action.inputs)) {
      const text = `${name}: ${input.description}`;
      if (input.required) expect(text).toContain(`${name}: Required.`);
      else if (input.default) {
        const value = input.default.replace(/^\$\{\{ (.*) \}\}$/, '$1');
        expect(text).toContain(`Default \`${value}\``);
      } else expect(text).toMatch(/Default( none|:)/);
    }
  });

  it('starts with the two commands that work on a fresh machine, the ones CI runs first', () => {
    const tryIt = /^## Try it\n[\s\S]*?^```sh\n([\s\S]*?)^```/m.exec(readme)?.[1] ?? '';
    expect(readme.indexOf('```sh')).toBe(readme.indexOf(`\`\`\`sh\n${tryIt}`));
    expect(tryIt).toMatch(/^npm ci && npm run demo\b/);
    expect(tryIt).toMatch(/^npm test\b/m);
    // .ci/run runs that block as written, before anything builds.
    const ci = readFileSync(join(root, '.ci', 'run'), 'utf8');
    expect(ci.indexOf('/^## Try it/')).toBeGreaterThan(-1);
    expect(ci.indexOf('bash -euo pipefail -c "$try_it"')).toBeLessThan(ci.indexOf('npm run'));
  });

  it('opens its command section with npx, the way to run the command from npm', () => {
    expect(/^## Command line\n\n(.*)/m.exec(readme)?.[1]).toMatch(/^`npx neon-operations-wait` /);
  });

  it('is read in minutes: at most 20 kB, the detail in docs/', () => {
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(20_000);
  });

  it.each(pages)('%s: every relative link names a file, and a heading there', (page) => {
    const text = readFileSync(join(root, page), 'utf8');
    const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string);
    const broken = links
      .filter((link) => !/^[a-z]+:/i.test(link))
      .filter((link) => {
        const [path, anchor] = link.split('#') as [string, string | undefined];
        const target = path === '' ? join(root, page) : resolve(root, dirname(page), path);
        if (!existsSync(target)) return true;
        if (anchor === undefined) return false;
        return !anchorsOf(readFileSync(target, 'utf8')).has(anchor);
      });
    expect(broken).toEqual([]);
  });
});

describe('CONTRIBUTING', () => {
  it('names only files that exist', () => {
    const text = readFileSync(join(root, 'CONTRIBUTING.md'), 'utf8');
    const files = readdirSync(root, { withFileTypes: true })
      .filter((top) => !['node_modules', '.git', '.build'].includes(top.name))
      .flatMap((top) => [
        `/${top.name}`,
        ...(top.isDirectory()
          ? readdirSync(join(root, top.name), { recursive: true, encoding: 'utf8' })
          : []
        ).map((file) => `/${top.name}/${file}`)
      ]);
    // Every `name.ext` or `folder/name.ext` in backquotes, except commands and globs.
    const named = [...text.matchAll(/`([\w./-]+\.(?:ts|js|json|md|sh|yml|yaml|png|txt))`/g)]
      .map((m) => (m[1] as string).replace(/^\.\//, ''))
      .filter((name) => !name.includes('*'));
    expect(named.length).toBeGreaterThan(30);
    expect(named.filter((name) => !files.some((file) => file.endsWith(`/${name}`)))).toEqual([]);
  });
});
