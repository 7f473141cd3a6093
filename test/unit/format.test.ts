import { describe, expect, it } from '@jest/globals';
import { formatMs } from '../../src/format.js';

describe('formatMs', () => {
  it('never calls a sub-millisecond time 0 ms (a healthy fsync mean of 30 us)', () => {
    expect(formatMs(0.03)).toBe('< 0.1 ms');
    expect(`mean ${formatMs(0.049)}`).toBe('mean < 0.1 ms');
    expect(formatMs(0.05)).toBe('0.1 ms');
    expect(formatMs(0)).toBe('0 ms');
  });

  it('keeps one decimal under 10 ms, whole ms above, seconds from 1 s', () => {
    expect(formatMs(0.26)).toBe('0.3 ms');
    expect(formatMs(3.8)).toBe('3.8 ms');
    expect(formatMs(12.4)).toBe('12 ms');
    expect(formatMs(1500)).toBe('1.5 s');
    expect(formatMs(undefined)).toBe('n/a');
  });
});
