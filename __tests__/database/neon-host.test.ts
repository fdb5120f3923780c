import { describe, expect, it } from '@jest/globals';
import { neonEndpointId } from '../../src/database/neon-host.js';

describe('neonEndpointId', () => {
  it.each([
    ['ep-cool-darkness-123456.us-east-2.aws.neon.tech', 'ep-cool-darkness-123456'],
    ['ep-cool-darkness-123456-pooler.us-east-2.aws.neon.tech', 'ep-cool-darkness-123456'],
    ['EP-Cool-Darkness-123456.eu-central-1.aws.neon.tech', 'ep-cool-darkness-123456'],
    ['ep-quiet-lake-e5f6a7b8.westus3.azure.neon.tech', 'ep-quiet-lake-e5f6a7b8']
  ])('%s names %s', (host, id) => {
    expect(neonEndpointId(host)).toBe(id);
  });

  it.each([
    '127.0.0.1',
    'db.example.com',
    'ep-cool-darkness-123456.example.com',
    'ep-cool-darkness-123456.neon.tech.example.com',
    'proxy.us-east-2.aws.neon.tech',
    'ep-.us-east-2.aws.neon.tech',
    '::1'
  ])('%s names no endpoint', (host) => {
    expect(neonEndpointId(host)).toBeUndefined();
  });
});
