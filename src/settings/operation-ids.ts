/** The operations to wait for, as given: `operation_id`'s ids and `operations`' JSON. */
import { isOperation, normalizeOperation, RESOURCE_ID, UUID } from '../neon/operation.js';
import type { InputError, Naming } from '../util/errors.js';
import { jsonErrorPlace } from '../util/json-error.js';
import { oneLine } from '../util/text.js';
import { type Field, invalid } from './fields.js';

/** `operation_id`: UUIDs separated by commas, spaces or newlines, lower-cased, each once. */
export function operationIdsInput(field: Field): string[] {
  const ids = field.value.split(/[\s,]+/).filter(Boolean);
  const wrong = ids.find((id) => !UUID.test(id));
  if (wrong === undefined) return [...new Set(ids.map((id) => id.toLowerCase()))];
  throw invalid(
    field,
    'must hold operation ids (UUIDs such as d8ac46eb-a757-42b1-9907-f78322ee394e) separated by ' +
      `commas, spaces or newlines; '${oneLine(wrong, 60)}' is not one.`
  );
}

const JSON_FORM =
  'must be JSON: the body of the response that started the work (an object with an "operations" array) or that array itself';

/** The operations of `field`, all of one project: `projectId` when given. */
export function operationsInput(field: Field, projectId?: string) {
  const wrong = (why: string): InputError => invalid(field, `${JSON_FORM}; ${why}.`);
  if (!field.value) return [];
  let list: unknown;
  try {
    list = JSON.parse(field.value);
  } catch {
    throw wrong(`it is not valid JSON, from ${jsonErrorPlace(field.value)}`);
  }
  const answer = list as { operations?: unknown; message?: unknown } | null;
  if (!Array.isArray(list)) list = answer?.operations;
  // An error the API answered, piped in (`curl -s … |`): its own words say what went wrong.
  if (!Array.isArray(list) && typeof answer?.message === 'string')
    throw invalid(
      field,
      `holds an error the API answered, not operations: ${oneLine(answer.message, 300)}`
    );
  if (!Array.isArray(list)) throw wrong('it has no "operations" array');
  if (!list.length) throw wrong('its "operations" array is empty, so there is nothing to wait for');
  const operations = list.map((item: unknown, index) => {
    if (isOperation(item) && UUID.test(item.id) && RESOURCE_ID.test(item.project_id)) {
      return normalizeOperation(item);
    }
    throw wrong(
      `item ${index} is not an operation (it needs a UUID "id", a "project_id", an "action" and a "status")`
    );
  });
  const projects = [...new Set(operations.map((op) => op.project_id))];
  const several = `holds operations of several projects (${projects.join(', ')}); wait for one project per step.`;
  if (projects.length > 1) throw invalid(field, several);
  if (projectId && projects[0] !== projectId) {
    const other = (named: Naming) => `${named('project_id')} is '${projectId}'`;
    throw invalid(field, (named) => `belongs to project '${projects[0]}', but ${other(named)}.`);
  }
  return operations;
}
