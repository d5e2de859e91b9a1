import { describe, expect, it } from '@jest/globals';
import { median, percentile } from './stats';

describe('percentile', () => {
  it('uses the nearest rank', () => {
    const samples = Array.from({ length: 100 }, (_, index) => index + 1);
    expect(percentile(samples, 0.5)).toBe(50);
    expect(percentile(samples, 0.99)).toBe(99);
    expect(percentile(samples, 1)).toBe(100);
    expect(percentile([5], 0.99)).toBe(5);
  });
});

describe('median', () => {
  it('averages the two middle samples of an even count', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([3, 1, 2])).toBe(2);
    expect(Number.isNaN(median([]))).toBe(true);
  });
});
