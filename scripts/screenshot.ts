/**
 * `npm run screenshot`: a PNG of the demo's job summary as a reader sees it, for the README and
 * for looking at what tests cannot judge (row heights, the timeline's axis). The demo (`npm run
 * demo`: the built action against the local simulator) writes the summary; it is rendered and
 * sanitized as GitHub does (gfm.ts), put in a page styled roughly like GitHub's, where Mermaid from
 * node_modules draws the timeline, and Debian's headless Chromium takes the picture.
 *
 *   npm run screenshot -- [--out FILE.png] [--summary FILE.md] [--width PX]
 *
 * Needs `chromium` (Debian: `apt-get install chromium`; `fonts-noto-color-emoji` for the status
 * marks). The page loads nothing but local files.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { renderGfm } from './gfm.js';

const root = resolve(import.meta.dirname, '..', '..');
const { values } = parseArgs({
  options: {
    out: { type: 'string', default: join(root, '.build', 'summary.png') },
    summary: { type: 'string' },
    width: { type: 'string', default: '1012' }
  }
});
const width = Number(values.width);
const out = resolve(values.out);

const chromium = ['chromium', 'chromium-browser'].find(
  (name) => spawnSync(name, ['--version'], { stdio: 'ignore' }).status === 0
);
if (!chromium) {
  console.error('No chromium found: on Debian, apt-get install chromium fonts-noto-color-emoji');
  process.exit(1);
}

const markdown = values.summary ? readFileSync(values.summary, 'utf8') : demoSummary();
const dir = mkdtempSync(join(tmpdir(), 'neon-wait-screenshot-'));
try {
  const page = join(dir, 'summary.html');
  writeFileSync(page, html(renderGfm(markdown)));
  const url = pathToFileURL(page).href;

  // First pass: let Mermaid draw, then read the page's height and whether every diagram rendered.
  const dom = run(chromium, ['--dump-dom', url]);
  const height = Number(/data-height="(\d+)"/.exec(dom)?.[1]);
  const failed = /data-mermaid-error="([^"]*)"/.exec(dom)?.[1];
  if (!height) throw new Error('The page did not finish rendering.');
  if (failed) throw new Error(`Mermaid could not draw the timeline: ${failed}`);

  mkdirSync(dirname(out), { recursive: true });
  run(chromium, [`--screenshot=${out}`, `--window-size=${width},${height}`, url]);
  if (!existsSync(out)) throw new Error('Chromium wrote no screenshot.');
  console.log(`${out} (${width}x${height})`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** The summary the demo writes: the Markdown between its "job summary" and "exit code" rules. */
function demoSummary(): string {
  const demo = spawnSync(process.execPath, [join(root, '.build', 'scripts', 'demo.js')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit']
  });
  const summary = /^──── job summary .*\n([\s\S]*?)^──── exit code/m.exec(demo.stdout)?.[1];
  if (!summary) throw new Error(`The demo printed no summary:\n${demo.stdout}`);
  return summary;
}

function run(browser: string, args: string[]): string {
  const result = spawnSync(
    browser,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--hide-scrollbars',
      '--no-first-run',
      '--force-device-scale-factor=1',
      // Mermaid draws after the load event: give the page time before the picture is taken.
      '--virtual-time-budget=10000',
      `--window-size=${width},800`,
      ...args
    ],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 120_000 }
  );
  if (result.status !== 0)
    throw new Error(`${browser} exited with ${result.status}: ${result.stderr}`);
  return result.stdout;
}

/** A page that looks roughly like a job summary on GitHub (light theme). */
function html(body: string): string {
  const mermaid = pathToFileURL(join(root, 'node_modules', 'mermaid', 'dist', 'mermaid.min.js'));
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Job summary</title>
<style>
  html { background: #f6f8fa; }
  body { margin: 0; padding: 16px; color: #1f2328; font: 14px/1.5 -apple-system, "Segoe UI",
    "Noto Sans", Helvetica, Arial, sans-serif, "Apple Color Emoji", "Noto Color Emoji"; }
  .box { background: #fff; border: 1px solid #d1d9e0; border-radius: 6px; padding: 16px 24px; }
  h3, h4 { font-weight: 600; line-height: 1.25; margin: 24px 0 16px; }
  h3 { font-size: 1.25em; margin-top: 0; } h4 { font-size: 1em; }
  p, blockquote, table, pre, details { margin: 0 0 16px; }
  blockquote { padding: 0 1em; color: #59636e; border-left: .25em solid #d1d9e0; }
  code { font: 85% ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
    padding: .2em .4em; background: #818b981f; border-radius: 6px; }
  /* GitHub's tables: as wide as their content, at most the page; cells wrap beyond that. */
  table { display: block; width: max-content; max-width: 100%; overflow: auto;
    border-collapse: collapse; border-spacing: 0; }
  th, td { padding: 6px 13px; border: 1px solid #d1d9e0; }
  th { font-weight: 600; } tr:nth-child(2n) { background: #f6f8fa; }
  details summary { cursor: pointer; margin-bottom: 8px; }
  .mermaid { text-align: center; border: 1px solid #d1d9e0; border-radius: 6px; padding: 8px; }
</style>
<script src="${mermaid.href}"></script>
</head><body><div class="box">
${body}
</div>
<script>
  // What GitHub does with a mermaid block: draws it in its place.
  (async () => {
    const nodes = [];
    for (const code of document.querySelectorAll('pre > code.language-mermaid')) {
      const div = document.createElement('div');
      div.className = 'mermaid';
      div.textContent = code.textContent;
      code.parentElement.replaceWith(div);
      nodes.push(div);
    }
    try {
      mermaid.initialize({ startOnLoad: false, theme: 'default' });
      await mermaid.run({ nodes });
    } catch (error) {
      document.body.dataset.mermaidError = String(error && error.message || error);
    }
    document.body.dataset.height = String(document.documentElement.scrollHeight);
  })();
</script>
</body></html>
`;
}
