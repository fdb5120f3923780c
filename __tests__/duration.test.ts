import { describe, expect, it } from '@jest/globals';
import { formatDuration, parseDuration } from '../src/util/duration.js';

describe('parseDuration', () => {
  it.each([
    ['90', 90_000],
    ['90s', 90_000],
    ['15m', 900_000],
    ['1h', 3_600_000],
    ['1m30s', 90_000],
    ['1h2m3s', 3_723_000],
    ['500ms', 500],
    ['1.5s', 1500],
    [' 10M ', 600_000]
  ])('reads %s', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['', 'soon', '10 minutes', '1s1s', 's', '-5s', '5x', '1m 30s', 'm5'])(
    'refuses %j',
    (text) => expect(parseDuration(text)).toBeUndefined()
  );
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [450, '450ms'],
    [1500, '1.5s'],
    [75_000, '1m15s'],
    [3_600_000, '1h'],
    [3_723_000, '1h2m3s']
  ])('writes %d as %s', (ms, text) => expect(formatDuration(ms)).toBe(text));
});
