import { describe, expect, it } from '@jest/globals';
import type { AgentSummary, Plan, PlanRequest, PlanResult } from '@fleet/a2a';
import { ServiceUnavailableError, ValidationError, UpstreamError } from '@fleet/errors';
import { planRun, type AskPlanner } from './plan-run';

const agents: AgentSummary[] = [
  { name: 'web-agent', description: 'web search', skills: [] },
  { name: 'rag-agent', description: 'documents', skills: [] },
];

function planOf(...agentNames: string[]): Plan {
  return {
    nodes: agentNames.map((agent, index) => ({
      id: `n${index}`,
      agent,
      task: `task ${index}`,
      dependsOn: [],
    })),
    rationale: 'r',
    confidence: 0.8,
  };
}

/** A planner seam answering from a script, recording what it was asked. */
function scripted(...answers: (PlanResult | Error)[]): {
  askPlanner: AskPlanner;
  asked: PlanRequest[];
} {
  const asked: PlanRequest[] = [];
  return {
    asked,
    askPlanner: (request) => {
      asked.push(request);
      const answer = answers.shift();
      if (answer === undefined)
        return Promise.reject(new Error('the test planner has no more answers'));
      if (answer instanceof Error) return Promise.reject(answer);
      return Promise.resolve(answer);
    },
  };
}

describe('planRun', () => {
  it('returns a valid plan from the planner, having sent the request, history and agents', async () => {
    const { askPlanner, asked } = scripted({
      plan: planOf('web-agent'),
      source: 'llm',
      attempts: 1,
    });
    const planned = await planRun({
      askPlanner,
      request: 'What is new?',
      history: [{ role: 'user', content: 'hi' }],
      agents,
    });
    expect(planned).toEqual({ plan: planOf('web-agent'), source: 'llm', plannerCalls: 1 });
    expect(asked).toEqual([
      {
        request: 'What is new?',
        history: [{ role: 'user', content: 'hi' }],
        agents,
        strategy: 'auto',
      },
    ]);
  });

  it('asks once more with the validation errors, and uses the repaired plan', async () => {
    const { askPlanner, asked } = scripted(
      { plan: planOf('mail-agent'), source: 'llm', attempts: 1 },
      { plan: planOf('rag-agent'), source: 'llm', attempts: 1 },
    );
    const planned = await planRun({ askPlanner, request: 'x', agents });
    expect(planned.plan).toEqual(planOf('rag-agent'));
    expect(asked[1]?.validationError).toMatch(
      /node "n0" names agent "mail-agent", which is not available/,
    );
    expect(asked[1]?.strategy).toBe('auto');
  });

  it('falls back to the heuristic planner when the repair is still invalid', async () => {
    const { askPlanner, asked } = scripted(
      { plan: planOf('mail-agent'), source: 'llm', attempts: 1 },
      { plan: planOf('code-agent'), source: 'llm', attempts: 1 },
      { plan: planOf('web-agent', 'rag-agent'), source: 'heuristic', attempts: 0 },
    );
    const planned = await planRun({ askPlanner, request: 'x', agents });
    expect(planned).toEqual({
      plan: planOf('web-agent', 'rag-agent'),
      source: 'heuristic',
      plannerCalls: 3,
    });
    expect(asked.map((request) => request.strategy)).toEqual(['auto', 'auto', 'heuristic']);
    expect(asked[2]?.validationError).toBeUndefined();
  });

  it('fails the run with a clear message when the planner is unreachable', async () => {
    const { askPlanner } = scripted(
      new ServiceUnavailableError(
        'The planner at http://127.0.0.1:9 is unreachable: connect ECONNREFUSED.',
      ),
    );
    await expect(planRun({ askPlanner, request: 'x', agents })).rejects.toThrow(
      /planner at http:\/\/127\.0\.0\.1:9 is unreachable/,
    );
  });

  it('asks the heuristic planner when the planner answered without a plan', async () => {
    const { askPlanner, asked } = scripted(
      new UpstreamError('planner task failed', { status: 502 }),
      { plan: planOf('web-agent'), source: 'heuristic', attempts: 0 },
    );
    const planned = await planRun({ askPlanner, request: 'x', agents });
    expect(planned.source).toBe('heuristic');
    expect(asked.map((request) => request.strategy)).toEqual(['auto', 'heuristic']);
  });

  it('fails when even the heuristic plan cannot run', async () => {
    const { askPlanner } = scripted({
      plan: planOf('ghost-agent'),
      source: 'heuristic',
      attempts: 0,
    });
    await expect(planRun({ askPlanner, request: 'x', agents })).rejects.toThrow(
      /no plan that can run: node "n0" names agent "ghost-agent"/,
    );
  });

  it('runs an explicit plan without the planner, and refuses an invalid one naming the errors', async () => {
    const { askPlanner, asked } = scripted();
    await expect(
      planRun({ askPlanner, request: 'x', agents, explicitPlan: planOf('rag-agent') }),
    ).resolves.toEqual({
      plan: planOf('rag-agent'),
      source: 'request',
      plannerCalls: 0,
    });
    const invalid: Plan = {
      nodes: [{ id: 'a', agent: 'web-agent', task: 't', dependsOn: ['missing'] }],
      rationale: 'r',
      confidence: 1,
    };
    const failure = planRun({ askPlanner, request: 'x', agents, explicitPlan: invalid });
    await expect(failure).rejects.toBeInstanceOf(ValidationError);
    await expect(failure).rejects.toThrow(
      'The plan in the request cannot run: node "a" depends on "missing", which is not in the plan.',
    );
    expect(asked).toEqual([]);
  });
});
