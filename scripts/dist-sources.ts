/**
 * What `dist/` was built from, as one digest: every file of `src/`, `package-lock.json` and
 * `tsconfig.json`. `npm run build` records it in `dist/sources.sha256`; the end-to-end tests, which
 * run the bundle and not the sources, compare it with the working tree and refuse a stale bundle.
 * Only file names and contents count (no times, no paths of this machine), so the record is the
 * same wherever it is built.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const RECORD = join('dist', 'sources.sha256');

export function sourcesDigest(root: string): string {
  const files = [
    ...readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name)),
    join(root, 'package-lock.json'),
    join(root, 'tsconfig.json')
  ]
    .map((file) => relative(root, file).split(sep).join('/'))
    .sort();
  const hash = createHash('sha256');
  for (const file of files)
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(root, file)))
      .update('\0');
  return hash.digest('hex');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(fileURLToPath(import.meta.url), '..', '..', '..');
  writeFileSync(join(root, RECORD), `${sourcesDigest(root)}\n`);
}
