import { describe, expect, it } from '@jest/globals';
import { countTokens } from '../count-tokens';
import { splitProse, splitSentences } from './split-text';

describe('splitSentences', () => {
  it('splits on sentence ends but not after common abbreviations', () => {
    expect(
      splitSentences(
        'Mr. Smith met Dr. Jones, e.g. at lunch. The U.S. grew 2.1% in Q3! Did it? 第一句。第二句。',
      ),
    ).toEqual([
      'Mr. Smith met Dr. Jones, e.g. at lunch.',
      'The U.S. grew 2.1% in Q3!',
      'Did it?',
      '第一句。',
      '第二句。',
    ]);
  });
});

describe('splitProse', () => {
  it('returns pieces within the budget that rebuild the text', () => {
    const text = Array.from({ length: 50 }, (_, index) => `Point ${index} is short.`).join(' ');
    const pieces = splitProse(text, 30);
    expect(pieces.length).toBeGreaterThan(5);
    for (const piece of pieces) expect(countTokens(piece)).toBeLessThanOrEqual(30);
    expect(pieces.join(' ')).toBe(text);
  });
});
