import { redact } from './redact.js';

/** Shortens text to at most `max` characters (code points, so no emoji is cut in half), ending with `…`. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  // Two UTF-16 units per code point at most: no need to split a 5 MB text to cut it.
  const chars = Array.from(text.slice(0, 2 * max + 2));
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/**
 * Characters that change how the text around them reads without being seen: control characters,
 * line and paragraph separators, and the bidirectional embeddings, overrides and isolates.
 */
export const INVISIBLE = /[\p{Cc}\u2028\u2029\u202A-\u202E\u2066-\u2069]+/gu;
/** The same without the control characters, for text whose line breaks are kept. */
export const INVISIBLE_FORMATTING = /[\u2028\u2029\u202A-\u202E\u2066-\u2069]+/gu;

/**
 * Text from the API on one line: secrets redacted first (a cut could otherwise leave part of one),
 * control and bidirectional characters and line breaks folded to spaces, then shortened.
 */
export function oneLine(text: unknown, max = 500): string {
  return truncate(redact(String(text)).replace(INVISIBLE, ' ').trim(), max);
}

/**
 * A log line made safe for text from the API: secrets are redacted, and no line can be read by the
 * Actions runner as a workflow command (the command's stderr too, in a `run:` step). The runner
 * reads `::name::` at the start of a line, and the legacy `##[name]` anywhere in it: a line starting
 * with `::` gets a marker in front, and every `##[` becomes `## [`.
 */
export function neutralize(text: string): string {
  return redact(text)
    .replace(INVISIBLE_FORMATTING, ' ')
    .split(/\r\n|\r|\n/)
    .map((line) => line.replace(/##\[/g, '## ['))
    .map((line) => (/^\s*::/.test(line) ? `» ${line}` : line))
    .join('\n');
}
