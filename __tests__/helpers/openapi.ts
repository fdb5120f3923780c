import { createRequire } from 'node:module';
import { readYaml } from './yaml.js';

/** Neon's official OpenAPI document, as `@neondatabase/api-client` ships it. */
export const OPENAPI_PATH = createRequire(import.meta.url).resolve(
  '@neondatabase/api-client/public-v2-for-users.gen.yaml'
);

/** The document, parsed (once for the whole suite: see `readYaml`). */
export const openApiDocument = (): unknown => readYaml(OPENAPI_PATH);

interface Schemas {
  components: { schemas: Record<string, { enum?: unknown[] }> };
}

/** The values of one of the document's enum schemas (`OperationStatus`), in its order. */
export function officialEnum(schema: string): string[] {
  const values = (openApiDocument() as Schemas).components.schemas[schema]?.enum ?? [];
  return values.filter((value): value is string => typeof value === 'string');
}
