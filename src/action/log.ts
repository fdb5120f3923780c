import * as runner from './runner.js';
import { redact } from '../util/redact.js';
import { truncate } from '../util/text.js';

/**
 * Logging that is safe for text from the API: secrets are redacted, and no line can be read by the
 * runner as a workflow command. The runner reads `::name::` at the start of a line, and the legacy
 * `##[name]` anywhere in it: a line starting with `::` gets a marker in front, and every `##[`
 * becomes `## [`.
 */
export function neutralize(text: string): string {
  return redact(text)
    .split(/\r\n|\r|\n/)
    .map((line) => line.replace(/##\[/g, '## ['))
    .map((line) => (/^\s*::/.test(line) ? `» ${line}` : line))
    .join('\n');
}

/**
 * Text from the API shown inside one log line: secrets redacted first (a cut could otherwise leave
 * part of one), control characters and newlines folded, then shortened.
 */
export function oneLine(text: unknown, max = 500): string {
  const flat = redact(String(text))
    .replace(/\p{Cc}+/gu, ' ')
    .trim();
  return truncate(flat, max);
}

export function info(message: string): void {
  runner.info(neutralize(message));
}

/** Data of a command: newlines are escaped by the protocol; secrets and `##[` are ours to defuse. */
function commandData(message: string): string {
  return redact(message).replace(/##\[/g, '## [');
}

export function debug(message: string): void {
  if (runner.isDebug()) runner.command('debug', commandData(message));
}

/** Annotations: newlines in their data are escaped, so only secrets need care here. */
export function warning(message: string): void {
  runner.command('warning', commandData(message));
}

export function notice(message: string): void {
  runner.command('notice', commandData(message));
}

export function fail(message: string): void {
  runner.setFailed(commandData(message));
}
