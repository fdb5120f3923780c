import { describe, expect, it } from '@jest/globals';
import { code, escapeText } from '../src/report/markdown.js';

const HOSTILE = [
  '<img src=x onerror=alert(1)>',
  'a | b | c',
  '`code` and ``more``',
  'line one\nline two\r\nline three\rfour',
  '*bold* and **bolder** and _it_',
  '[link](http://x)',
  '![image](http://x/y.png)',
  '</code><script>alert(1)</script>',
  '| --- |\n| x |',
  '\u0000nul\u0007bell\u001b[31mred\ttab'
];

/** Markdown or HTML structure that text must not create once put into a table cell. */
function expectInert(out: string): void {
  expect(out).not.toMatch(/[<>|`\n\r]/);
  expect(out).not.toMatch(/[*_[\]]/);
  expect(out).not.toMatch(/\p{Cc}/u);
}

describe('escapeText', () => {
  it.each(HOSTILE)('makes %j inert', (text) => expectInert(escapeText(text)));

  it.each([
    ['<img src=x onerror=alert(1)>', '&lt;img src=x onerror=alert(1)&gt;'],
    ['a|b', 'a&#124;b'],
    ['`x`', '&#96;x&#96;'],
    ['*bold*', '&#42;bold&#42;'],
    ['[link](http://x)', '&#91;link&#93;(http&#58;//x)'],
    ['one\ntwo', 'one two'],
    ['one\r\n\r\ntwo', 'one two'],
    ['  padded\n', 'padded'],
    ['Tom & "Jerry"', 'Tom &amp; &quot;Jerry&quot;'],
    ['plain text 123', 'plain text 123']
  ])('writes %j as %j', (text, expected) => expect(escapeText(text)).toBe(expected));

  it('truncates long text with … at the default max of 300', () => {
    const out = escapeText('a'.repeat(1000));
    expect(out).toHaveLength(300);
    expect(out.endsWith('…')).toBe(true);
    expect(out.slice(0, 299)).toBe('a'.repeat(299));
  });

  it.each([10, 50, 120])('truncates at a max of %d', (max) => {
    const out = escapeText('b'.repeat(max + 1), max);
    expect(out).toHaveLength(max);
    expect(out).toBe(`${'b'.repeat(max - 1)}…`);
  });

  it('leaves text of exactly max length alone', () => {
    expect(escapeText('c'.repeat(40), 40)).toBe('c'.repeat(40));
  });

  it('truncates before escaping, so no entity is cut in half', () => {
    const out = escapeText('<'.repeat(100), 10);
    expect(out).toBe(`${'&lt;'.repeat(9)}…`);
    expectInert(out);
  });
});

describe('code', () => {
  const inner = (out: string): string => {
    expect(out.startsWith('<code>')).toBe(true);
    expect(out.endsWith('</code>')).toBe(true);
    return out.slice('<code>'.length, -'</code>'.length);
  };

  it('wraps an id in <code>', () => {
    expect(code('d8ac46eb')).toBe('<code>d8ac46eb</code>');
  });

  it.each(HOSTILE)('makes %j inert inside <code>', (text) => expectInert(inner(code(text))));

  it('truncates at 120 characters', () => {
    const body = inner(code('z'.repeat(500)));
    expect(body).toHaveLength(120);
    expect(body.endsWith('…')).toBe(true);
  });
});
