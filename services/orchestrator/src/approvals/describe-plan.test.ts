import { describe, expect, it } from '@jest/globals';
import type { Plan } from '@fleet/a2a';
import { previewPlan, summarisePlan } from './describe-plan';

const plan: Plan = {
  nodes: [
    { id: 'search', agent: 'web-agent', task: 'Find the capital of France', dependsOn: [] },
    { id: 'docs', agent: 'rag-agent', task: 'Read the policy', dependsOn: [] },
    { id: 'write', agent: 'writer', task: 'Write it up', dependsOn: ['search', 'docs'] },
  ],
  rationale: 'search the web and the documents, then write.',
  confidence: 0.8,
};

describe('summarisePlan', () => {
  it('puts the plan in one sentence', () => {
    expect(summarisePlan(plan)).toBe(
      'Run 3 steps with web-agent, rag-agent and writer: search the web and the documents, then write.',
    );
    expect(summarisePlan({ ...plan, nodes: plan.nodes.slice(0, 1), rationale: '' })).toBe(
      'Run 1 step with web-agent.',
    );
    expect(summarisePlan({ ...plan, nodes: [] })).toBe('Run no steps: the plan is empty.');
  });
});

describe('previewPlan', () => {
  it('lists the steps with their agents and dependencies', () => {
    expect(previewPlan(plan)).toBe(
      [
        '1. search (web-agent): Find the capital of France',
        '2. docs (rag-agent): Read the policy',
        '3. write (writer, after search, docs): Write it up',
      ].join('\n'),
    );
  });
});
