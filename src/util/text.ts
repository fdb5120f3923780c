import { redact } from './redact.js';

/** Shortens text to at most `max` characters (code points, so no emoji is cut in half), ending with `…`. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  // Two UTF-16 units per code point at most: no need to split a 5 MB text to cut it.
  const chars = Array.from(text.slice(0, 2 * max + 2));
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/** Unseen characters that change how text reads: controls, line separators, bidi overrides. */
export const INVISIBLE = /[\p{Cc}\u2028\u2029\u202A-\u202E\u2066-\u2069]+/gu;
/** The same without the control characters, for text whose line breaks are kept. */
const INVISIBLE_FORMATTING = /[\u2028\u2029\u202A-\u202E\u2066-\u2069]+/gu;

/** Text from the API on one line: redacted first (a cut could leave part of a secret), folded, cut. */
export const oneLine = (text: unknown, max = 500): string =>
  truncate(redact(String(text)).replace(INVISIBLE, ' ').trim(), max);

/**
 * Text safe in a workflow command's data: secrets redacted, invisible formatting folded, and the
 * legacy `##[name]` command, which the Actions runner reads anywhere in a line, broken as `## [`.
 */
export const defuse = (text: string): string =>
  redact(text).replace(INVISIBLE_FORMATTING, ' ').replace(/##\[/g, '## [');

/** A log line safe for text from the API: `defuse`d, `» ` before a line starting with `::` (a command). */
export const neutralize = (text: string): string =>
  defuse(text)
    .replace(/\r\n?/g, '\n')
    .replace(/^(?=[^\S\n]*::)/gm, '» ');

/** The text with its first letter in upper case, to start a sentence. */
export const capital = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
