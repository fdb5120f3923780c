import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ACTION_NAME, ACTION_VERSION } from '../src/version.js';

const root = resolve(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');

describe('version', () => {
  it('sends the version and name of package.json in its User-Agent', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
    };
    expect(ACTION_VERSION).toBe(pkg.version);
    expect(ACTION_NAME).toBe(pkg.name);
  });

  it('has a CHANGELOG entry for the version or an Unreleased section', () => {
    const changelog = readFileSync(join(root, 'CHANGELOG.md'), 'utf8');
    expect(changelog).toMatch(
      new RegExp(`## \\[(${ACTION_VERSION.replace(/\./g, '\\.')}|Unreleased)\\]`)
    );
  });
});
