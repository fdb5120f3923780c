import { describe, expect, it } from '@jest/globals';
import { NEON_API_HOST } from '../src/neon/http.js';
import { branchUrl, consoleLinksFor, linkedCode, projectUrl } from '../src/report/links.js';

describe('consoleLinksFor', () => {
  it.each([
    NEON_API_HOST,
    'https://console.neon.tech/api/v2/',
    'https://CONSOLE.NEON.TECH/api/v2',
    'https://console.neon.tech:443/api/v2'
  ])('links for Neon’s own API at %s', (host) => {
    expect(consoleLinksFor(host)).toBe(true);
  });

  it.each([
    'http://127.0.0.1:8080',
    'http://localhost/api/v2',
    'https://neon-proxy.example.com/api/v2',
    'https://console.neon.tech.example.com/api/v2',
    'https://console.neon.tech/api/v1',
    'https://console.neon.tech/api/v2/projects',
    'https://console.neon.tech:8443/api/v2',
    'http://console.neon.tech/api/v2',
    'https://user:pw@console.neon.tech/api/v2',
    'https://console.neon.tech/api/v2?x=1',
    'not a url',
    ''
  ])('does not link for %j', (host) => {
    expect(consoleLinksFor(host)).toBe(false);
  });
});

describe('console addresses', () => {
  it('follow the formats of Neon’s own tools', () => {
    expect(projectUrl('restless-sun-58231907')).toBe(
      'https://console.neon.tech/app/projects/restless-sun-58231907'
    );
    expect(branchUrl('restless-sun-58231907', 'br-calm-river-a1b2c3d4')).toBe(
      'https://console.neon.tech/app/projects/restless-sun-58231907/branches/br-calm-river-a1b2c3d4'
    );
  });

  // Ids come from the API: only the documented pattern (^[a-z0-9-]{1,60}$) goes into an address.
  it.each([
    'Restless-Sun',
    'a/../../settings',
    'x"><script>',
    'a b',
    'a?b=c',
    'x'.repeat(61),
    '',
    undefined
  ])('makes none for the id %j', (id) => {
    expect(projectUrl(id)).toBeUndefined();
    expect(branchUrl(id, 'br-x')).toBeUndefined();
    expect(branchUrl('p-1', id)).toBeUndefined();
  });
});

describe('linkedCode', () => {
  it('wraps the code in a link when there is an address, and escapes the id', () => {
    expect(linkedCode('br-x', 'https://console.neon.tech/app/projects/p/branches/br-x')).toBe(
      '<a href="https://console.neon.tech/app/projects/p/branches/br-x"><code>br-x</code></a>'
    );
    expect(linkedCode('a_b', undefined)).toBe('<code>a&#95;b</code>');
  });
});
