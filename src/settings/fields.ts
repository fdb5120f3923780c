/** Reading one input by its row in `inputs.ts`: its type, default, bounds, choices, and its error. */
import { type InputName, input as row } from '../inputs.js';
import { formatDuration, parseDuration } from '../util/duration.js';
import { InputError, type Naming } from '../util/errors.js';
import { capital, oneLine } from '../util/text.js';

/** Reads one input by its name in action.yml, untrimmed ('' when unset): each reader decides what spaces mean. */
export type InputReader = (name: string) => string;

/** An input's value, trimmed, with its name for the error. */
export type Field = { value: string; name: InputName };

/** As `core.getBooleanInput` reads them (the YAML 1.2 core schema's booleans). */
const BOOL = new Map([
  ['true', true],
  ['True', true],
  ['TRUE', true],
  ['false', false],
  ['False', false],
  ['FALSE', false]
]);
const BOOL_FORM = 'true or false (true, True, TRUE, false, False or FALSE)';
/** `true` or `false` as the runner reads them, else undefined. */
export const asBool = (text: string): boolean | undefined => BOOL.get(text);

/** A `bool` input; unset: the row's default. */
export const readBool = (field: Field): boolean =>
  readField(field, row(field.name).default === 'true', asBool, BOOL_FORM);

/** An input read by `read`: `unset` when empty, else what `read` makes of it, or an error saying `form`. */
export function readField<T>(
  field: Field,
  unset: T,
  read: (v: string) => T | undefined,
  form: string
): T {
  if (field.value === '') return unset;
  const parsed = read(field.value);
  if (parsed !== undefined) return parsed;
  throw invalid(field, `must be ${form}; got '${oneLine(field.value, 60)}'.`);
}

/**
 * A `choice` input (one of its row's `choices`) or a `list` one (any of them, separated by commas
 * or spaces); unset: the row's default.
 */
export function readChoices(field: Field): string[] {
  const { type, choices = [], default: fallback = '' } = row(field.name);
  const words = (field.value || fallback).split(/[\s,]+/).filter(Boolean);
  const wrong = words.find((word) => !choices.includes(word));
  const named = `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}`;
  // Separators only (`fail_on: ","`) name nothing: refused, as the command refuses `--fail-on ,`,
  // not read as an empty list (which would fail the step on no status at all).
  const some = type === 'list' ? words.length > 0 : words.length === 1;
  if (wrong === undefined && some) return words;
  const form = type === 'list' ? `any of ${named}, separated by commas` : named;
  const none = words.length === 0 ? ', which names none' : '';
  throw invalid(field, `must be ${form}; got '${oneLine(field.value, 60)}'${none}.`);
}

/**
 * An error whose message starts with the input's name (`text` may name others). Any name: the
 * inputs of a kind whose rows are still to come (`sweep_branches`...) are worded the same way.
 */
export function invalid(
  { name }: Field | { name: string },
  text: string | ((named: Naming) => string)
): InputError {
  const words = typeof text === 'string' ? () => text : text;
  return new InputError(name, (named) => `${capital(named(name))} ${words(named)}`);
}

/**
 * A `duration` input within its row's bounds (`90` is seconds); unset: the row's default. The
 * error's `examples` are a timeout's unless the input's own read better (`older_than`: days).
 */
export function readDuration(field: Field, examples = '90, 90s, 15m, 1h or 1m30s'): number {
  const { default: fallback = '', min = 0, max = Infinity } = row(field.name);
  const value = field.value || fallback;
  const ms = parseDuration(value) ?? NaN;
  if (ms >= min && ms <= max) return ms;
  const why = Number.isNaN(ms) ? 'not a duration' : ms < min ? 'too short' : 'too long';
  const form = `a duration from ${formatDuration(min)} to ${formatDuration(max)}, such as ${examples}`;
  throw invalid(field, `must be ${form}; '${oneLine(value, 60)}' is ${why}.`);
}

/** A `count` input: a whole number within its row's bounds; unset: the row's default. */
export function readCount(field: Field): number {
  const { default: fallback, min = 0, max = Infinity } = row(field.name);
  const inBounds = (v: string) => (/^\d+$/.test(v) && +v >= min && +v <= max ? +v : undefined);
  return readField(field, Number(fallback), inBounds, `a whole number from ${min} to ${max}`);
}

const BRANCH_FORMS = {
  name: 'a branch name of 1 to 256 characters, such as preview/pr-42',
  'name or id': 'a branch name (such as preview/pr-42) or id (such as br-wispy-meadow-118737)'
};

/**
 * A branch name (or id) as given, spaces around it dropped: set, at most 256 characters, no control
 * character. Characters are code points, as the OpenAPI document's `maxLength: 256` counts them
 * (JSON Schema counts a string's characters, not its UTF-16 units): 200 emoji are 200.
 */
export function readBranchName(field: Field, by: keyof typeof BRANCH_FORMS): string {
  const { value } = field;
  const characters = [...value].length;
  const problem = !value
    ? 'it is empty (only spaces)'
    : characters > 256
      ? `it has ${characters} characters`
      : /\p{Cc}/u.test(value)
        ? 'it holds a control character or a newline'
        : undefined;
  if (!problem) return value;
  throw invalid(field, `must be ${BRANCH_FORMS[by]}; ${problem}.`);
}
