import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import {
  dataPart,
  findData,
  planRequestSchema,
  textPart,
  type Plan,
  type PlanRequest,
} from '@fleet/a2a';
import type { RunningServer } from '@fleet/http';
import { startScriptedAgent, type ScriptedAgent } from '@fleet/testing';
import { answering, startTestAgent } from '../test-support/start-test-agent';
import {
  TEST_TOKEN,
  orchestrate,
  outcomeOf,
  readStream,
  startTestOrchestrator,
  type TestOrchestrator,
} from '../test-support/start-test-orchestrator';

const prefix = `test:orchestrator-steering:${randomUUID()}:`;

const step = (agent: string, task: string): Plan['nodes'][number] => ({
  id: `${agent}-1`,
  agent,
  task,
  dependsOn: [],
});

/**
 * A planner like the real one in what matters here: the web agent for the web, nothing without
 * it; asked again with a steering note, the documents agent.
 */
function planFor(request: PlanRequest): Plan {
  const hasWeb = request.agents.some((agent) => agent.name === 'web');
  if (request.steeringNote !== undefined) {
    return { nodes: [step('rag', request.request)], rationale: 'as required', confidence: 0.7 };
  }
  return hasWeb
    ? { nodes: [step('web', request.request)], rationale: 'the web', confidence: 0.8 }
    : { nodes: [], rationale: 'No agent fits the request.', confidence: 0 };
}

describe('agent steering (real Redis, real A2A agents)', () => {
  let redis: Redis;
  let web: ScriptedAgent;
  let rag: ScriptedAgent;
  let planner: RunningServer;
  let orchestrator: TestOrchestrator;
  const planRequests: PlanRequest[] = [];
  const sentTo = (agent: ScriptedAgent, sessionId: string) =>
    agent.requests.filter((request) => request.nodeInput?.sessionId === sessionId);

  beforeAll(async () => {
    redis = new Redis('redis://127.0.0.1:6379');
    web = await startScriptedAgent({
      name: 'web',
      internalToken: TEST_TOKEN,
      skills: [
        { id: 'web-search', name: 'Web search', description: 'Searches the web', tags: ['web'] },
      ],
      respond: () => ({ text: 'web says hello' }),
    });
    rag = await startScriptedAgent({
      name: 'rag',
      internalToken: TEST_TOKEN,
      skills: [
        {
          id: 'rag-answer',
          name: 'Documents',
          description: "Answers from the tenant's documents",
          tags: ['knowledge'],
        },
      ],
      respond: () => ({ text: 'the documents say hello' }),
    });
    planner = await startTestAgent({
      name: 'planner',
      token: TEST_TOKEN,
      execute: answering(({ message }) => {
        const request = findData(message.parts, planRequestSchema)?.planRequest;
        if (request === undefined) return [];
        planRequests.push(request);
        const source = request.strategy === 'heuristic' ? 'heuristic' : 'llm';
        return [
          {
            type: 'artifact',
            artifact: {
              name: 'result',
              parts: [textPart('plan'), dataPart({ plan: planFor(request), source, attempts: 1 })],
            },
          },
        ];
      }),
    });
    orchestrator = await startTestOrchestrator({
      redis,
      prefix,
      agentUrls: [web.url, rag.url],
      plannerUrl: planner.url,
    });
  });

  afterAll(async () => {
    await orchestrator.close();
    await Promise.all([web.close(), rag.close(), planner.shutdown()]);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('answers which excluded agent a request needed, and calls no agent', async () => {
    planRequests.length = 0;
    const steering = { exclude: ['web'] };
    const events = await orchestrate(orchestrator.client, {
      text: 'what is new on the web today?',
      fleet: { tenant: 'acme', steering },
    }).done;
    const outcome = outcomeOf(events);
    // The planner never saw the excluded agent; the heuristic probe saw every agent.
    const [first, probe] = planRequests;
    expect(first?.agents.map((agent) => agent.name)).toEqual(['rag']);
    expect(probe).toMatchObject({ strategy: 'heuristic' });
    expect(probe?.agents.map((agent) => agent.name).sort()).toEqual(['rag', 'web']);
    expect(outcome.state).toBe('TASK_STATE_COMPLETED');
    expect(outcome.answer).toMatch(/needs "web", which the request excluded/);
    const sessionId = outcome.result?.sessionId ?? '';
    expect(sentTo(web, sessionId)).toEqual([]);
    expect(sentTo(rag, sessionId)).toEqual([]);
    expect((await orchestrator.sessions.get(sessionId))?.steering).toEqual(steering);
  });

  it('plans with the agents left when another agent fits', async () => {
    planRequests.length = 0;
    const events = await orchestrate(orchestrator.client, {
      text: 'hello there',
      fleet: { tenant: 'acme', steering: { exclude: ['rag'] } },
    }).done;
    // The web is planned (the scripted planner always plans it when it is offered).
    const outcome = outcomeOf(events);
    expect(outcome.answer).not.toMatch(/excluded/);
    expect(sentTo(web, outcome.result?.sessionId ?? '')).toHaveLength(1);
    expect(planRequests[0]?.agents.map((agent) => agent.name)).toEqual(['web']);
  });

  it('re-plans once a plan without a required agent, telling the planner', async () => {
    planRequests.length = 0;
    const steering = { prefer: ['web/web-search'], require: ['rag'] };
    const events = await orchestrate(orchestrator.client, {
      text: 'what is new?',
      fleet: { tenant: 'acme', steering },
    }).done;
    const outcome = outcomeOf(events);
    expect(planRequests).toHaveLength(2);
    expect(planRequests[0]?.steering).toEqual(steering);
    expect(planRequests[0]?.steeringNote).toBeUndefined();
    expect(planRequests[1]?.steeringNote).toMatch(/requires "rag"/);
    expect(sentTo(rag, outcome.result?.sessionId ?? '')).toHaveLength(1);
    expect(sentTo(web, outcome.result?.sessionId ?? '')).toEqual([]);
  });

  it('runs the plan as it is, with a note, when the re-plan still lacks the required agent', async () => {
    planRequests.length = 0;
    const events = await orchestrate(orchestrator.client, {
      text: 'what is new?',
      // The scripted planner names no skill, so no plan of it uses the required one.
      fleet: { tenant: 'acme', steering: { require: ['web-search'] } },
    }).done;
    const outcome = outcomeOf(events);
    const lines = readStream(events).lines.join('\n');
    expect(planRequests).toHaveLength(2);
    expect(lines).toMatch(/does not use "web-search", which the request required/);
    expect(outcome.result?.plan.rationale).toMatch(/does not use "web-search"/);
  });
});
