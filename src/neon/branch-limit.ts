import { fieldsOf, textOf } from '../util/json-fields.js';

/**
 * Whether a refused create is the project's branch limit: a 422 whose error body says so. No
 * recording of the service's words was found (the simulator's `BRANCHES_LIMIT_EXCEEDED` is by
 * analogy with the recorded `PROJECTS_LIMIT_EXCEEDED`), so the code or the words will do.
 */
export function isBranchLimitRefusal(status: number, body: unknown): boolean {
  if (status !== 422) return false;
  const fields = fieldsOf(body);
  const code = textOf(fields, 'code') ?? '';
  const message = textOf(fields, 'message') ?? '';
  return /^BRANCH(ES)?_LIMIT/i.test(code) || /\bbranch(es)?\b.*\blimit\b/i.test(message);
}
