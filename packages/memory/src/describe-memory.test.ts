import { describe, expect, it } from '@jest/globals';
import { describeMemory } from './describe-memory';
import { emptyMemory } from './memory-schema';
import { mergeMemory } from './merge-memory';

describe('describeMemory', () => {
  it('says nothing when nothing is known', () => {
    expect(describeMemory(emptyMemory())).toEqual([]);
  });

  it('writes one sentence per fact and preference', () => {
    const memory = mergeMemory({
      current: emptyMemory(),
      update: {
        facts: { name: 'Ada', company: 'Kestrel', jobTitle: 'data engineer', projects: ['Falcon'] },
        preferences: { tone: 'formal', detailLevel: 'brief', language: 'French' },
      },
      source: 'rules',
    });
    expect(describeMemory(memory)).toEqual([
      'The user’s name is Ada.',
      'The user works at Kestrel.',
      'The user’s job title is data engineer.',
      'The user works on: Falcon.',
      'The user prefers a formal tone.',
      'The user prefers brief answers.',
      'The user wants answers in French.',
    ]);
  });
});
