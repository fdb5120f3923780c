import * as runner from './runner.js';
import { redact } from './redact.js';
import { truncate } from './text.js';

/**
 * Logging that is safe for text from the API: secrets are redacted, and no line can be read by the
 * runner as a workflow command (`::error::…`, `##[set-output …]`), because a line that would be is
 * prefixed with a space-separated marker.
 */
export function neutralize(text: string): string {
  return redact(text)
    .split(/\r\n|\r|\n/)
    .map((line) => (/^\s*(::|##\[)/.test(line) ? `» ${line}` : line))
    .join('\n');
}

/** Text from the API shown inside one log line: control characters and newlines folded. */
export function oneLine(text: string, max = 500): string {
  const flat = text.replace(/\p{Cc}+/gu, ' ').trim();
  return truncate(flat, max);
}

export function info(message: string): void {
  runner.info(neutralize(message));
}

export function debug(message: string): void {
  if (runner.isDebug()) runner.command('debug', redact(message));
}

/** Annotations: newlines in their data are escaped, so only secrets need care here. */
export function warning(message: string): void {
  runner.command('warning', redact(message));
}

export function notice(message: string): void {
  runner.command('notice', redact(message));
}

export function fail(message: string): void {
  runner.setFailed(redact(message));
}
