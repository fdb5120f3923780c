import { describe, expect, it } from '@jest/globals';
import { packageDirOf } from '../scripts/package-dir.js';

describe("the package a bundled module comes from (scripts/licenses.ts's list)", () => {
  it.each([
    ['./node_modules/pg/lib/index.js', 'node_modules/pg'],
    ['./node_modules/@actions/core/lib/core.js', 'node_modules/@actions/core'],
    // Nested copies (the @octokit/request override): the copy itself, not a top-level one.
    [
      './node_modules/@octokit/core/node_modules/@octokit/request/dist-bundle/index.js',
      'node_modules/@octokit/core/node_modules/@octokit/request'
    ],
    [
      './node_modules/@octokit/graphql/node_modules/content-type/dist/index.js',
      'node_modules/@octokit/graphql/node_modules/content-type'
    ],
    // node_modules reached through a link: the path as the bundler resolved it.
    ['../other/node_modules/undici/index.js', '../other/node_modules/undici']
  ])('%s is in %s', (path, dir) => {
    expect(packageDirOf(path)).toBe(dir);
  });

  it("leaves the project's own files out", () => {
    expect(packageDirOf('./src/action/index.ts')).toBeUndefined();
    expect(packageDirOf('webpack/runtime/compat')).toBeUndefined();
  });
});
