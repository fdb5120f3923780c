import { ON_EXISTING_CHOICES } from '../inputs.js';
import { oneLine } from '../util/text.js';
import { invalid } from './fields.js';

/** With `create_branch`, what an existing branch of that name gets: reused as it is, or reset from its parent. */
export type OnExisting = (typeof ON_EXISTING_CHOICES)[number];

const isChoice = (text: string): text is OnExisting =>
  ON_EXISTING_CHOICES.some((choice) => choice === text);

/** `on_existing`; `reuse` when unset. Worded as `readChoices` (settings/fields.ts) words a choice. */
export function readOnExisting(value: string): OnExisting {
  const text = value.trim();
  if (text === '') return 'reuse';
  if (isChoice(text)) return text;
  throw invalid(
    { name: 'on_existing' },
    `must be ${ON_EXISTING_CHOICES.join(' or ')}; got '${oneLine(text, 60)}'.`
  );
}
