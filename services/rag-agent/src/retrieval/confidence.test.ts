import { describe, expect, it } from '@jest/globals';
import { retrievalConfidence } from './confidence';
import { keywordQuery } from './keyword-query';

describe('retrievalConfidence', () => {
  it('is 1 when both searches rank the best chunks first, at most 0.5 when only one found them', () => {
    expect(retrievalConfidence([{ score: 2 / 61 }, { score: 2 / 61 }])).toBe(1);
    expect(retrievalConfidence([{ score: 1 / 61 }, { score: 1 / 62 }, { score: 1 / 63 }])).toBe(
      0.49,
    );
    expect(retrievalConfidence([{ score: 2 / 61 }, { score: 1 / 61 + 1 / 63 }])).toBe(0.99);
    expect(retrievalConfidence([])).toBe(0);
  });

  it('uses the re-ranker’s scores when it ran, over the best three', () => {
    expect(
      retrievalConfidence([
        { score: 0.001, rerankScore: 10 },
        { score: 0.001, rerankScore: 8 },
        { score: 0.001, rerankScore: 0 },
        { score: 0.001, rerankScore: 0 },
      ]),
    ).toBe(0.6);
  });
});

describe('keywordQuery', () => {
  it('joins the content words with or, without query syntax', () => {
    expect(keywordQuery('How many vacation days do full-time employees get?')).toBe(
      'vacation or days or full or time or employees',
    );
    expect(keywordQuery('"quoted" -negated KST-1042')).toBe('quoted or negated or kst or 1042');
    expect(keywordQuery('what is it?')).toBe('what is it?');
  });
});
