import { describe, expect, it } from '@jest/globals';
import { recallAtK } from './recall';

describe('recallAtK', () => {
  it('counts the results as close as the exact k-th neighbour', () => {
    expect(recallAtK({ exact: [0.1, 0.2, 0.3], found: [0.1, 0.2, 0.3], k: 3 })).toBe(1);
    expect(recallAtK({ exact: [0.1, 0.2, 0.3], found: [0.1, 0.3, 0.5], k: 3 })).toBeCloseTo(2 / 3);
    expect(recallAtK({ exact: [0.1, 0.2, 0.3], found: [], k: 3 })).toBe(0);
  });

  it('does not count a tie in another order as a miss', () => {
    expect(recallAtK({ exact: [0.1, 0.2, 0.2], found: [0.2, 0.1, 0.2], k: 3 })).toBe(1);
  });

  it('scores against fewer than k exact results, and 1 when there are none', () => {
    expect(recallAtK({ exact: [0.1, 0.2], found: [0.1, 0.2, 0.9], k: 10 })).toBe(1);
    expect(recallAtK({ exact: [], found: [], k: 10 })).toBe(1);
  });
});
