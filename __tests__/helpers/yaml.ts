import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** Where parsed documents are kept: node_modules/.cache, where tools keep what they can make again. */
const CACHE = join(
  dirname(require.resolve('yaml/package.json')),
  '..',
  '.cache',
  'neon-operations-wait'
);

/**
 * A YAML file, parsed. Each test file loads its modules anew, and the `yaml` library alone (72
 * modules) costs a test file about 0.1 s of CPU to compile, Neon's OpenAPI document (430 kB) half
 * a second to parse: the result is kept as JSON, named by the file and its digest, so one test file
 * parses it, the others read the JSON in milliseconds, and a changed file is parsed anew. The
 * library is loaded only to parse.
 */
export function readYaml(path: string): unknown {
  const text = readFileSync(path, 'utf8');
  const digest = createHash('sha256').update(text).digest('hex').slice(0, 16);
  const cached = join(CACHE, `${basename(path)}-${digest}.json`);
  try {
    return JSON.parse(readFileSync(cached, 'utf8'));
  } catch {
    const { parse } = require('yaml') as typeof import('yaml');
    const document: unknown = parse(text);
    mkdirSync(CACHE, { recursive: true });
    // Written whole, then renamed: a file reading it at the same time sees all of it or none.
    const partial = `${cached}.${process.pid}`;
    writeFileSync(partial, JSON.stringify(document));
    renameSync(partial, cached);
    return document;
  }
}
