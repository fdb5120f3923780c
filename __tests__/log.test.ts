import { afterEach, describe, expect, it } from '@jest/globals';
import { neutralize, oneLine } from '../src/util/text.js';
import { clearSecrets, redact, REDACTED, registerSecret } from '../src/util/redact.js';

afterEach(() => clearSecrets());

/** True when the runner could read some line of the text as a workflow command. */
function hasCommandLine(text: string): boolean {
  return text.split(/\r\n|\r|\n/).some((line) => /^(::|##\[)/.test(line.trim()));
}

describe('neutralize', () => {
  it.each([
    '::error::boom',
    '  ::set-output name=x::value',
    '##[error]boom',
    '\t::add-mask::value',
    '::stop-commands::token',
    'fine\n::error::second line',
    'fine\r\n  ::warning file=a::x\r\nfine',
    'fine\r##[group]x',
    '::error::a\n##[error]b\n  ::debug::c'
  ])('neutralizes %j', (text) => {
    expect(hasCommandLine(text)).toBe(true);
    const out = neutralize(text);
    expect(hasCommandLine(out)).toBe(false);
  });

  it('keeps the text readable after a marker', () => {
    expect(neutralize('::error::boom')).toBe('» ::error::boom');
    expect(neutralize('  ::set-output name=x::')).toBe('»   ::set-output name=x::');
    expect(neutralize('##[error]boom')).toBe('## [error]boom');
  });

  it.each(['plain text', 'a :: in the middle', 'line1\nline2', ''])('leaves %j as it is', (text) =>
    expect(neutralize(text)).toBe(text)
  );

  it('breaks a legacy ##[ command anywhere in a line, since the runner finds it there too', () => {
    expect(neutralize('x ##[stop-commands]tok ##[add-mask]y')).toBe(
      'x ## [stop-commands]tok ## [add-mask]y'
    );
  });

  it('redacts registered secrets as well', () => {
    registerSecret('hunter2-secret');
    expect(neutralize('::error::key hunter2-secret')).toBe('» ::error::key ***');
  });
});

describe('oneLine', () => {
  it.each([
    ['a\nb', 'a b'],
    ['a\r\nb\rc', 'a b c'],
    ['a\n\n\nb', 'a b'],
    ['\ttabbed\u0000nul\u001bx', 'tabbed nul x'],
    ['  padded \n', 'padded'],
    ['no change', 'no change']
  ])('folds %j into %j', (text, expected) => expect(oneLine(text)).toBe(expected));

  it('never returns a newline', () => {
    expect(oneLine('::error::x\n::error::y')).not.toMatch(/[\r\n]/);
  });

  it('truncates with … at the max length', () => {
    expect(oneLine('x'.repeat(1000))).toHaveLength(500);
    expect(oneLine('x'.repeat(1000)).endsWith('…')).toBe(true);
    expect(oneLine('abcdefghij', 5)).toBe('abcd…');
    expect(oneLine('abcde', 5)).toBe('abcde');
  });
});

describe('redact', () => {
  it('replaces a registered secret everywhere', () => {
    registerSecret('napi_abcdef123456');
    expect(redact('key=napi_abcdef123456 and again napi_abcdef123456')).toBe(
      `key=${REDACTED} and again ${REDACTED}`
    );
    expect(REDACTED).toBe('***');
  });

  it('replaces the JSON-escaped form', () => {
    const secret = 'pa"ss\\word\n42';
    registerSecret(secret);
    const json = JSON.stringify({ key: secret });
    expect(json).not.toContain(secret);
    expect(redact(json)).toBe('{"key":"***"}');
  });

  it('replaces the URL-encoded form', () => {
    const secret = 'p@ss w/rd&x=1';
    registerSecret(secret);
    const url = `https://x/?token=${encodeURIComponent(secret)}`;
    expect(url).not.toContain(secret);
    expect(redact(url)).toBe('https://x/?token=***');
  });

  it('replaces the trimmed form of a padded secret', () => {
    registerSecret('  padded-secret\n');
    expect(redact('value padded-secret here')).toBe('value *** here');
  });

  it('replaces a longer secret whole when it contains a shorter one', () => {
    registerSecret('abcd');
    registerSecret('abcdefgh');
    expect(redact('x abcdefgh y abcd z')).toBe('x *** y *** z');
  });

  it.each(['', 'a', 'ab', 'abc', '  abc  ', '\n\t'])('ignores the short secret %j', (secret) => {
    registerSecret(secret);
    expect(redact('abc ab a   abc  ')).toBe('abc ab a   abc  ');
  });

  it('takes a secret of exactly 4 characters', () => {
    registerSecret('abcd');
    expect(redact('xabcdx')).toBe('x***x');
  });

  it('leaves text alone when nothing is registered', () => {
    expect(redact('nothing to hide')).toBe('nothing to hide');
  });

  it('forgets secrets after clearSecrets', () => {
    registerSecret('forget-me');
    clearSecrets();
    expect(redact('forget-me')).toBe('forget-me');
  });
});
