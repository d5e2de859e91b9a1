import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import { findData, nodeInputSchema, textPart, dataPart, type Plan } from '@fleet/a2a';
import type { RunningServer } from '@fleet/http';
import { createMemoryExtractor, createMemoryStore, type MemoryStore } from '@fleet/memory';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { answering, startTestAgent } from '../test-support/start-test-agent';
import {
  TEST_TOKEN,
  orchestrate,
  outcomeOf,
  startTestOrchestrator,
  type TestOrchestrator,
} from '../test-support/start-test-orchestrator';

const prefix = `test:orchestrator-memory:${randomUUID()}:`;
const memoryPrefix = `${prefix}memory`;

const plan: Plan = {
  nodes: [{ id: 'lookup', agent: 'notes', task: 'Look it up', dependsOn: [] }],
  rationale: 'one step',
  confidence: 1,
};

describe('long-term memory in runs', () => {
  let redis: Redis;
  let store: MemoryStore;
  let agent: RunningServer;
  /** The `memory` of every node input the agent received, in order. */
  const seen: string[][] = [];
  let offline: TestOrchestrator;
  let online: TestOrchestrator;
  let llm: ScriptedOpenAI;

  async function run(
    orchestrator: TestOrchestrator,
    { text, tenant, user }: { text: string; tenant: string; user?: string },
  ) {
    const events = await orchestrate(orchestrator.client, {
      text,
      fleet: { tenant, plan, ...(user === undefined ? {} : { user }) },
    }).done;
    return { ...outcomeOf(events), memory: seen.at(-1) };
  }

  beforeAll(async () => {
    redis = new Redis('redis://127.0.0.1:6379');
    store = createMemoryStore({ redis, keyPrefix: memoryPrefix });
    agent = await startTestAgent({
      name: 'notes',
      token: TEST_TOKEN,
      execute: answering(({ message }) => {
        seen.push(findData(message.parts, nodeInputSchema)?.fleet.memory ?? []);
        return [
          {
            type: 'artifact',
            artifact: {
              name: 'result',
              parts: [
                textPart('A2A is a protocol for agents.\n\nIt was published in 2025 and has SDKs.'),
                dataPart({}),
              ],
            },
          },
        ];
      }),
    });
    offline = await startTestOrchestrator({
      redis,
      prefix,
      agentUrls: [agent.url],
      memory: { store, extractor: createMemoryExtractor() },
    });
    llm = await startScriptedOpenAI({
      respond: (request) => {
        const body = request.body as { response_format?: { json_schema?: { name?: string } } };
        if (body.response_format?.json_schema?.name === 'user_memory') {
          return {
            json: {
              found: true,
              name: 'Grace',
              company: 'Osprey',
              jobTitle: null,
              projects: null,
              tone: 'formal',
              detailLevel: null,
              language: null,
            },
          };
        }
        return { content: 'Composed by the model.' };
      },
    });
    online = await startTestOrchestrator({
      redis,
      prefix,
      agentUrls: [agent.url],
      llmBaseUrl: llm.baseURL,
      memory: {
        store,
        extractor: createMemoryExtractor({
          llm: {
            client: new OpenAI({ apiKey: 'k', baseURL: llm.baseURL, maxRetries: 0 }),
            model: 'scripted-model',
          },
        }),
      },
    });
  }, 30_000);

  afterAll(async () => {
    await offline?.close();
    await online?.close();
    await agent?.shutdown();
    await llm?.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('remembers a fact stated in one run and uses it in the next (offline: rules)', async () => {
    const first = await run(offline, {
      text: 'My name is Ada and I work at Kestrel. What is A2A?',
      tenant: 'acme',
      user: 'ada-1',
    });
    expect(first.state).toBe('TASK_STATE_COMPLETED');
    // The request's own facts reach the agent at once (rules), without waiting for the store.
    expect(first.memory).toEqual(['The user’s name is Ada.', 'The user works at Kestrel.']);
    expect(first.answer).toMatch(/^Ada, here is what the agents found\./);
    const stored = await store.get({ tenant: 'acme', user: 'ada-1' });
    expect(stored.facts.name).toMatchObject({ value: 'Ada', source: 'rules' });
    expect(stored.facts.company?.value).toBe('Kestrel');

    const second = await run(offline, { text: 'And what is MCP?', tenant: 'acme', user: 'ada-1' });
    expect(second.memory).toEqual(['The user’s name is Ada.', 'The user works at Kestrel.']);
    expect(second.answer).toMatch(/^Ada, here is what the agents found\./);
  });

  it('never uses one tenant’s or one user’s memory for another', async () => {
    await store.merge(
      { tenant: 'acme', user: 'shared' },
      { update: { facts: { name: 'Ada' }, preferences: {} }, source: 'rules' },
    );
    const otherTenant = await run(offline, {
      text: 'What is A2A?',
      tenant: 'globex',
      user: 'shared',
    });
    expect(otherTenant.memory).toEqual([]);
    expect(otherTenant.answer).toMatch(/^Here is what the agents found\./);
    const otherUser = await run(offline, { text: 'What is A2A?', tenant: 'acme', user: 'someone' });
    expect(otherUser.memory).toEqual([]);
    // No user: the tenant's default user, who is someone else again.
    const noUser = await run(offline, { text: 'What is A2A?', tenant: 'acme' });
    expect(noUser.memory).toEqual([]);
    expect(noUser.answer).not.toContain('Ada');
  });

  it('keeps the offline answer brief for a user who asked for brief answers', async () => {
    const verbose = await run(offline, { text: 'What is A2A?', tenant: 'acme', user: 'brief-1' });
    expect(verbose.answer).toContain('It was published in 2025');
    const brief = await run(offline, {
      text: 'Please be brief. What is A2A?',
      tenant: 'acme',
      user: 'brief-1',
    });
    expect(brief.answer).toContain('A2A is a protocol for agents.');
    expect(brief.answer).not.toContain('It was published in 2025');
  });

  it('extracts with the LLM and gives the memory to the composer’s prompt', async () => {
    const before = llm.requests.length;
    const result = await run(online, {
      text: 'Good morning, I have a question: what is A2A?',
      tenant: 'acme',
      user: 'grace-1',
    });
    expect(result.state).toBe('TASK_STATE_COMPLETED');
    expect(result.answer).toContain('Composed by the model.');
    const stored = await store.get({ tenant: 'acme', user: 'grace-1' });
    expect(stored.facts.name).toMatchObject({ value: 'Grace', source: 'llm' });
    expect(stored.preferences.tone?.value).toBe('formal');

    const requests = llm.requests.slice(before).map(
      (request) =>
        request.body as {
          response_format?: { json_schema?: { name?: string } };
          messages: { role: string; content: string }[];
        },
    );
    const extraction = requests.find(
      (body) => body.response_format?.json_schema?.name === 'user_memory',
    );
    expect(extraction?.messages.at(-1)?.content).toBe(
      'Good morning, I have a question: what is A2A?',
    );
    const composer = requests.find((body) => body.response_format === undefined);
    const prompt = composer?.messages.map((message) => message.content).join('\n') ?? '';
    expect(prompt).toContain('User profile:');
    expect(prompt).toContain('The user’s name is Grace.');
    expect(prompt).toContain('The user prefers a formal tone.');
    expect(prompt).toContain('address them by name');
  });

  it('fails a run whose fleet.user is not a valid user id', async () => {
    const events = await orchestrate(offline.client, {
      text: 'What is A2A?',
      fleet: { tenant: 'acme', plan, user: '' },
    }).done;
    const outcome = outcomeOf(events);
    expect(outcome.state).toBe('TASK_STATE_FAILED');
    expect(outcome.message).toMatch(/fleet\.user is not a valid user id/);
  });
});
