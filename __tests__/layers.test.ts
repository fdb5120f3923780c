import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
const src = join(root, 'src');

/**
 * The layers as CONTRIBUTING's "Where things are" lists them, highest first:
 * (`action/`, `cli/` → `settings.ts`, `outputs.ts` → `engine.ts` → … → `util/`, `version.ts`).
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

/** Every module a file imports (`import type` too), statically or by `import()`, as a path when it is relative. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) =>
    resolve(dirname(file), (m[1] ?? '').replace(/\.js$/, '.ts'))
  );
}

/**
 * The import circles of a graph (file → the files it imports), each written from its first file
 * back to it (`a.ts → b.ts → a.ts`); one a strongly connected part, found depth first.
 */
function circlesOf(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const circles: string[] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (file: string) => {
    const at = path.indexOf(file);
    if (at >= 0) {
      circles.push([...path.slice(at), file].join(' → '));
      return;
    }
    if (done.has(file)) return;
    path.push(file);
    for (const next of graph.get(file) ?? []) visit(next);
    path.pop();
    done.add(file);
  };
  for (const file of [...graph.keys()].sort()) visit(file);
  return circles;
}

const sources = readdirSync(src, { recursive: true, encoding: 'utf8' })
  .filter((name) => name.endsWith('.ts'))
  .map((name) => join(src, name));

describe('the layers of src/ (CONTRIBUTING: imports running one way)', () => {
  const tiers = layers();

  it('reads the layers from CONTRIBUTING', () => {
    expect(tiers).toEqual([
      ['action/', 'cli/'],
      ['settings.ts', 'outputs.ts'],
      ['engine.ts'],
      ['requests/', 'checks/'],
      ['settings/', 'inputs.ts', 'wait/', 'report/'],
      ['neon/', 'database/'],
      ['util/', 'version.ts']
    ]);
  });

  it('the list names every entry of src/', () => {
    const entries = readdirSync(src, { withFileTypes: true }).map((entry) =>
      entry.isDirectory() ? `${entry.name}/` : entry.name
    );
    expect(entries.filter((entry) => !tiers.flat().includes(entry))).toEqual([]);
  });

  it('no file imports from a layer above its own', () => {
    const upward = sources.flatMap((file) => {
      const own = tierOf(file, tiers);
      if (own === undefined) return [`${relative(src, file)}: in no layer`];
      return importsOf(file)
        .filter((target) => (tierOf(target, tiers) ?? own) < own)
        .map((target) => `${relative(src, file)} → ${relative(src, target)}`);
    });
    expect(upward).toEqual([]);
  });

  it('no import circle, type imports included', () => {
    const graph = new Map(
      sources.map((file) => [
        relative(src, file),
        importsOf(file).map((target) => relative(src, target))
      ])
    );
    expect(circlesOf(graph)).toEqual([]);
  });

  it('finds a circle when there is one', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts', 'd.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', []]
    ]);
    expect(circlesOf(graph)).toEqual(['a.ts → b.ts → c.ts → a.ts']);
    expect(circlesOf(new Map([['a.ts', ['a.ts']]]))).toEqual(['a.ts → a.ts']);
  });

  it('no two source files share a name (index.ts and main.ts aside)', () => {
    const byName = new Map<string, string[]>();
    for (const file of sources)
      byName.set(basename(file), [...(byName.get(basename(file)) ?? []), file]);
    const shared = [...byName]
      .filter(([name, files]) => files.length > 1 && name !== 'index.ts' && name !== 'main.ts')
      .map(([, files]) => files.map((file) => relative(src, file)).join(' and '));
    expect(shared).toEqual([]);
  });

  it('neon/ knows nothing of the wait, the reports or the front ends', () => {
    const neon = sources.filter((file) => relative(src, file).startsWith('neon'));
    expect(neon.length).toBeGreaterThan(5);
    const wrong = neon.flatMap((file) =>
      importsOf(file)
        .map((target) => relative(src, target))
        .filter((target) => /^(wait|report|action|cli|requests|settings)\b/.test(target))
        .map((target) => `${relative(src, file)} → ${target}`)
    );
    expect(wrong).toEqual([]);
  });
});
