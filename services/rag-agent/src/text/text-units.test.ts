import { describe, expect, it } from '@jest/globals';
import { contentTerms, normalizeTerm, shorten, splitSentences } from './text-units';

describe('splitSentences', () => {
  it('splits prose, list items, headings and table rows', () => {
    const text = [
      '# Leave policy',
      'Employees get 28 days of paid leave, e.g. for holidays. Unused days expire on 31 March.',
      '- Parental leave is 16 weeks.',
      '',
      '| Plan | Price per seat |',
      '| --- | ---: |',
      '| Team | 12 EUR |',
      '| Enterprise | 29 EUR |',
      'Version 3.2 shipped in May.',
    ].join('\n');
    expect(splitSentences(text)).toEqual([
      'Leave policy',
      'Employees get 28 days of paid leave, e.g. for holidays.',
      'Unused days expire on 31 March.',
      'Parental leave is 16 weeks.',
      'Plan: Team; Price per seat: 12 EUR',
      'Plan: Enterprise; Price per seat: 29 EUR',
      'Version 3.2 shipped in May.',
    ]);
  });
});

describe('contentTerms', () => {
  it('drops stopwords and meets plural and singular forms', () => {
    expect(contentTerms('How many vacation days do the policies allow?')).toEqual([
      'vacation',
      'day',
      'policy',
      'allow',
    ]);
    expect(contentTerms('Version 3.2 in EU-West')).toEqual(['version', '3.2', 'eu-west']);
    expect(normalizeTerm('classes')).toBe('class');
    expect(normalizeTerm('status')).toBe('status');
  });
});

describe('shorten', () => {
  it('cuts at a word boundary with an ellipsis', () => {
    expect(shorten('one two three four five', 12)).toBe('one two…');
    expect(shorten('  short\n text ', 20)).toBe('short text');
  });
});
