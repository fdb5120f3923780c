import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
const src = join(root, 'src');

/**
 * The layers as CONTRIBUTING's "Where things are" lists them, highest first:
 * (`action/`, `cli/` → `engine.ts` → `wait/`, `report/` → `neon/`, `database/` → `util/`).
 */
function layers(): string[][] {
  const text = readFileSync(join(root, 'CONTRIBUTING.md'), 'utf8');
  const listed = /imports running one way \(([^);]*)/.exec(text.replace(/\s+/g, ' '))?.[1] ?? '';
  return listed.split('→').map((tier) => [...tier.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? ''));
}

/** The tier of a file under src/ (0 the highest), or undefined when the list leaves it out. */
function tierOf(file: string, tiers: string[][]): number | undefined {
  const path = relative(src, file);
  const index = tiers.findIndex((tier) =>
    tier.some((name) => (name.endsWith('/') ? path.startsWith(name) : path === name))
  );
  return index < 0 ? undefined : index;
}

/** Every module a file imports, statically or by `import()`, as a path when it is relative. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) =>
    resolve(dirname(file), (m[1] ?? '').replace(/\.js$/, '.ts'))
  );
}

const sources = readdirSync(src, { recursive: true, encoding: 'utf8' })
  .filter((name) => name.endsWith('.ts'))
  .map((name) => join(src, name));

describe('the layers of src/ (CONTRIBUTING: imports running one way)', () => {
  const tiers = layers();

  it('reads the layers from CONTRIBUTING', () => {
    expect(tiers).toEqual([
      ['action/', 'cli/'],
      ['engine.ts'],
      ['checks/'],
      ['wait/', 'report/'],
      ['neon/', 'database/'],
      ['util/']
    ]);
  });

  it('no file imports from a layer above its own', () => {
    const upward = sources.flatMap((file) => {
      const own = tierOf(file, tiers);
      if (own === undefined) return [];
      return importsOf(file)
        .filter((target) => (tierOf(target, tiers) ?? own) < own)
        .map((target) => `${relative(src, file)} → ${relative(src, target)}`);
    });
    expect(upward).toEqual([]);
  });

  it('neon/ knows nothing of the wait, the reports or the front ends', () => {
    const neon = sources.filter((file) => relative(src, file).startsWith('neon'));
    expect(neon.length).toBeGreaterThan(5);
    const wrong = neon.flatMap((file) =>
      importsOf(file)
        .map((target) => relative(src, target))
        .filter((target) => /^(wait|report|action|cli)\//.test(target))
        .map((target) => `${relative(src, file)} → ${target}`)
    );
    expect(wrong).toEqual([]);
  });
});
