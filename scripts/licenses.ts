/**
 * `dist/licenses.txt` and `dist/cli/licenses.txt` from what each bundle really holds. ncc's own `--license` file missed most
 * of the packages it bundled, so this reads ncc's webpack stats (every module in every chunk of
 * dist/), finds each package those modules come from, and writes its license text.
 *
 *   node .build/scripts/licenses.js write   (part of `npm run build`)
 *   node .build/scripts/licenses.js check   (CI: every bundled package listed, every license allowed)
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { packageDirOf } from './package-dir.js';

const ALLOWED = new Set(['MIT', 'ISC', 'Apache-2.0', 'BSD-2-Clause', 'BSD-3-Clause', '0BSD']);
const root = resolve(import.meta.dirname, '..', '..');
// The action's bundle and the command's (dist/cli/, published alone), each with its stats and file.
const BUNDLES = [
  { stats: 'ncc-stats.json', dir: 'dist/' },
  { stats: 'ncc-stats-cli.json', dir: 'dist/cli/' }
];

interface StatsModule {
  name?: string;
  identifier?: string;
  modules?: StatsModule[];
}

interface Bundled {
  name: string;
  version: string;
  license: string;
  text: string;
}

/** Package folders (relative to the root, nested node_modules kept) of every bundled module. */
function bundledPackageDirs(stats: string): string[] {
  const dirs = new Set<string>();
  const walk = (modules: StatsModule[] = []): void => {
    for (const module of modules) {
      walk(module.modules);
      const dir = packageDirOf(module.name ?? module.identifier ?? '');
      if (dir) dirs.add(dir);
    }
  };
  walk((JSON.parse(readFileSync(stats, 'utf8')) as { modules?: StatsModule[] }).modules);
  return [...dirs];
}

/**
 * The package's license file; failing that, the License section of its README (pg-types and
 * pgpass ship their MIT text only there).
 */
function licenseText(dir: string): string | undefined {
  const files = readdirSync(dir);
  const file = files.find((f) => /^(licen[cs]e|copying)(\.|-|$)/i.test(f));
  if (file) return readFileSync(join(dir, file), 'utf8').trim();
  const readme = files.find((f) => /^readme(\.md)?$/i.test(f));
  if (!readme) return undefined;
  const text = readFileSync(join(dir, readme), 'utf8');
  const heading = /^(#+)\s*licen[cs]e\s*$/im.exec(text);
  if (!heading) return undefined;
  const rest = text.slice(heading.index + heading[0].length);
  const next = new RegExp(`^#{1,${(heading[1] as string).length}}\\s`, 'm').exec(rest);
  const section = (next ? rest.slice(0, next.index) : rest).trim();
  return section ? `(from ${readme})\n\n${section}` : undefined;
}

function bundled(stats: string): { packages: Bundled[]; problems: string[] } {
  const problems: string[] = [];
  const packages = new Map<string, Bundled>();
  for (const rel of bundledPackageDirs(stats)) {
    const dir = join(root, rel);
    if (!existsSync(join(dir, 'package.json'))) {
      // Never skipped in silence: that is how nested copies once went unlisted.
      problems.push(`${rel}: bundled, but its package.json was not found`);
      continue;
    }
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
      license?: string | { type?: string };
    };
    const license =
      typeof pkg.license === 'string' ? pkg.license : (pkg.license?.type ?? 'UNKNOWN');
    const text = licenseText(dir);
    const id = `${pkg.name}@${pkg.version}`;
    // An SPDX "A OR B" expression is fine when one side is allowed.
    const allowed = license
      .replace(/[()]/g, '')
      .split(/\s+OR\s+/)
      .some((l) => ALLOWED.has(l.trim()));
    if (!allowed) problems.push(`${id}: license ${license} is not on the allow-list`);
    if (!text) problems.push(`${id}: ships no license file`);
    packages.set(id, { name: pkg.name, version: pkg.version, license, text: text ?? '' });
  }
  return {
    packages: [...packages.values()].sort((a, b) =>
      `${a.name}@${a.version}`.localeCompare(`${b.name}@${b.version}`)
    ),
    problems
  };
}

function render(packages: Bundled[], dir: string): string {
  const header = `Third-party software bundled in ${dir} (found from the bundler's module list), with its license.\n`;
  return (
    header +
    packages
      .map((p) => `\n${'='.repeat(72)}\n${p.name}@${p.version} (${p.license})\n\n${p.text}\n`)
      .join('')
  );
}

const mode = process.argv[2];
for (const bundle of BUNDLES) {
  const output = join(root, bundle.dir, 'licenses.txt');
  const { packages, problems } = bundled(join(root, '.build', bundle.stats));
  if (problems.length) {
    console.error(`Licenses of the bundled packages:\n${problems.join('\n')}`);
    process.exit(1);
  }
  const text = render(packages, bundle.dir);
  if (mode === 'write') {
    writeFileSync(output, text);
    continue;
  }
  const written = existsSync(output) ? readFileSync(output, 'utf8') : '';
  const missing = packages.filter((p) => !written.includes(`\n${p.name}@${p.version} (`));
  if (missing.length || written !== text) {
    console.error(
      `${bundle.dir}licenses.txt does not match the bundle` +
        (missing.length
          ? `; missing: ${missing.map((p) => `${p.name}@${p.version}`).join(', ')}`
          : '') +
        '. Run npm run build and commit dist/.'
    );
    process.exit(1);
  }
  const counts = new Map<string, number>();
  for (const p of packages) counts.set(p.license, (counts.get(p.license) ?? 0) + 1);
  console.log(
    `licenses: ${packages.length} packages bundled in ${bundle.dir}, each listed with its license text, all allowed (${[...counts].map(([l, n]) => `${n} ${l}`).join(', ')})`
  );
}
