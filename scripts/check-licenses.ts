/**
 * `npm run licenses`: every package that ships inside dist/ (the production dependency tree) must
 * carry a license from the allow-list. dist/licenses.txt holds their texts (ncc --license).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ALLOWED = new Set(['MIT', 'ISC', 'Apache-2.0', 'BSD-2-Clause', 'BSD-3-Clause', '0BSD']);
const root = resolve(import.meta.dirname, '..', '..');

const paths = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], {
  cwd: root,
  encoding: 'utf8'
})
  .split('\n')
  .filter((p) => p.includes('node_modules'));
const refused: string[] = [];
const seen = new Map<string, string>();
for (const dir of new Set(paths)) {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    license?: string | { type?: string };
  };
  const license = typeof pkg.license === 'string' ? pkg.license : (pkg.license?.type ?? 'UNKNOWN');
  // An SPDX "A OR B" expression is fine when one side is allowed.
  const ok = license
    .replace(/[()]/g, '')
    .split(/\s+OR\s+/)
    .some((l) => ALLOWED.has(l.trim()));
  seen.set(`${pkg.name}@${pkg.version}`, license);
  if (!ok) refused.push(`${pkg.name}@${pkg.version}: ${license}`);
}
if (refused.length) {
  console.error(
    `Licenses not on the allow-list (${[...ALLOWED].join(', ')}):\n${refused.join('\n')}`
  );
  process.exit(1);
}
const counts = new Map<string, number>();
for (const l of seen.values()) counts.set(l, (counts.get(l) ?? 0) + 1);
console.log(
  `licenses: ${seen.size} production packages, all allowed (${[...counts].map(([l, n]) => `${n} ${l}`).join(', ')})`
);
