import { readSettings } from '../../src/settings.js';
import { InputError } from '../../src/util/errors.js';

/** A key of the right form, distinctive enough to be found wherever it leaks. */
export const TEST_KEY = 'napi_Zq7xK9distinctiveKEYvalue4242';

/** `readSettings` over these inputs (with the test key), nothing masked; unset inputs read ''. */
export const settingsOf = (values: Record<string, string>) =>
  readSettings(
    (name) => ({ api_key: TEST_KEY, ...values })[name] ?? '',
    () => undefined
  );

/** The InputError these inputs give; any other outcome fails the test. */
export function inputErrorOf(values: Record<string, string>): InputError {
  try {
    settingsOf(values);
  } catch (error) {
    if (error instanceof InputError) return error;
    throw error;
  }
  throw new Error('no input error');
}
