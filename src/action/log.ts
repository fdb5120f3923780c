import * as core from '@actions/core';
import { redact } from '../util/redact.js';
import { INVISIBLE_FORMATTING, neutralize, oneLine, truncate } from '../util/text.js';

export { neutralize, oneLine };

// The job log, through `@actions/core`, made safe for text from the API (see `neutralize`).

/** Longest annotation text: the log keeps the whole story, an annotation only points to it. */
const ANNOTATION_CHARS = 4000;

/**
 * Data of a command: `@actions/core` escapes `%` and line breaks; secrets, `##[` and invisible
 * formatting are ours to defuse, and the length to bound.
 */
function commandData(message: string): string {
  return truncate(
    redact(message).replace(INVISIBLE_FORMATTING, ' ').replace(/##\[/g, '## ['),
    ANNOTATION_CHARS
  );
}

export function info(message: string): void {
  core.info(neutralize(message));
}

export function debug(message: string): void {
  if (core.isDebug()) core.debug(commandData(message));
}

export function warning(message: string, title?: string): void {
  core.warning(commandData(message), title ? { title } : {});
}

export function notice(message: string, title?: string): void {
  core.notice(commandData(message), title ? { title } : {});
}

/** Marks the step failed, with an error annotation. */
export function fail(message: string, title?: string): void {
  process.exitCode = core.ExitCode.Failure;
  core.error(commandData(message), title ? { title } : {});
}
