import { describe, expect, it } from '@jest/globals';
import { compileBranchPattern, patternLike, PatternError } from '../src/neon/branch-pattern.js';

const matches = (pattern: string, name: string) => compileBranchPattern(pattern).match(name);

describe('branch name patterns: * and {pr} against the whole name', () => {
  it.each([
    ['preview/*', 'preview/pr-12', {}],
    ['preview/*', 'preview/feature/login', {}],
    ['*', 'main', {}],
    ['preview/pr-{pr}', 'preview/pr-12', { pr: 12 }],
    ['{pr}-*', '7-fix', { pr: 7 }],
    ['*{pr}', 'abc123', { pr: 123 }],
    ['pr-{pr}/db-{pr}', 'pr-5/db-5', { pr: 5 }],
    ['preview/pr-{pr}*', 'preview/pr-42-migrations', { pr: 42 }]
  ])('%s matches %s', (pattern, name, expected) => {
    expect(matches(pattern, name)).toEqual(expected);
  });

  it.each([
    ['preview/*', 'preview'],
    ['preview/*', 'old/preview/pr-1'],
    ['preview/pr-{pr}', 'preview/pr-12-child'],
    ['preview/pr-{pr}', 'preview/pr-'],
    ['preview/pr-{pr}', 'preview/pr-012'],
    ['preview/pr-{pr}', 'preview/pr-x'],
    ['preview/pr-{pr}', 'Preview/pr-1'],
    ['pr-{pr}/db-{pr}', 'pr-5/db-6'],
    ['preview/pr-{pr}', 'preview/pr-12345678901']
  ])('%s does not match %s', (pattern, name) => {
    expect(matches(pattern, name)).toBeUndefined();
  });

  it('takes regular-expression metacharacters in a name as themselves', () => {
    expect(matches('release.1+(x)', 'release.1+(x)')).toEqual({});
    expect(matches('release.1+(x)', 'releaseX11(x)')).toBeUndefined();
    expect(matches('a|b', 'a')).toBeUndefined();
    expect(matches('[ab]^$\\', '[ab]^$\\')).toEqual({});
    expect(matches('x?', 'x')).toBeUndefined();
    expect(matches('feat/{pr}.*', 'feat/3.anything')).toEqual({ pr: 3 });
    expect(matches('feat/{pr}.*', 'feat/3Xanything')).toBeUndefined();
  });

  it.each([
    ['', 'it is empty'],
    ['   ', 'it is empty'],
    ['preview/{PR}', '{PR} is not a placeholder: only {pr} is'],
    ['preview/{id}-{pr}', '{id} is not a placeholder: only {pr} is'],
    ['preview/{}', '{} is not a placeholder: only {pr} is']
  ])('refuses %j: %s', (pattern, why) => {
    expect(() => compileBranchPattern(pattern)).toThrow(new PatternError(why));
  });
});

describe('a pattern like a branch name, for the sweep a branch-limit error suggests', () => {
  it.each([
    ['preview/pr-11', 'preview/pr-{pr}'],
    ['pr-7/app', 'pr-{pr}/app'],
    ['preview/v2-pr-11', 'preview/v2-pr-{pr}'],
    ['preview/login-page', 'preview/*'],
    ['preview/pr-011', 'preview/*'],
    ['main', undefined],
    ['preview/', undefined]
  ])('%s → %s', (name, pattern) => {
    expect(patternLike(name)).toBe(pattern);
  });
});
