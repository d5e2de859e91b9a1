import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import type { Plan } from '@fleet/a2a';
import {
  startScriptedAgent,
  startScriptedOpenAI,
  type ScriptedAgent,
  type ScriptedOpenAI,
} from '@fleet/testing';
import {
  TEST_TOKEN,
  orchestrate,
  outcomeOf,
  startTestOrchestrator,
  type TestOrchestrator,
} from '../test-support/start-test-orchestrator';

const prefix = `test:orchestrator-run-usage:${randomUUID()}:`;

const PLAN: Plan = {
  nodes: [
    { id: 'a', agent: 'notes', task: 'What is A2A?', dependsOn: [] },
    { id: 'b', agent: 'foreign', task: 'Who made it?', dependsOn: [] },
  ],
  rationale: 'two lookups',
  confidence: 1,
};

describe('the run’s usage', () => {
  let redis: Redis;
  let llm: ScriptedOpenAI;
  let notes: ScriptedAgent;
  let foreign: ScriptedAgent;
  let orchestrator: TestOrchestrator;

  beforeAll(async () => {
    redis = new Redis('redis://127.0.0.1:6379');
    llm = await startScriptedOpenAI();
    notes = await startScriptedAgent({
      name: 'notes',
      internalToken: TEST_TOKEN,
      reply: {
        text: 'A2A is a protocol for agents.',
        usage: {
          promptTokens: 120,
          completionTokens: 12,
          totalTokens: 132,
          calls: 1,
          unknownCalls: 0,
        },
      },
    });
    foreign = await startScriptedAgent({ name: 'foreign', internalToken: TEST_TOKEN });
    orchestrator = await startTestOrchestrator({
      redis,
      prefix,
      agentUrls: [notes.url, foreign.url],
      llmBaseUrl: llm.baseURL,
    });
  }, 30_000);

  afterAll(async () => {
    await orchestrator?.close();
    await notes?.close();
    await foreign?.close();
    await llm?.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('sums what the agents reported and the composer’s call, and says what is unknown', async () => {
    llm.enqueue({ content: 'Composed.', usage: { prompt_tokens: 300, completion_tokens: 30 } });
    const events = await orchestrate(orchestrator.client, {
      text: 'Tell me about A2A',
      fleet: { tenant: 'acme', plan: PLAN },
    }).done;
    const { result, state } = outcomeOf(events);
    expect(state).toBe('TASK_STATE_COMPLETED');
    expect(result?.usage).toMatchObject({
      promptTokens: 420,
      completionTokens: 42,
      totalTokens: 462,
      calls: 2,
      unknownCalls: 0,
      // The foreign agent said nothing about its usage.
      complete: false,
    });
    // The nodes end in either order; the composer comes after them.
    expect(result?.usage?.steps).toHaveLength(3);
    expect(result?.usage?.steps).toEqual(
      expect.arrayContaining([
        {
          step: 'a',
          agent: 'notes',
          promptTokens: 120,
          completionTokens: 12,
          totalTokens: 132,
          calls: 1,
          unknownCalls: 0,
          reported: true,
        },
        {
          step: 'b',
          agent: 'foreign',
          promptTokens: 0,
          completionTokens: 0,
          totalTokens: 0,
          calls: 0,
          unknownCalls: 0,
          reported: false,
        },
      ]),
    );
    expect(result?.usage?.steps[2]).toEqual({
      step: 'composer',
      promptTokens: 300,
      completionTokens: 30,
      totalTokens: 330,
      calls: 1,
      unknownCalls: 0,
      reported: true,
    });
    // The stored answer keeps it, so a resume of the completed session reports it too.
    const session = await orchestrator.sessions.get(result?.sessionId ?? '');
    expect(session?.result?.usage).toEqual(result?.usage);
    const resumed = await orchestrate(orchestrator.client, {
      text: '',
      fleet: { tenant: 'acme', resumeSessionId: result?.sessionId ?? '' },
    }).done;
    expect(outcomeOf(resumed).result?.usage).toEqual(result?.usage);
  });

  it('counts a composer answer without usage as an unknown call', async () => {
    llm.enqueue({ content: 'Composed again.', usage: false });
    const events = await orchestrate(orchestrator.client, {
      text: 'Tell me about A2A again',
      fleet: { tenant: 'acme', plan: { ...PLAN, nodes: PLAN.nodes.slice(0, 1) } },
    }).done;
    const { result } = outcomeOf(events);
    expect(result?.usage).toMatchObject({
      promptTokens: 120,
      calls: 1,
      unknownCalls: 1,
      complete: false,
    });
  });
});
