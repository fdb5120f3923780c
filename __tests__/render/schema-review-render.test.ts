/**
 * The schema review as GitHub shows it (rendered and sanitized by scripts/gfm.ts, parsed into a
 * DOM): above the fold the counts and every destructive change named, the diff folded below, and
 * nothing in a diff or a name that closes a block, makes HTML or mentions anyone.
 */
import { describe, expect, it } from '@jest/globals';
import type { HTMLElement } from 'happy-dom';
import { readSchemaDiff } from '../../src/database/schema-diff.js';
import { COMMENT_LIMIT } from '../../src/report/summary.js';
import { renderSchemaReview } from '../../src/report/schema-review.js';
import { elementNames, githubReferences, renderToDom, text } from '../helpers/render.js';
import {
  ADD_TABLE_AND_INDEX,
  DROP_COLUMN_AND_TABLE,
  schemaDiffOf
} from '../../simulator/schema-diffs.js';

const REVIEW_ELEMENTS = [
  'h4',
  'p',
  'ul',
  'li',
  'code',
  'strong',
  'em',
  'details',
  'summary',
  'pre'
];

const review = (diff: string, maxBytes = COMMENT_LIMIT) =>
  renderSchemaReview({ database: 'neondb', diff, read: readSchemaDiff(diff) }, maxBytes);

/** The lines a diff shows once rendered: its code block's text. */
const shownDiff = (root: HTMLElement): string =>
  root.querySelector('details pre > code.language-diff')?.textContent ?? '';

/** What the review names above the fold, as read: one entry a list item. */
const named = (root: HTMLElement): string[] =>
  [...root.querySelectorAll(':scope > ul > li')].map((li) => text(li).replace(/\u200b/g, ''));

function expectOnlyReviewElements(root: HTMLElement): void {
  expect([...elementNames(root)].filter((name) => !REVIEW_ELEMENTS.includes(name))).toEqual([]);
  expect(root.querySelectorAll('details')).toHaveLength(1);
  expect(githubReferences(root)).toEqual([]);
}

describe('renderSchemaReview', () => {
  it('says "No schema change." for an empty diff, with no fold', () => {
    const root = renderToDom(review(''));
    expect(text(root)).toBe('Schema review of neondb No schema change.');
    expect(root.querySelector('details')).toBeNull();
  });

  it('counts a migration that adds a table and an index, says "No destructive change.", folds the diff whole', () => {
    const root = renderToDom(review(ADD_TABLE_AND_INDEX));
    expectOnlyReviewElements(root);
    const paragraphs = [...root.querySelectorAll(':scope > p')].map((p) => text(p));
    expect(paragraphs).toEqual([
      '1 table added · 1 index added · 2 constraints added · 1 sequence added',
      'No destructive change.'
    ]);
    expect(named(root)).toEqual([]);
    expect(text(root.querySelector('summary')!)).toBe('Schema diff: +65 −0 lines');
    expect(shownDiff(root)).toBe(ADD_TABLE_AND_INDEX);
    expect(root.querySelector('details')!.hasAttribute('open')).toBe(false);
  });

  it('names a dropped column and a dropped table above the fold', () => {
    const root = renderToDom(review(DROP_COLUMN_AND_TABLE));
    expectOnlyReviewElements(root);
    expect(text(root.querySelector(':scope > p:last-of-type')!)).toBe('⚠ 2 destructive changes:');
    expect(named(root)).toEqual(['⚠ drops table posts', '⚠ drops column users.name']);
    expect(shownDiff(root)).toBe(DROP_COLUMN_AND_TABLE);
  });

  it('reads CRLF as LF', () => {
    expect(review(DROP_COLUMN_AND_TABLE.replace(/\n/g, '\r\n'))).toBe(
      review(DROP_COLUMN_AND_TABLE)
    );
  });

  it('keeps a 200 kB diff under the comment limit: the cut said, every destructive change named', () => {
    // Forty dropped columns and tables at the end of 200 kB of added tables: the part that is cut.
    const added = Array.from({ length: 1500 }, (_, i) => [
      '+--',
      `+-- Name: audit_${i}; Type: TABLE; Schema: public; Owner: neondb_owner`,
      '+--',
      '+',
      `+CREATE TABLE public.audit_${i} (`,
      '+    id bigint NOT NULL,',
      '+    payload jsonb',
      '+);',
      '+'
    ]).flat();
    const dropped = Array.from({ length: 20 }, (_, i) => [
      '---',
      `--- Name: legacy_${i}; Type: TABLE; Schema: public; Owner: neondb_owner`,
      '---',
      '-',
      `-CREATE TABLE public.legacy_${i} (`,
      `-    note_${i} text`,
      '-);'
    ]).flat();
    const diff = schemaDiffOf([...added, ...dropped]);
    expect(diff.length).toBeGreaterThan(200_000);
    const markdown = review(diff);
    expect(markdown.length).toBeLessThan(65_536);
    expect(Buffer.byteLength(markdown)).toBeLessThanOrEqual(COMMENT_LIMIT);
    const root = renderToDom(markdown);
    expectOnlyReviewElements(root);
    expect(named(root)).toEqual(Array.from({ length: 20 }, (_, i) => `⚠ drops table legacy_${i}`));
    const shown = shownDiff(root).split('\n').length - 1;
    const total = diff.split('\n').length - 1;
    expect(text(root.querySelector('details > p')!)).toBe(
      `${shown.toLocaleString('en-US')} lines of ${total.toLocaleString('en-US')} shown: ` +
        `${(total - shown).toLocaleString('en-US')} left out to keep this within GitHub's size limit.`
    );
    expect(diff.startsWith(shownDiff(root))).toBe(true);
  });

  it('cuts a line of a megabyte to 2,000 characters, and keeps the budget', () => {
    const long = `+COMMENT ON TABLE public.t IS '${'x'.repeat(1_000_000)}';`;
    const markdown = review(schemaDiffOf([long]), 10_000);
    expect(Buffer.byteLength(markdown)).toBeLessThanOrEqual(10_000);
    const shown = shownDiff(renderToDom(markdown)).split('\n');
    expect(shown[3]).toHaveLength(2000);
    expect(shown[3]?.endsWith('x…')).toBe(true);
  });

  it('cuts the list of destructive changes only when it alone passes the budget, and says so', () => {
    const dropped = Array.from({ length: 200 }, (_, i) => [
      `--- Name: t${i}; Type: TABLE; Schema: public; Owner: o`,
      `-CREATE TABLE public.t${i} (`,
      '-);'
    ]).flat();
    const markdown = review(schemaDiffOf(dropped), 2000);
    expect(Buffer.byteLength(markdown)).toBeLessThanOrEqual(2000);
    const items = named(renderToDom(markdown));
    expect(items.at(-1)).toMatch(
      /^… and \d+ more, left out to keep this within GitHub's size limit$/
    );
    const more = Number(/and (\d+) more/.exec(items.at(-1) ?? '')?.[1]);
    expect(items.length - 1 + more).toBe(200);
  });
});

describe('renderSchemaReview on a hostile diff', () => {
  // A migration whose names, comments and function body try to end the fold, open HTML, start a
  // fence of their own and mention someone.
  const diff = schemaDiffOf([
    '--',
    '--- Name: we`ird; Type: TABLE; Schema: public; Owner: o',
    '+-- Name: </details><img src=x onerror=alert(1)>; Type: TABLE; Schema: public; Owner: o',
    ' --',
    ' ',
    '-CREATE TABLE public."we`ird" (',
    '-    "@octocat" text',
    '+CREATE TABLE public."</details><img src=x onerror=alert(1)>" (',
    '+    "```" text',
    ' );',
    "+COMMENT ON TABLE public.x IS '@octocat ``` </details> <script>alert(1)</script> #1';",
    '+CREATE FUNCTION public.f() RETURNS text',
    '+    LANGUAGE sql',
    '+    AS $$',
    ' ```',
    ' </details>',
    ' ````',
    "+SELECT '@octocat' $$;",
    '+-- [link](javascript:alert(1)) <!-- ** @octocat/team'
  ]);
  const root = renderToDom(review(diff));

  it("renders only the review's elements: no image, script, link or second fold", () => {
    expectOnlyReviewElements(root);
    expect(root.querySelectorAll('img, script, a')).toHaveLength(0);
  });

  it('shows the whole diff inside its one code block, exactly as written', () => {
    expect(shownDiff(root)).toBe(diff);
    expect(root.querySelectorAll('pre')).toHaveLength(1);
  });

  it('names the dropped table with its backtick, escaped, mentioning no one', () => {
    expect(named(root)).toEqual(['⚠ drops table we`ird']);
    expect(root.querySelectorAll(':scope > ul code')).toHaveLength(1);
  });

  it('names a dropped column called @octocat without mentioning anyone', () => {
    const columns = schemaDiffOf([
      ' CREATE TABLE public.users (',
      '     id bigint NOT NULL,',
      '-    "@octocat" text,',
      '-    "<b>x</b>" text',
      '+    "`x`" text',
      ' );'
    ]);
    const page = renderToDom(review(columns));
    expectOnlyReviewElements(page);
    expect(named(page)).toEqual(['⚠ drops column users.@octocat', '⚠ drops column users.<b>x</b>']);
    expect(page.querySelectorAll('b')).toHaveLength(0);
  });
});
