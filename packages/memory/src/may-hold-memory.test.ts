import { describe, expect, it } from '@jest/globals';
import { mayHoldMemory } from './may-hold-memory';

describe('mayHoldMemory', () => {
  it.each([
    'My name is Ada',
    "I'm the CTO at Kestrel",
    'call me Ada',
    'Our project is Falcon',
    'Please be brief',
    'answer in French',
    'Keep it formal',
  ])('says yes to %j', (message) => {
    expect(mayHoldMemory(message)).toBe(true);
  });

  it.each([
    'Search the web for news about A2A',
    'Find it, check it against our docs, then chart it',
    'When does the Falcon project launch according to our documents?',
    'take your time',
    'Print a line for me.',
  ])('says no to %j', (message) => {
    expect(mayHoldMemory(message)).toBe(false);
  });
});
