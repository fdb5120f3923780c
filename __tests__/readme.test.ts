import { describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { NONE, withReference } from '../scripts/reference-tables.js';
import { FLAGS } from '../src/cli/args.js';
import { flagUsage, HELP } from '../src/cli/help.js';
import { reviewOutcome } from '../src/checks/compare-schema.js';
import { databaseOutcome } from '../src/checks/select-one.js';
import { exitCode, FORMATS } from '../src/cli/result.js';
import { INPUTS } from '../src/inputs.js';
import { NEON_API_HOST } from '../src/neon/http.js';
import { COMMAND_FIELDS, OUTPUTS } from '../src/outputs.js';
import { formatDuration } from '../src/util/duration.js';
import { makeReport } from './helpers/builders.js';
import { DROP_COLUMN_AND_TABLE } from '../simulator/schema-diffs.js';

const root = resolve(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const reference = readFileSync(join(root, 'docs', 'reference.md'), 'utf8');
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

// Prettier may pad table cells; compare without the padding.
const squeeze = (text: string): string => text.replace(/ {2,}/g, ' ').replace(/-{3,}/g, '---');

describe('the inputs and outputs, declared once (src/inputs.ts, src/outputs.ts)', () => {
  type Yml = { description: string; required?: boolean; default?: string };
  const action = parse(actionYml) as { inputs: Record<string, Yml>; outputs: Record<string, Yml> };

  it("action.yml's inputs are the rows of the action: names, order, descriptions, defaults", () => {
    const rows = INPUTS.filter((row) => row.only !== 'command');
    expect(Object.keys(action.inputs)).toEqual(rows.map((row) => row.name));
    for (const row of rows)
      expect(action.inputs[row.name]).toEqual({
        description: row.description,
        required: row.default === undefined,
        ...(row.default !== undefined && { default: row.default })
      });
  });

  it("action.yml's outputs are the output rows", () => {
    expect(Object.keys(action.outputs)).toEqual(OUTPUTS.map((o) => o.name));
    for (const o of OUTPUTS)
      expect(squeeze(action.outputs[o.name]!.description)).toBe(o.description);
  });

  it("each row's description states its default and bounds, as parsing uses them", () => {
    for (const row of INPUTS.filter((r) => r.only !== 'command')) {
      const bounds =
        row.type === 'duration' ? [row.min, row.max].map((ms) => formatDuration(ms!)) : [];
      if (row.type === 'count') bounds.push(`${row.min} to ${row.max}`);
      for (const bound of bounds) expect(`${row.name}: ${row.description}`).toContain(bound);
    }
    expect(INPUTS.find((r) => r.name === 'api_host')?.default).toBe(NEON_API_HOST);
  });

  it('the command has a flag for each row of its own, in its help', () => {
    for (const row of FLAGS)
      expect(HELP).toMatch(
        new RegExp(`^  (-\\w, )?--${row.flag ?? row.name.replace(/_/g, '-')} `, 'm')
      );
  });

  it("documents every field of --json, in its order: the outputs' rows and the command's own", () => {
    const database = { ready: true, target: '127.0.0.1:5432/app', attempts: 1 };
    // A create_branch that met a lock and made a branch with a compute: every field has a value.
    const request = {
      method: 'POST' as const,
      path: '/projects/p/branches',
      status: 201,
      attempts: 2,
      lockedMs: 3000,
      holders: ['apply_config 1f2e…'],
      response: { branch: { id: 'br-a-1' }, endpoints: [{ id: 'ep-a-1' }] },
      sweep: {
        pattern: 'preview/*',
        dryRun: false,
        plan: { entries: [], deletions: [] },
        branchesCount: 9,
        branchesLimit: 10
      },
      branch: {
        id: 'br-a-1',
        name: 'preview/pr-1',
        outcome: 'created' as const,
        parentName: 'main',
        expiresAt: '2026-12-01T00:00:00Z',
        readyMs: 4100,
        connection: {
          url: 'postgresql://u:p@ep-a-1.example.com/app',
          host: 'ep-a-1.example.com',
          pooledUrl: 'postgresql://u:p@ep-a-1-pooler.example.com/app',
          pooledHost: 'ep-a-1-pooler.example.com',
          database: 'app',
          role: 'u'
        }
      }
    };
    const target = { branchId: 'br-a-1', baseBranchId: 'br-main-1', database: 'app' };
    const review = reviewOutcome(target, DROP_COLUMN_AND_TABLE, false);
    const report = makeReport({ checks: [databaseOutcome(database), review], request });
    const json = FORMATS.json.render({ report, code: exitCode(report), reasons: [] });
    const fields = Object.keys(JSON.parse(json) as object);
    const documented = [...OUTPUTS, ...COMMAND_FIELDS].filter((row) => row.json);
    expect(documented.map((row) => row.name)).toEqual(fields);
  });
});

const code = (text: string): string => `\`${text}\``;

/** A generated table's rows of docs/reference.md: the cells of each, by the block's name. */
function rowsOf(block: string): string[][] {
  const text = new RegExp(`<!-- ${block}:start -->([\\s\\S]*?)<!-- ${block}:end -->`).exec(
    reference
  )?.[1];
  return (text ?? '')
    .split('\n')
    .filter((line) => line.startsWith('| '))
    .slice(2)
    .map((line) =>
      line
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((cell) => cell.trim())
    );
}

describe('docs/reference.md: the inputs and outputs of both front ends', () => {
  it('has the tables of the rows (npm run docs rewrites them)', () => {
    expect(squeeze(reference)).toBe(squeeze(withReference(reference)));
  });

  it("names action.yml's inputs in its order, each beside its flag ('—': the action's own), and its outputs", () => {
    const action = parse(actionYml) as { inputs: object; outputs: object };
    const inputs = rowsOf('inputs');
    expect(inputs.map(([name]) => name)).toEqual(Object.keys(action.inputs).map(code));
    const flags = INPUTS.filter((row) => row.only !== 'command').map((row) => [
      code(row.name),
      row.only === 'action' ? NONE : code(flagUsage(row))
    ]);
    expect(inputs.map(([name, flag]) => [name, flag])).toEqual(flags);
    const outputs = rowsOf('outputs').map(([name]) => name);
    expect(outputs).toEqual(Object.keys(action.outputs).map(code));
  });

  it('has every flag of the command: beside its input, or among its own', () => {
    const flags = [...rowsOf('inputs'), ...rowsOf('flags').map((cells) => ['', ...cells])]
      .map(([, flag]) => flag)
      .filter((flag) => flag !== NONE);
    expect([...flags].sort()).toEqual(FLAGS.map((row) => code(flagUsage(row))).sort());
  });

  it("states each input's default in its description (the table has no default column)", () => {
    const action = parse(actionYml) as {
      inputs: Record<string, { description: string; required?: boolean; default?: string }>;
    };
    const described = new Map(rowsOf('inputs').map(([name, , text]) => [name, text ?? '']));
    for (const [name, input] of Object.entries(action.inputs)) {
      expect(squeeze(described.get(code(name)) ?? '')).toContain(
        squeeze(input.description.replace(/\|/g, '\\|'))
      );
      const text = `${name}: ${input.description}`;
      if (input.required) expect(text).toContain(`${name}: Required.`);
      else if (input.default) {
        const value = input.default.replace(/^\$\{\{ (.*) \}\}$/, '$1');
        expect(text).toContain(`Default \`${value}\``);
      } else expect(text).toMatch(/Default( none|:)/);
    }
  });

  it("types every field of --json: the outputs' beside them, then the command's own", () => {
    const typed = rowsOf('outputs').filter(([, , type]) => type !== NONE);
    const fields = [...typed, ...rowsOf('json-fields')].map(([name]) => name);
    const documented = [...OUTPUTS, ...COMMAND_FIELDS].filter((row) => row.json);
    expect(fields).toEqual(documented.map((row) => code(row.name)));
  });
});

describe('README', () => {
  it('sends its reader to docs/reference.md for the inputs and the outputs', () => {
    for (const section of ['Inputs', 'Outputs']) {
      const text = new RegExp(`^## ${section}\\n([\\s\\S]*?)^## `, 'm').exec(readme)?.[1];
      expect(text).toContain(`(docs/reference.md#${section.toLowerCase()})`);
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
    const gitignored = readFileSync(join(root, '.gitignore'), 'utf8').split('\n');
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
      .filter((name) => !name.includes('*'))
      // What a command writes and git ignores (local-output.txt) is not in a fresh checkout.
      .filter((name) => !gitignored.includes(name));
    expect(named.length).toBeGreaterThan(30);
    expect(named.filter((name) => !files.some((file) => file.endsWith(`/${name}`)))).toEqual([]);
  });
});
