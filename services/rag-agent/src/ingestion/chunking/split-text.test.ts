import { describe, expect, it } from '@jest/globals';
import { countTokens } from '../count-tokens';
import { splitProse } from './split-text';

describe('splitProse', () => {
  it('returns pieces within the budget that rebuild the text', () => {
    const text = Array.from({ length: 50 }, (_, index) => `Point ${index} is short.`).join(' ');
    const pieces = splitProse(text, 30);
    expect(pieces.length).toBeGreaterThan(5);
    for (const piece of pieces) expect(countTokens(piece)).toBeLessThanOrEqual(30);
    expect(pieces.join(' ')).toBe(text);
  });
});
