import { describe, expect, it } from '@jest/globals';
import { chooseMode, deriveQuery, urlsIn } from './derive-query';

describe('deriveQuery', () => {
  it.each([
    ['Search the web for the latest Node.js release', 'the latest Node.js release'],
    ['search: Lisbon population?', 'Lisbon population'],
    ['Look up the population of Lisbon.', 'the population of Lisbon'],
    ['What is the latest news about the EU AI Act?', 'the EU AI Act'],
    ['Find news on Acme Corp', 'Acme Corp'],
    ['When was Node 22 released?', 'When was Node 22 released'],
    ['search', 'search'],
  ])('turns %j into %j', (text, query) => {
    expect(deriveQuery(text)).toBe(query);
  });

  it('caps the query at 400 characters on a word boundary', () => {
    const query = deriveQuery('word '.repeat(200));
    expect(query.length).toBeLessThanOrEqual(400);
    expect(query.endsWith('word')).toBe(true);
  });
});

describe('urlsIn', () => {
  it('finds http(s) URLs without trailing punctuation or repeats', () => {
    expect(
      urlsIn('Read https://a.test/x. Then http://b.test/y?z=1, and https://a.test/x! ftp://c.test'),
    ).toEqual(['https://a.test/x', 'http://b.test/y?z=1']);
  });
});

describe('chooseMode', () => {
  it('follows the skill the plan chose', () => {
    expect(chooseMode({ text: 'AI Act', skill: 'news' })).toBe('news');
    expect(chooseMode({ text: 'AI Act', skill: 'deep-research' })).toBe('deep');
    expect(chooseMode({ text: 'summarise https://a.test/', skill: 'read-page' })).toBe('read');
    expect(chooseMode({ text: 'summarise the page', skill: 'read-page' })).toBe('basic');
    expect(chooseMode({ text: 'https://a.test/ says what?', skill: 'web-search' })).toBe('basic');
    expect(chooseMode({ text: 'latest news on X', skill: 'web-search' })).toBe('news');
  });

  it('reads the text without a skill', () => {
    expect(chooseMode({ text: 'summarise https://example.com/post' })).toBe('read');
    expect(chooseMode({ text: "today's headlines about rates" })).toBe('news');
    expect(chooseMode({ text: 'compare PostgreSQL and MySQL replication in depth' })).toBe('deep');
    expect(chooseMode({ text: 'population of Lisbon' })).toBe('basic');
  });
});
