import { describe, expect, it } from '@jest/globals';
import { documentWording } from './document-wording';

describe('documentWording', () => {
  it('adds the wording documents use for what the question asks', () => {
    expect(documentWording('Who do I contact about expense reports?')).toEqual(
      expect.arrayContaining(['expense claims', 'approved by']),
    );
    expect(documentWording('What is the allowance for my home office?')).toContain('budget');
  });

  it('adds nothing to a question in the documents own words', () => {
    expect(documentWording('How many vacation days do employees get?')).toEqual([]);
  });
});
