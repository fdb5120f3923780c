import { redact } from '../util/redact.js';
import { INVISIBLE, truncate } from '../util/text.js';

/**
 * Text from the API is data. In a Markdown table cell it must not close the cell, start a code
 * span, emphasis or a link, or become HTML: every character that could is written as an entity.
 */
const NAMED: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

export function escapeText(text: unknown, max = 300): string {
  // Secrets go first: once escaped (`_` becomes `&#95;`) or cut short, a key would no longer match.
  const flat = truncate(redact(String(text)).replace(INVISIBLE, ' ').trim(), max);
  return defuseReferences(flat).replace(
    /[&<>"'|`*_[\]\\~#!:@$]/g,
    (c) => NAMED[c] ?? `&#${c.charCodeAt(0)};`
  );
}

const ZWSP = '\u200b';

/**
 * GitHub turns `@user`, `@org/team`, `#123`, `owner/repo#5` and `GH-123` into mentions and links
 * after it has decoded entities, and GFM links a bare `www.` address: an entity cannot stop either.
 * A zero-width space after the `@`, the `#`, the `GH-` or the `www` does, and reads the same.
 */
function defuseReferences(text: string): string {
  return text
    .replace(/@(?=[\p{L}\p{N}_-])/gu, `@${ZWSP}`)
    .replace(/#(?=\d)/g, `#${ZWSP}`)
    .replace(/\b(gh-)(?=\d)/gi, `$1${ZWSP}`)
    .replace(/\b(www)(?=\.)/gi, `$1${ZWSP}`);
}

/** Inline code for ids we validated ourselves (no backticks possible, still escaped to be sure). */
export function code(text: string): string {
  return `<code>${escapeText(text, 120)}</code>`;
}
