import { describe, expect, it } from '@jest/globals';
import { readSweepInputs } from '../src/settings/sweep-inputs.js';
import { actionNaming, InputError } from '../src/util/errors.js';
import { inputErrorOf, settingsOf } from './helpers/settings.js';

/** The sweep's inputs as a reader gives them ('' when unset). */
const values =
  (more: Record<string, string> = {}) =>
  (name: string): string =>
    ({ sweep_branches: 'preview/pr-{pr}', ...more })[name] ?? '';

/** The error `read` throws, as the action words it, with the input it names. */
function refusal(read: () => unknown): { input: string; message: string } {
  try {
    read();
  } catch (error) {
    if (error instanceof InputError)
      return { input: error.input, message: error.words(actionNaming) };
    throw error;
  }
  throw new Error('no error');
}

describe("the sweep's inputs", () => {
  it('reads them, with their defaults', () => {
    const read = readSweepInputs(values({ older_than: '7d' }), false);
    expect(read.pattern.text).toBe('preview/pr-{pr}');
    expect(read).toMatchObject({ olderThanMs: 7 * 86_400_000, sweepMax: 20, dryRun: false });
    const all = readSweepInputs(
      values({ sweep_branches: ' preview/* ', sweep_max: '50', dry_run: 'True' }),
      true
    );
    expect(all).toMatchObject({ sweepMax: 50, dryRun: true });
    expect(all.pattern.text).toBe('preview/*');
    expect(all.olderThanMs).toBeUndefined();
  });

  it.each([
    [
      'an empty pattern',
      { sweep_branches: '  ' },
      'sweep_branches',
      "Input 'sweep_branches' must be a branch name pattern such as preview/* or preview/pr-{pr} (* any characters, {pr} the pull request's number); it is empty."
    ],
    [
      'a placeholder other than {pr}',
      { sweep_branches: 'preview/{number}' },
      'sweep_branches',
      "Input 'sweep_branches' must be a branch name pattern such as preview/* or preview/pr-{pr} (* any characters, {pr} the pull request's number); {number} is not a placeholder: only {pr} is."
    ],
    [
      'older_than: soon',
      { older_than: 'soon' },
      'older_than',
      "Input 'older_than' must be a duration from 1m to 8760h, such as 12h, 7d or 30d; 'soon' is not a duration."
    ],
    [
      'older_than: 30s',
      { older_than: '30s' },
      'older_than',
      "Input 'older_than' must be a duration from 1m to 8760h, such as 12h, 7d or 30d; '30s' is too short."
    ],
    [
      'sweep_max: 0',
      { older_than: '7d', sweep_max: '0' },
      'sweep_max',
      "Input 'sweep_max' must be a whole number from 1 to 1000; got '0'."
    ],
    [
      'sweep_max: 2.5',
      { older_than: '7d', sweep_max: '2.5' },
      'sweep_max',
      "Input 'sweep_max' must be a whole number from 1 to 1000; got '2.5'."
    ],
    [
      'dry_run: yes',
      { older_than: '7d', dry_run: 'yes' },
      'dry_run',
      "Input 'dry_run' must be true or false (true, True, TRUE, false, False or FALSE); got 'yes'."
    ]
  ])('%s: an error naming the input and the form', (_, more, input, message) => {
    expect(refusal(() => readSweepInputs(values(more), true))).toEqual({ input, message });
  });

  it('a sweep with neither older_than nor a way to read pull requests is refused', () => {
    expect(refusal(() => readSweepInputs(values(), false))).toEqual({
      input: 'sweep_branches',
      message:
        "Input 'sweep_branches' needs input 'older_than' or a token that can read pull requests " +
        "(input 'github_token', with input 'repository'): without either, a sweep has nothing to decide by."
    });
    expect(readSweepInputs(values(), true).olderThanMs).toBeUndefined();
  });

  it('names the inputs in the words of each front end', () => {
    try {
      readSweepInputs(values({ older_than: 'soon' }), true);
    } catch (error) {
      expect(
        error instanceof InputError && error.words((name) => `--${name.replace(/_/g, '-')}`)
      ).toMatch(/^--older-than must be a duration/);
    }
    expect.assertions(1);
  });
});

describe('on_existing', () => {
  const create = (onExisting: string) =>
    settingsOf({ project_id: 'p-1', create_branch: 'preview/pr-1', on_existing: onExisting })
      .request;

  it('reuse by default (none asked), or reset', () => {
    expect(create('')).not.toHaveProperty('onExisting');
    expect(create(' reset ')).toMatchObject({ onExisting: 'reset' });
    expect(create('reuse')).toMatchObject({ onExisting: 'reuse' });
  });

  it('on_existing: maybe is refused, naming the input and the choices', () => {
    const error = inputErrorOf({ project_id: 'p-1', create_branch: 'x', on_existing: 'maybe' });
    expect({ input: error.input, message: error.message }).toEqual({
      input: 'on_existing',
      message: "Input 'on_existing' must be reuse or reset; got 'maybe'."
    });
  });
});
