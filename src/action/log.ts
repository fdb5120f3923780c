import * as core from '@actions/core';
import { redact } from '../util/redact.js';
import { INVISIBLE_FORMATTING, oneLine, truncate } from '../util/text.js';

export { oneLine };

/**
 * The job log, through `@actions/core`, made safe for text from the API: secrets are redacted, and
 * no line can be read by the runner as a workflow command. The runner reads `::name::` at the start
 * of a line, and the legacy `##[name]` anywhere in it: a line starting with `::` gets a marker in
 * front, and every `##[` becomes `## [`.
 */
export function neutralize(text: string): string {
  return redact(text)
    .replace(INVISIBLE_FORMATTING, ' ')
    .split(/\r\n|\r|\n/)
    .map((line) => line.replace(/##\[/g, '## ['))
    .map((line) => (/^\s*::/.test(line) ? `» ${line}` : line))
    .join('\n');
}

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
