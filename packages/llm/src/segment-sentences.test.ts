import { describe, expect, it } from '@jest/globals';
import { segmentSentences } from './segment-sentences';

describe('segmentSentences', () => {
  it('splits on sentence ends but not after common abbreviations', () => {
    expect(
      segmentSentences(
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

  it('ends a sentence at a line break and drops blank ones', () => {
    expect(segmentSentences('  Title line\nBody text here.  \n\n ')).toEqual([
      'Title line',
      'Body text here.',
    ]);
  });

  it('when quoting, ends a sentence before a number (not after an abbreviation) and not inside a URL', () => {
    const text =
      'Beacon stopped in eu-west. 312 customers were affected, approx. 40 of them twice. See No. 7 at https://status.test/?id=7!';
    expect(segmentSentences(text)).toEqual([
      'Beacon stopped in eu-west. 312 customers were affected, approx. 40 of them twice.',
      'See No. 7 at https://status.test/?',
      'id=7!',
    ]);
    expect(segmentSentences(text, { quoting: true })).toEqual([
      'Beacon stopped in eu-west.',
      '312 customers were affected, approx. 40 of them twice.',
      'See No. 7 at https://status.test/?id=7!',
    ]);
  });
});
