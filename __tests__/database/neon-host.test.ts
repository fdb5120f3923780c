import { describe, expect, it } from '@jest/globals';
import { hostKey, isNeonHost, pooledHost } from '../../src/database/neon-host.js';

describe('database hosts, compared as names', () => {
  it.each([
    [
      'ep-cool-darkness-123456.us-east-2.aws.neon.tech',
      'ep-cool-darkness-123456.us-east-2.aws.neon.tech'
    ],
    [
      'EP-Cool-Darkness-123456.US-East-2.aws.neon.tech',
      'ep-cool-darkness-123456.us-east-2.aws.neon.tech'
    ],
    // The fully qualified form names the same host.
    [
      'ep-cool-darkness-a5b6c7d8-ffk.c-5.us-east-2.aws.neon.tech.',
      'ep-cool-darkness-a5b6c7d8-ffk.c-5.us-east-2.aws.neon.tech'
    ]
  ])('%s is %s', (host, key) => {
    expect(hostKey(host)).toBe(key);
  });

  it.each([
    'ep-cool-darkness-123456.us-east-2.aws.neon.tech',
    'ep-cool-darkness-123456-pooler.us-east-2.aws.neon.tech',
    'ep-cool-darkness-a5b6c7d8-ffk.c-5.us-east-2.aws.neon.tech',
    'ep-cool-darkness-a5b6c7d8-ffk.c-5.us-east-2.aws.neon.tech.',
    'ep-quiet-lake-e5f6a7b8.westus3.azure.neon.tech',
    'proxy.us-east-2.aws.neon.tech'
  ])('%s is on Neon', (host) => {
    expect(isNeonHost(host)).toBe(true);
  });

  it.each([
    '127.0.0.1',
    'db.example.com',
    'ep-cool-darkness-123456.example.com',
    'ep-cool-darkness-123456.neon.tech.example.com',
    'neon.tech',
    '::1'
  ])('%s is not on Neon', (host) => {
    expect(isNeonHost(host)).toBe(false);
  });

  it('forms the pooled host by the first label', () => {
    expect(pooledHost('ep-cool-darkness-123456.us-east-2.aws.neon.tech')).toBe(
      'ep-cool-darkness-123456-pooler.us-east-2.aws.neon.tech'
    );
  });
});
