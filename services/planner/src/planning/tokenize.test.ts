import { describe, expect, it } from '@jest/globals';
import { stem, tokenize } from './tokenize';

describe('stem', () => {
  it.each([
    ['emails', 'email'],
    ['emailing', 'email'],
    ['emailed', 'email'],
    ['searches', 'search'],
    ['searching', 'search'],
    ['documents', 'document'],
    ['docs', 'doc'],
    ['libraries', 'library'],
    ['policies', 'policy'],
    ['plotting', 'plot'],
    ['charts', 'chart'],
    ['compare', 'compar'],
    ['compared', 'compar'],
    ['writing', 'writ'],
    ['write', 'writ'],
    ['coding', 'cod'],
    ['code', 'cod'],
  ])('%s → %s', (word, expected) => {
    expect(stem(word)).toBe(expected);
  });

  it('leaves short words and words that only look inflected alone', () => {
    expect(stem('web')).toBe('web');
    expect(stem('string')).toBe('string');
    expect(stem('address')).toBe('address');
    expect(stem('status')).toBe('status');
    expect(stem('analysis')).toBe('analysis');
    expect(stem('bus')).toBe('bus');
  });
});

describe('tokenize', () => {
  it('lowercases, strips punctuation and stopwords, and stems', () => {
    expect(tokenize("Search the Web for TypeScript's latest RELEASES!")).toEqual([
      'search',
      'web',
      'typescript',
      'latest',
      'releas',
    ]);
  });

  it('turns addresses into what they are, and keeps digits and non-Latin letters', () => {
    expect(
      tokenize('email bob@example.com about Q3 café numbers from https://example.com/q3'),
    ).toEqual(['mail', 'mail', 'address', 'q3', 'café', 'number', 'url']);
  });

  it('returns nothing for filler', () => {
    expect(tokenize('Please, could you then do it for me?')).toEqual([]);
  });
});
