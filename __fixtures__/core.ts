/**
 * A typed stand-in for `@actions/core`, loaded with `jest.unstable_mockModule` before the module
 * under test (the way actions/typescript-action tests its main): tests read what the action told
 * the runner from these mocks instead of from a child process.
 */
import type * as core from '@actions/core';
import { jest } from '@jest/globals';

export const ExitCode = { Success: 0, Failure: 1 } as const;
export const debug = jest.fn<typeof core.debug>();
export const error = jest.fn<typeof core.error>();
export const info = jest.fn<typeof core.info>();
export const notice = jest.fn<typeof core.notice>();
export const warning = jest.fn<typeof core.warning>();
export const getInput = jest.fn<typeof core.getInput>();
export const setOutput = jest.fn<typeof core.setOutput>();
// As @actions/core does it: the exit code, then an error annotation.
export const setFailed = jest.fn<typeof core.setFailed>((message) => {
  process.exitCode = ExitCode.Failure;
  error(message);
});
export const setSecret = jest.fn<typeof core.setSecret>();
export const isDebug = jest.fn<typeof core.isDebug>(() => false);
export const saveState = jest.fn<typeof core.saveState>();
export const getState = jest.fn<typeof core.getState>(() => '');

/** The job summary: what was added, and what `write()` flushed. */
export const summaryText: string[] = [];
let buffer = '';
export const summary = {
  addRaw: jest.fn((text: string, addEol = false) => {
    buffer += text + (addEol ? '\n' : '');
    return summary;
  }),
  write: jest.fn(async () => {
    summaryText.push(buffer);
    buffer = '';
    return summary;
  }),
  emptyBuffer: jest.fn(() => {
    buffer = '';
    return summary;
  })
};

/** Every mock back to its first state, with `inputs` as what `getInput` answers. */
export function reset(inputs: Record<string, string> = {}): void {
  for (const fn of [debug, error, info, notice, warning, setOutput, setSecret, saveState])
    fn.mockReset();
  setFailed.mockClear();
  getInput.mockReset();
  getInput.mockImplementation((name) => inputs[name] ?? '');
  summary.write.mockClear();
  summary.addRaw.mockClear();
  summaryText.length = 0;
  buffer = '';
}

/** The outputs set so far, by name. */
export function outputs(): Record<string, string> {
  return Object.fromEntries(setOutput.mock.calls.map(([name, value]) => [name, String(value)]));
}
