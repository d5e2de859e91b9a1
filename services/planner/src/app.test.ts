import { randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import request from 'supertest';
import {
  createMessage,
  dataPart,
  planResultSchema,
  RESULT_ARTIFACT_NAME,
  textPart,
  type Message,
  type Plan,
  type StreamResponse,
  type Task,
} from '@fleet/a2a';
import { A2AClient, discoverAgentCard } from '@fleet/a2a/client';
import { InMemoryTaskStore, RedisTaskStore, type A2AHandler } from '@fleet/a2a/server';
import { UnauthenticatedError } from '@fleet/errors';
import { silentLogger, startServer, type RunningServer } from '@fleet/http';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { createPlannerHandler } from './agent';
import { createApp } from './app';
import { createPlanner, OFFLINE_REASON } from './planning';
import { FLEET_AGENTS } from './test-support/fleet-agents';

const TOKEN = 'planner-test-token-0123456789';
const REDIS_URL = 'redis://127.0.0.1:6379';
const REQUEST = 'find X in our documents, then email a summary to bob@example.com';

const llmPlan: Plan = {
  nodes: [
    { id: 'docs', agent: 'rag-agent', skill: 'document-search', task: 'Find X.', dependsOn: [] },
    {
      id: 'mail',
      agent: 'mail-agent',
      task: 'Email a summary to bob@example.com.',
      dependsOn: ['docs'],
    },
  ],
  rationale: 'Find it, then send it.',
  confidence: 0.8,
};

interface RunningPlanner {
  server: RunningServer;
  handler: A2AHandler;
  store: RedisTaskStore;
  client: A2AClient;
}

function planMessage(overrides: Record<string, unknown> = {}): Message {
  return createMessage({
    parts: [
      textPart(REQUEST),
      dataPart({ planRequest: { request: REQUEST, agents: FLEET_AGENTS, ...overrides } }),
    ],
  });
}

async function collect(events: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const seen: StreamResponse[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

function resultOf(task: Task) {
  const artifact = task.artifacts?.find((entry) => entry.name === RESULT_ARTIFACT_NAME);
  const data = artifact?.parts.find((part) => part.data !== undefined)?.data;
  return {
    text: artifact?.parts.find((part) => part.text !== undefined)?.text,
    result: planResultSchema.parse(data),
  };
}

describe('planner service', () => {
  let redis: Redis;
  let llm: ScriptedOpenAI;
  let online: RunningPlanner;
  let offline: RunningPlanner;
  const prefix = `test:planner:${randomUUID()}`;

  async function boot(options: { llmClient?: OpenAI; keyPrefix: string }): Promise<RunningPlanner> {
    const store = new RedisTaskStore({ redis, keyPrefix: options.keyPrefix });
    const planner = createPlanner({
      llm: options.llmClient ? { client: options.llmClient, model: 'planner-model' } : undefined,
    });
    // The card must name the real address, which is known once the server listens.
    const target: { app?: RequestListener } = {};
    const server = await startServer({
      app: (req, res) => target.app?.(req, res),
      port: 0,
      signals: [],
    });
    const handler = createPlannerHandler({ planner, store, url: server.url });
    target.app = createApp({
      handler,
      internalToken: TOKEN,
      logger: silentLogger,
      readinessChecks: {
        redis: async () => {
          await redis.ping();
        },
      },
      isShuttingDown: () => server.isShuttingDown(),
      metrics: false,
    });
    const card = await discoverAgentCard(server.url);
    return {
      server,
      handler,
      store,
      client: new A2AClient({ card, token: TOKEN, timeoutMs: 10_000 }),
    };
  }

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    llm = await startScriptedOpenAI();
    const llmClient = new OpenAI({ apiKey: 'sk-test', baseURL: llm.baseURL, maxRetries: 0 });
    online = await boot({ llmClient, keyPrefix: `${prefix}:online` });
    offline = await boot({ keyPrefix: `${prefix}:offline` });
  });

  afterAll(async () => {
    for (const running of [online, offline]) {
      await running.handler.close();
      await running.server.shutdown();
      await running.store.close();
    }
    await llm.close();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('serves its Agent Card at both well-known paths', async () => {
    const card = await discoverAgentCard(online.server.url);
    expect(card.name).toBe('planner');
    expect(card.capabilities.streaming).toBe(true);
    expect(card.skills).toEqual([
      expect.objectContaining({ id: 'plan', tags: ['planning', 'dag'] }),
    ]);
    expect(card.securitySchemes).toEqual({
      fleetInternal: { httpAuthSecurityScheme: { scheme: 'bearer' } },
    });
    expect(card.supportedInterfaces[0]?.url).toBe(`${online.server.url}/a2a`);
    const legacy = await request(online.server.server).get('/.well-known/agent.json').expect(200);
    expect(legacy.body.name).toBe('planner');
  });

  it('refuses calls without the internal token', async () => {
    const card = await discoverAgentCard(online.server.url);
    const anonymous = new A2AClient({ card, timeoutMs: 5_000 });
    await expect(anonymous.sendMessage({ message: planMessage() })).rejects.toBeInstanceOf(
      UnauthenticatedError,
    );
  });

  it('streams WORKING, the result artifact, then COMPLETED with the LLM plan', async () => {
    llm.enqueue({ json: llmPlan });
    const events = await collect(online.client.sendStreamingMessage({ message: planMessage() }));

    const first = events[0];
    expect(first && 'task' in first && first.task.status.state).toBe('TASK_STATE_SUBMITTED');
    const working = events.find(
      (event) =>
        'statusUpdate' in event && event.statusUpdate.status.state === 'TASK_STATE_WORKING',
    );
    expect(
      working && 'statusUpdate' in working && working.statusUpdate.status.message?.parts,
    ).toEqual([{ text: 'Planning with 4 agents…' }]);
    const artifactIndex = events.findIndex((event) => 'artifactUpdate' in event);
    const last = events.at(-1);
    expect(artifactIndex).toBeGreaterThan(events.indexOf(working!));
    expect(last && 'statusUpdate' in last && last.statusUpdate.status.state).toBe(
      'TASK_STATE_COMPLETED',
    );
    expect(artifactIndex).toBeLessThan(events.length - 1);

    const artifact = (events[artifactIndex] as Extract<StreamResponse, { artifactUpdate: unknown }>)
      .artifactUpdate.artifact;
    expect(artifact.name).toBe('result');
    const [text, data] = artifact.parts;
    expect(text?.text).toBe(
      'A 2-step plan from the LLM (confidence 0.80): first docs (rag-agent), then mail (mail-agent). Find it, then send it.',
    );
    expect(data?.mediaType).toBe('application/json');
    expect(planResultSchema.parse(data?.data)).toEqual({
      plan: llmPlan,
      source: 'llm',
      attempts: 1,
    });
  });

  it('answers a blocking call with the completed task, which any replica can read from Redis', async () => {
    llm.enqueue({ json: llmPlan });
    const task = (await online.client.sendMessage({ message: planMessage() })) as Task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(resultOf(task).result.source).toBe('llm');

    // Another replica: same Redis prefix, its own handler.
    const replica = new RedisTaskStore({ redis, keyPrefix: `${prefix}:online` });
    const stored = await replica.load(task.id);
    expect(stored?.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(resultOf(await online.client.getTask({ id: task.id })).result).toEqual(
      resultOf(task).result,
    );
  });

  it('plans heuristically offline, without calling any LLM', async () => {
    const before = llm.requests.length;
    const task = (await offline.client.sendMessage({ message: planMessage() })) as Task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const { text, result } = resultOf(task);
    expect(result).toMatchObject({
      source: 'heuristic',
      attempts: 0,
      fallbackReason: OFFLINE_REASON,
    });
    expect(result.plan.nodes.map((node) => [node.agent, node.dependsOn])).toEqual([
      ['rag-agent', []],
      ['mail-agent', ['rag-agent-1']],
    ]);
    expect(text).toMatch(/^A 2-step plan from the heuristic planner/);
    expect(llm.requests.length).toBe(before);
  });

  it('falls back to the heuristic planner when the LLM fails', async () => {
    llm.enqueue({ error: { status: 503, message: 'overloaded' } });
    const task = (await online.client.sendMessage({ message: planMessage() })) as Task;
    const { result } = resultOf(task);
    expect(result).toMatchObject({ source: 'heuristic', attempts: 1 });
    expect(result.fallbackReason).toMatch(/The LLM call failed/);
  });

  it('rejects a message without a planRequest data part, saying what it needs', async () => {
    const task = (await online.client.sendMessage({
      message: createMessage({ parts: 'plan something' }),
    })) as Task;
    expect(task.status.state).toBe('TASK_STATE_REJECTED');
    expect(task.status.message?.parts[0]?.text).toMatch(/needs a data part \{ planRequest/);
  });

  it('rejects an invalid planRequest with the validation problem', async () => {
    const task = (await online.client.sendMessage({
      message: createMessage({
        parts: [textPart('x'), dataPart({ planRequest: { request: 'x', agents: 'all of them' } })],
      }),
    })) as Task;
    expect(task.status.state).toBe('TASK_STATE_REJECTED');
    expect(task.status.message?.parts[0]?.text).toMatch(
      /planRequest data part is invalid at 'planRequest.agents'/,
    );
  });

  it('serves health, readiness (Redis) and 404s', async () => {
    await request(online.server.server).get('/healthz').expect(200, { status: 'ok' });
    const ready = await request(online.server.server).get('/readyz').expect(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { redis: 'ok' } });
    await request(online.server.server).get('/nope').expect(404);
  });
});

describe('createApp', () => {
  it('is not ready when Redis does not answer, and serves metrics', async () => {
    const handler = createPlannerHandler({
      planner: createPlanner(),
      store: new InMemoryTaskStore(),
      url: 'http://127.0.0.1:1',
    });
    const app = createApp({
      handler,
      internalToken: TOKEN,
      logger: silentLogger,
      readinessChecks: {
        redis: () => {
          throw new Error('connect ECONNREFUSED 127.0.0.1:1');
        },
      },
    });
    const ready = await request(app).get('/readyz').expect(503);
    expect(ready.body.checks.redis).toContain('ECONNREFUSED');
    const metrics = await request(app).get('/metrics').expect(200);
    expect(metrics.text).toContain('service="planner"');
    await handler.close();
  });
});
