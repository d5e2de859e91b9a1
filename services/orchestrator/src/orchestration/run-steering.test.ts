import { describe, expect, it } from '@jest/globals';
import type { PlanRequest, PlanResult } from '@fleet/a2a';
import type { AskPlanner } from '../planning';
import { missingRequired, withSteering } from './run-steering';

const result: PlanResult = {
  plan: { nodes: [], rationale: '', confidence: 0 },
  source: 'llm',
  attempts: 1,
};
const request: PlanRequest = { request: 'r', history: [], agents: [], strategy: 'auto' };

describe('withSteering', () => {
  it('tells every planner call what the steering prefers and requires, never what it excludes', async () => {
    const seen: PlanRequest[] = [];
    const ask: AskPlanner = (planRequest) => {
      seen.push(planRequest);
      return Promise.resolve(result);
    };
    await withSteering(ask, { prefer: ['a'], require: ['b'], exclude: ['c'] })(request, {});
    expect(seen[0]?.steering).toEqual({ prefer: ['a'], require: ['b'] });
  });

  it('leaves the planner as it is for a steering that only excludes', () => {
    const ask: AskPlanner = () => Promise.resolve(result);
    expect(withSteering(ask, { exclude: ['c'] })).toBe(ask);
    expect(withSteering(ask, undefined)).toBe(ask);
  });
});

describe('missingRequired', () => {
  const agents = [
    {
      name: 'mail',
      description: '',
      skills: [{ id: 'send', name: 's', description: '', tags: [], examples: [] }],
    },
  ];
  it('names a required agent or skill no step uses, and ignores one nobody has', () => {
    const plan = {
      nodes: [{ id: 'n', agent: 'mail', task: 't', dependsOn: [] }],
      rationale: '',
      confidence: 1,
    };
    expect(missingRequired(plan, { require: ['mail', 'send', 'ghost'] }, agents)).toEqual(['send']);
  });
});
