import { describe, expect, it } from '@jest/globals';
import { heuristicRoute } from './heuristic-route';

const online = (text: string) => heuristicRoute({ text, offline: false });

describe('heuristicRoute', () => {
  it.each([
    ['What does our travel policy say about per diems?', 'needs documents'],
    ['Find the onboarding checklist in the uploaded documents', 'needs documents'],
    ['Check my inbox for anything from Bob', 'needs email'],
    ['Send a message to alice@example.com about the offsite', 'needs email'],
    ['Run this Python script and tell me the output', 'needs code execution'],
    ['Compute the 40th Fibonacci number using Python', 'needs code execution'],
    ['Search the web for the Node 24 release notes', 'needs the web'],
    ["What are today's headlines?", 'needs the web'],
    ['Summarise https://example.com/post', 'needs the web'],
    ['First collect the numbers, then put them in a table', 'multi-step request'],
  ])('sends %j to orchestration (%s)', (text, reason) => {
    expect(online(text)).toEqual({ route: 'orchestration', reason });
  });

  it.each([
    'Hi! How are you today?',
    'Write a haiku about autumn.',
    'Explain how TCP slow start works.',
    'Translate "good morning" into Portuguese.',
  ])('passes %j through', (text) => {
    expect(online(text)).toEqual({
      route: 'passthrough',
      reason: 'general request the model answers directly',
    });
  });

  it('sends what it cannot place to orchestration when offline, where passthrough answers 503', () => {
    expect(heuristicRoute({ text: 'Write a haiku about autumn.', offline: true })).toEqual({
      route: 'orchestration',
      reason: 'no upstream LLM for passthrough; orchestration works offline',
    });
    expect(heuristicRoute({ text: 'Check my inbox', offline: true }).reason).toBe('needs email');
  });
});
