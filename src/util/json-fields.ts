/**
 * Reading an API answer's JSON objects field by field, without casts: an answer is `unknown` until
 * each field read has the type the reader needs. A value that is not an object has no fields.
 */

/** The fields of a JSON object; none for anything else (a string, a number, an array, null). */
export function fieldsOf(value: unknown): ReadonlyMap<string, unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return new Map();
  return new Map(Object.entries(value));
}

/** A field that is a string, or undefined. */
export function textOf(fields: ReadonlyMap<string, unknown>, key: string): string | undefined {
  const field = fields.get(key);
  return typeof field === 'string' ? field : undefined;
}
