import { describe, expect, it } from '@jest/globals';
import type { PlanResult } from '@fleet/a2a';
import { describePlan } from './describe-plan';

const node = (id: string, agent: string, dependsOn: string[] = []) => ({
  id,
  agent,
  task: `do ${id}`,
  dependsOn,
});

describe('describePlan', () => {
  it('names the stages in order, with parallel steps together', () => {
    const result: PlanResult = {
      plan: {
        nodes: [
          node('a', 'web-agent'),
          node('b', 'rag-agent'),
          node('c', 'web-agent'),
          node('d', 'code-agent', ['a', 'b', 'c']),
          node('e', 'mail-agent', ['d']),
        ],
        rationale: 'Research, chart, send.',
        confidence: 0.756,
      },
      source: 'llm',
      attempts: 2,
    };
    expect(describePlan(result)).toBe(
      'A 5-step plan from the LLM after 2 attempts (confidence 0.76): first a (web-agent), b (rag-agent) and c (web-agent) in parallel, then d (code-agent), then e (mail-agent). Research, chart, send.',
    );
  });

  it('places a node after its latest dependency, not after every earlier stage', () => {
    const result: PlanResult = {
      plan: {
        nodes: [node('a', 'x'), node('b', 'x', ['a']), node('c', 'y'), node('d', 'y', ['c'])],
        rationale: 'Two chains.',
        confidence: 0.5,
      },
      source: 'heuristic',
      attempts: 0,
    };
    expect(describePlan(result)).toContain(
      'first a (x) and c (y) in parallel, then b (x) and d (y) in parallel.',
    );
  });

  it('says why the heuristic planner answered', () => {
    const result: PlanResult = {
      plan: { nodes: [node('a', 'x')], rationale: 'Keyword match.', confidence: 0.4 },
      source: 'heuristic',
      attempts: 1,
      fallbackReason: 'The LLM call failed: 500.',
    };
    expect(describePlan(result)).toBe(
      'A 1-step plan from the heuristic planner (confidence 0.40): first a (x). Keyword match. The LLM call failed: 500.',
    );
  });

  it('describes an empty plan', () => {
    const result: PlanResult = {
      plan: { nodes: [], rationale: 'No agent fits the request.', confidence: 0 },
      source: 'heuristic',
      attempts: 0,
    };
    expect(describePlan(result)).toBe(
      'No steps are needed or possible (plan from the heuristic planner, confidence 0.00). No agent fits the request.',
    );
  });
});
