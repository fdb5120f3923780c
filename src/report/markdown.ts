import { redact } from '../util/redact.js';
import { INVISIBLE, truncate } from '../util/text.js';

/**
 * Text from the API is data. In a Markdown table cell it must not close the cell, start a code
 * span, emphasis or a link, or become HTML: every character that could is written as an entity.
 */
const ENTITY: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '|': '&#124;',
  '`': '&#96;',
  '*': '&#42;',
  _: '&#95;',
  '[': '&#91;',
  ']': '&#93;',
  '\\': '&#92;',
  '~': '&#126;',
  '#': '&#35;',
  '!': '&#33;',
  ':': '&#58;',
  '@': '&#64;',
  $: '&#36;'
};

export function escapeText(text: unknown, max = 300): string {
  // Secrets go first: once escaped (`_` becomes `&#95;`) or cut short, a key would no longer match.
  const flat = truncate(redact(String(text)).replace(INVISIBLE, ' ').trim(), max);
  return flat.replace(/[&<>"'|`*_[\]\\~#!:@$]/g, (c) => ENTITY[c] as string);
}

/** Inline code for ids we validated ourselves (no backticks possible, still escaped to be sure). */
export function code(text: string): string {
  return `<code>${escapeText(text, 120)}</code>`;
}
