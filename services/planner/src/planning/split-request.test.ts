import { describe, expect, it } from '@jest/globals';
import { splitIntoClauses, splitIntoSegments } from './split-request';

const texts = (request: string): string[] => splitIntoClauses(request).map((clause) => clause.text);

describe('splitIntoClauses', () => {
  it('keeps a request without ordering words whole', () => {
    expect(splitIntoClauses('search the web for X and look up our internal docs on Y')).toEqual([
      { text: 'search the web for X and look up our internal docs on Y' },
    ]);
  });

  it('splits at "then" and names the marker', () => {
    expect(
      splitIntoClauses('find X in our documents, then email a summary to bob@example.com'),
    ).toEqual([
      { text: 'find X in our documents' },
      { text: 'email a summary to bob@example.com', marker: 'then' },
    ]);
  });

  it.each([
    ['look it up and then write it down', ['look it up', 'write it down']],
    ['look it up. After that, write it down', ['look it up', 'write it down']],
    ['look it up; afterwards write it down', ['look it up', 'write it down']],
    ['look it up, finally write it down', ['look it up', 'write it down']],
    ['look it up. Next, write it down', ['look it up', 'write it down']],
    ['look it up, and next write it down', ['look it up', 'write it down']],
    ['look it up, using the results write it down', ['look it up', 'write it down']],
    [
      'First look it up, then check it, and finally write it down',
      ['First look it up', 'check it', 'write it down'],
    ],
  ])('%s', (request, expected) => {
    expect(texts(request)).toEqual(expected);
  });

  it('does not split at "next" used as an adjective, or inside words', () => {
    expect(texts('when is the next release of Node')).toEqual(['when is the next release of Node']);
    expect(texts('check the authentication thenceforth')).toEqual([
      'check the authentication thenceforth',
    ]);
  });

  it('puts the object of "based on" first', () => {
    expect(
      splitIntoClauses('write a python chart based on the sales figures in our documents'),
    ).toEqual([
      { text: 'the sales figures in our documents' },
      { text: 'write a python chart', marker: 'based on' },
    ]);
    expect(texts('Based on our onboarding docs, draft an email to the new hire')).toEqual([
      'our onboarding docs',
      'draft an email to the new hire',
    ]);
  });

  it('returns nothing for an empty request', () => {
    expect(splitIntoClauses('   ')).toEqual([]);
    expect(splitIntoClauses('then, finally')).toEqual([]);
  });
});

describe('splitIntoSegments', () => {
  const pieces = (clause: string): string[] =>
    splitIntoSegments(clause).map(({ start, end }) => clause.slice(start, end));

  it('splits at commas, semicolons, sentence ends and "and"', () => {
    expect(pieces('search the web for X and look up our internal docs on Y')).toEqual([
      'search the web for X',
      'look up our internal docs on Y',
    ]);
    expect(pieces('research A, research B; also C. Then D')).toEqual([
      'research A',
      'research B',
      'C',
      'Then D',
    ]);
  });

  it('does not split e-mail addresses or words containing "and"', () => {
    expect(pieces('email bob@example.com about the brand handbook')).toEqual([
      'email bob@example.com about the brand handbook',
    ]);
  });
});
