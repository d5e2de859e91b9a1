import { describe, expect, it } from '@jest/globals';
import { renumberCitations, sourcesFromData } from './renumber-citations';

describe('renumberCitations', () => {
  it('numbers every step’s sources into one list, in step order', () => {
    const { steps, citations } = renumberCitations([
      {
        id: 'web',
        agent: 'web-agent',
        summary: 'Paris is the capital [1] and has 2.1M people [2].',
        sources: [
          { title: 'Paris', url: 'https://en.wikipedia.org/wiki/Paris' },
          { title: 'INSEE', url: 'https://insee.fr' },
        ],
      },
      {
        id: 'docs',
        agent: 'rag-agent',
        summary: 'The handbook agrees [1]; see also [2].',
        sources: [
          { title: 'Handbook p.3' },
          { title: 'Paris', url: 'https://en.wikipedia.org/wiki/Paris' },
        ],
      },
    ]);
    expect(steps.map((step) => step.summary)).toEqual([
      'Paris is the capital [1] and has 2.1M people [2].',
      'The handbook agrees [3]; see also [1].',
    ]);
    expect(citations).toEqual([
      { title: 'Paris', url: 'https://en.wikipedia.org/wiki/Paris', agent: 'web-agent' },
      { title: 'INSEE', url: 'https://insee.fr', agent: 'web-agent' },
      { title: 'Handbook p.3', agent: 'rag-agent' },
    ]);
  });

  it('rewrites grouped markers and leaves markers without a source alone', () => {
    const { steps } = renumberCitations([
      { id: 'a', agent: 'x', summary: 'First [1].', sources: [{ title: 'A' }] },
      {
        id: 'b',
        agent: 'y',
        summary: 'Both [1, 2], and array[7] stays.',
        sources: [{ title: 'B' }, { title: 'C' }],
      },
    ]);
    expect(steps[1]?.summary).toBe('Both [2][3], and array[7] stays.');
  });
});

describe('sourcesFromData', () => {
  it('reads sources leniently and keeps their order', () => {
    expect(
      sourcesFromData({
        sources: [
          { title: 'A', url: 'https://a' },
          { url: 'https://b' },
          { name: 'C', snippet: 'c…' },
          'D',
          42,
        ],
      }),
    ).toEqual([
      { title: 'A', url: 'https://a' },
      { title: 'https://b', url: 'https://b' },
      { title: 'C', snippet: 'c…' },
      { title: 'D' },
      { title: 'untitled source' },
    ]);
    expect(sourcesFromData({ citations: [{ title: 'E' }] })).toEqual([{ title: 'E' }]);
    expect(sourcesFromData(undefined)).toEqual([]);
    expect(sourcesFromData({ stdout: 'hi' })).toEqual([]);
  });
});
