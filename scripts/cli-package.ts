/**
 * `dist/cli/` as an npm package of its own, `neon-operations-wait`: its package.json (the action's
 * version and license, `bin`, no dependencies: everything is bundled) and the LICENSE. Part of
 * `npm run build`, after ncc (whose package.json only says `"type": "module"`); the release
 * workflow publishes the folder. The repository is set there, from where the workflow runs.
 */
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..', '..');
const { version, license } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string;
  license: string;
};
const pkg = {
  name: 'neon-operations-wait',
  version,
  description:
    'Waits for Neon control-plane operations to finish and reports them, for any CI system',
  keywords: ['neon', 'postgres', 'ci', 'junit', 'wait'],
  license,
  type: 'module',
  bin: { 'neon-operations-wait': 'index.js' },
  engines: { node: '>=20' }
};
writeFileSync(join(root, 'dist', 'cli', 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
copyFileSync(join(root, 'LICENSE'), join(root, 'dist', 'cli', 'LICENSE'));
