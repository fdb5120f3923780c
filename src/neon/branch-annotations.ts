import { fieldsOf } from '../util/json-fields.js';

// A branch's annotation (`annotation_value` on create; the branch list's `annotations`, keyed by
// branch id): the keys create-branch-action writes on every branch (neondatabase/create-branch-
// action, src/annotations.ts), so a sweep recognises the branches of either action.

/** The pull request's number, as digits. */
export const PR_NUMBER_KEY = 'github-pr-number';
/** The repository, `owner/name`. */
export const REPOSITORY_KEY = 'github-commit-repo';

/** The `annotation_value` a create on a pull request writes. */
export function pullRequestAnnotation(repository: string, pr: number): Record<string, string> {
  return { [PR_NUMBER_KEY]: String(pr), [REPOSITORY_KEY]: repository };
}

/**
 * The branch list's `annotations` (`{ [branch id]: { object, value } }`) as each branch's values,
 * string values only; an answer without them gives none.
 */
export function annotationValues(annotations: unknown): Map<string, Record<string, string>> {
  const values = new Map<string, Record<string, string>>();
  for (const [id, data] of fieldsOf(annotations)) {
    const strings = [...fieldsOf(fieldsOf(data).get('value'))].filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string'
    );
    values.set(id, Object.fromEntries(strings));
  }
  return values;
}
