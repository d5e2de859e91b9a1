import { describe, expect, it } from '@jest/globals';
import { extractWithRules } from './extract-with-rules';

describe('extractWithRules', () => {
  it.each([
    ['My name is Ada and I work at Kestrel.', { name: 'Ada', company: 'Kestrel' }],
    ['Hi, I’m Ada Lovelace. What is new in A2A?', { name: 'Ada Lovelace' }],
    ['I am Grace', { name: 'Grace' }],
    ['please call me Ada from now on', { name: 'Ada' }],
    ['I work for Kestrel Labs', { company: 'Kestrel Labs' }],
    ['I work at Kestrel. What is A2A?', { company: 'Kestrel' }],
    ['I work at Acme.io and like it', { company: 'Acme.io' }],
    [
      "I'm a senior data engineer at Kestrel, can you help?",
      { jobTitle: 'senior data engineer', company: 'Kestrel' },
    ],
    ['I work as the CTO of Kestrel.', { jobTitle: 'CTO', company: 'Kestrel' }],
    ["I'm a data scientist", { jobTitle: 'data scientist' }],
    ['My project is Falcon.', { projects: ['Falcon'] }],
    ["I'm working on Osprey, a migration tool", { projects: ['Osprey'] }],
  ])('finds the facts in %j', (message, facts) => {
    expect(extractWithRules(message)).toEqual({ facts, preferences: {} });
  });

  it.each([
    ['Please be brief.', { detailLevel: 'brief' }],
    ['keep it short', { detailLevel: 'brief' }],
    ['Be concise please', { detailLevel: 'brief' }],
    ['Please be detailed', { detailLevel: 'detailed' }],
    ['explain in detail how it works', { detailLevel: 'detailed' }],
    ['Answer in French from now on', { language: 'French' }],
    ['reply in german', { language: 'German' }],
    ['Keep it formal.', { tone: 'formal' }],
    ['keep it casual', { tone: 'casual' }],
    ['use a friendly tone', { tone: 'friendly' }],
  ])('finds the preferences in %j', (message, preferences) => {
    expect(extractWithRules(message)).toEqual({ facts: {}, preferences });
  });

  it.each([
    'What is the capital of France?',
    "I'm looking for the Q3 report",
    "I'm not sure what A2A is",
    "I'm a bit confused by the docs",
    "I'm German and live in Berlin",
    'Be sure to include a short summary of the news',
    'Summarise what Ada Lovelace did',
  ])('finds nothing in %j', (message) => {
    expect(extractWithRules(message)).toEqual({ facts: {}, preferences: {} });
  });

  it('does not take "answer in detail" for a language', () => {
    expect(extractWithRules('Answer in detail: what is RAG?').preferences).toEqual({
      detailLevel: 'detailed',
    });
  });

  it('reads several facts and preferences from one message', () => {
    expect(
      extractWithRules(
        "My name is Ada. I'm the lead engineer at Kestrel and I'm working on Falcon. Please be brief and answer in Spanish.",
      ),
    ).toEqual({
      facts: { name: 'Ada', jobTitle: 'lead engineer', company: 'Kestrel', projects: ['Falcon'] },
      preferences: { detailLevel: 'brief', language: 'Spanish' },
    });
  });
});
