import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';

/** Neon's official OpenAPI document, as `@neondatabase/api-client` ships it. */
export const OPENAPI_PATH = createRequire(import.meta.url).resolve(
  '@neondatabase/api-client/public-v2-for-users.gen.yaml'
);

/**
 * The document, parsed. Its 430 kB of YAML take half a second to parse, in each test file that
 * reads it; the result is kept as JSON under node_modules/.cache (where tools keep what they can
 * make again), named by the YAML's digest, so one file parses it and the others read the JSON in
 * milliseconds, and a new version of the document is parsed anew.
 */
export function openApiDocument(): unknown {
  const text = readFileSync(OPENAPI_PATH, 'utf8');
  const digest = createHash('sha256').update(text).digest('hex').slice(0, 16);
  const cached = join(
    dirname(createRequire(import.meta.url).resolve('yaml/package.json')),
    '..',
    '.cache',
    'neon-operations-wait',
    `openapi-${digest}.json`
  );
  try {
    return JSON.parse(readFileSync(cached, 'utf8'));
  } catch {
    const document: unknown = parse(text);
    mkdirSync(dirname(cached), { recursive: true });
    // Written whole, then renamed: a file reading it at the same time sees all of it or none.
    const partial = `${cached}.${process.pid}`;
    writeFileSync(partial, JSON.stringify(document));
    renameSync(partial, cached);
    return document;
  }
}

interface Schemas {
  components: { schemas: Record<string, { enum?: unknown[] }> };
}

/** The values of one of the document's enum schemas (`OperationStatus`), in its order. */
export function officialEnum(schema: string): string[] {
  const values = (openApiDocument() as Schemas).components.schemas[schema]?.enum ?? [];
  return values.filter((value): value is string => typeof value === 'string');
}
