/**
 * Markdown turned into the HTML a reader of a job summary or a PR comment gets, for the render
 * tests and `npm run screenshot`. GitHub renders with cmark-gfm (raw HTML allowed), then cleans the
 * HTML with an allow-list. Here: micromark with its GFM extensions (it passes the CommonMark and
 * GFM spec suites, tag filter included), then hast-util-sanitize's default schema, which is
 * modelled on GitHub's allow-list (`<details open>`, `<sub>`, `title` kept; `<img onerror>`,
 * `<script>`, `javascript:` links, `style` removed).
 */
import { fromHtml } from 'hast-util-from-html';
import { defaultSchema, sanitize } from 'hast-util-sanitize';
import { toHtml } from 'hast-util-to-html';
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';

export function renderGfm(markdown: string): string {
  const unsafe = micromark(markdown, {
    // GitHub parses first and sanitizes after: let the sanitizer be the one that removes things.
    allowDangerousHtml: true,
    allowDangerousProtocol: true,
    extensions: [gfm()],
    htmlExtensions: [gfmHtml()]
  });
  return toHtml(sanitize(fromHtml(unsafe, { fragment: true }), defaultSchema));
}
