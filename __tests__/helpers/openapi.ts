import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parse } from 'yaml';

/** Neon's official OpenAPI document, as `@neondatabase/api-client` ships it. */
export const OPENAPI_PATH = createRequire(import.meta.url).resolve(
  '@neondatabase/api-client/public-v2-for-users.gen.yaml'
);

interface Schemas {
  components: { schemas: Record<string, { enum?: unknown[] }> };
}

let document: Schemas | undefined;

/** The values of one of the document's enum schemas (`OperationStatus`), in its order. */
export function officialEnum(schema: string): string[] {
  document ??= parse(readFileSync(OPENAPI_PATH, 'utf8')) as Schemas;
  const values = document.components.schemas[schema]?.enum ?? [];
  return values.filter((value): value is string => typeof value === 'string');
}
