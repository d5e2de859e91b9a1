import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import request from 'supertest';
import {
  createMessage,
  dataPart,
  RESULT_ARTIFACT_NAME,
  textPart,
  type Part,
  type StreamResponse,
  type Task,
} from '@fleet/a2a';
import { A2AClient, discoverAgentCard } from '@fleet/a2a/client';
import { UnauthenticatedError } from '@fleet/errors';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import {
  errorDataSchema,
  reasoningResultDataSchema,
  stepDataSchema,
  type ReasoningResultData,
} from './agent';
import {
  bootReasoningAgent,
  type RunningReasoningAgent,
} from './test-support/boot-reasoning-agent';
import { createRecordingTracer } from '@fleet/testing';

const REDIS_URL = 'redis://127.0.0.1:6379';

function resultOf(task: Task): { text: string; data: ReasoningResultData } {
  const artifact = task.artifacts?.find((entry) => entry.name === RESULT_ARTIFACT_NAME);
  return {
    text: artifact?.parts.find((part) => part.text !== undefined)?.text ?? '',
    data: reasoningResultDataSchema.parse(
      artifact?.parts.find((part) => part.data !== undefined)?.data,
    ),
  };
}

function statusText(task: Task): string {
  return task.status.message?.parts.find((part) => part.text !== undefined)?.text ?? '';
}

async function send(agent: RunningReasoningAgent, parts: Part[]): Promise<Task> {
  return (await agent.client.sendMessage({ message: createMessage({ parts }) })) as Task;
}

describe('reasoning-agent service', () => {
  let redis: Redis;
  let llm: ScriptedOpenAI;
  let online: RunningReasoningAgent;
  let offline: RunningReasoningAgent;
  let tight: RunningReasoningAgent;
  const tracing = createRecordingTracer();
  const prefix = `test:reasoning-agent:${randomUUID()}`;

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    llm = await startScriptedOpenAI();
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: llm.baseURL, maxRetries: 0 });
    const now = () => new Date('2026-07-01T12:00:00Z');
    online = await bootReasoningAgent({
      redis,
      keyPrefix: `${prefix}:online`,
      llm: { client, model: 'reasoning-model' },
      now,
      tracer: tracing.tracer,
    });
    offline = await bootReasoningAgent({ redis, keyPrefix: `${prefix}:offline`, llm: undefined });
    tight = await bootReasoningAgent({
      redis,
      keyPrefix: `${prefix}:tight`,
      llm: { client, model: 'reasoning-model' },
      maxIterations: 2,
      now,
    });
  });

  beforeEach(() => {
    llm.requests.length = 0;
    tracing.spans.length = 0;
  });

  afterAll(async () => {
    await online?.close();
    await offline?.close();
    await tight?.close();
    await llm?.close();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  describe('card and HTTP', () => {
    it('serves an Agent Card with its skill, streaming and the internal-token scheme', async () => {
      const card = await discoverAgentCard(online.server.url);
      expect(card.name).toBe('reasoning-agent');
      expect(card.capabilities.streaming).toBe(true);
      expect(card.skills.map((skill) => skill.id)).toEqual(['reasoning']);
      expect(card.skills[0]?.tags).toEqual(expect.arrayContaining(['reasoning', 'math', 'time']));
      expect(card.description).toContain('calculate, current_time, date_diff');
      expect(card.securitySchemes).toEqual({
        fleetInternal: { httpAuthSecurityScheme: { scheme: 'bearer' } },
      });
    });

    it('is ready when Redis answers, and refuses calls without the internal token', async () => {
      const ready = await request(online.server.server).get('/readyz').expect(200);
      expect(ready.body).toEqual({ status: 'ready', checks: { redis: 'ok' } });
      const card = await discoverAgentCard(online.server.url);
      const anonymous = new A2AClient({ card, timeoutMs: 5_000 });
      await expect(
        anonymous.sendMessage({ message: createMessage({ parts: [textPart('2 + 2?')] }) }),
      ).rejects.toBeInstanceOf(UnauthenticatedError);
    });
  });

  describe('bad input', () => {
    it('rejects a message without a question', async () => {
      const task = await send(online, [textPart('  ')]);
      expect(task.status.state).toBe('TASK_STATE_REJECTED');
      expect(statusText(task)).toContain('needs a question in a text part');
      expect(llm.requests).toHaveLength(0);
    });

    it('rejects a malformed conversation data part, saying what is wrong', async () => {
      const task = await send(online, [
        textPart('And doubled?'),
        dataPart({ reasoning: { history: [{ role: 'robot', content: 'hi' }] } }),
      ]);
      expect(task.status.state).toBe('TASK_STATE_REJECTED');
      expect(statusText(task)).toMatch(
        /The reasoning data part is invalid at 'reasoning.history\[0\].role'/,
      );
    });

    it('rejects a malformed fleet node input', async () => {
      const task = await send(online, [textPart('2 + 2?'), dataPart({ fleet: { nodeId: 7 } })]);
      expect(task.status.state).toBe('TASK_STATE_REJECTED');
      expect(statusText(task)).toContain('The fleet data part');
    });
  });

  it('fails tasks offline with a message that says how to configure an upstream', async () => {
    const task = await send(offline, [textPart('What is 2 + 2?')]);
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(statusText(task)).toMatch(
      /needs an upstream LLM and none is configured.*OPENAI_BASE_URL/,
    );
    const data = task.status.message?.parts.find((part) => part.data !== undefined)?.data;
    expect(errorDataSchema.parse(data).error.code).toBe('SERVICE_UNAVAILABLE');
  });

  it('streams every step as a WORKING status update, then the result and COMPLETED', async () => {
    llm.enqueue(
      {
        content: 'First I add, then I multiply.',
        toolCalls: [{ id: 'c1', name: 'calculate', arguments: { expression: '(17 + 25) * 3' } }],
        usage: { prompt_tokens: 120, completion_tokens: 30 },
      },
      { content: '(17 + 25) × 3 = 126.', usage: { prompt_tokens: 160, completion_tokens: 12 } },
    );
    const events: StreamResponse[] = [];
    for await (const event of online.client.sendStreamingMessage({
      message: createMessage({ parts: [textPart('What is (17 + 25) * 3?')] }),
    })) {
      events.push(event);
    }
    const lines = events.flatMap((event) =>
      'statusUpdate' in event && event.statusUpdate.status.state === 'TASK_STATE_WORKING'
        ? (event.statusUpdate.status.message?.parts ?? []).flatMap((part) =>
            part.text === undefined ? [] : [part.text],
          )
        : [],
    );
    // The note before the tool call streams as answer text, not as a progress line.
    expect(lines).toEqual(['Calling calculate("(17 + 25) * 3")', 'Result: 126']);
    const stepData = events.flatMap((event) =>
      'statusUpdate' in event
        ? (event.statusUpdate.status.message?.parts ?? []).flatMap((part) =>
            part.data === undefined ? [] : [stepDataSchema.parse(part.data).reasoningStep.type],
          )
        : [],
    );
    expect(stepData).toEqual(['tool-call', 'tool-result']);
    const kinds = events.map((event) =>
      'task' in event
        ? 'task'
        : 'statusUpdate' in event
          ? event.statusUpdate.status.state
          : 'artifactUpdate' in event
            ? `artifact:${event.artifactUpdate.artifact.name}`
            : 'message',
    );
    expect(kinds.at(-2)).toBe('artifact:result');
    expect(kinds.at(-1)).toBe('TASK_STATE_COMPLETED');

    const taskId = 'task' in events[0]! ? events[0].task.id : '';
    const task = await online.client.getTask({ id: taskId });
    const { text, data } = resultOf(task);
    expect(text).toBe('First I add, then I multiply.\n\n(17 + 25) × 3 = 126.');
    expect(data).toMatchObject({
      iterations: 2,
      stopReason: 'answered',
      usage: { promptTokens: 280, completionTokens: 42, totalTokens: 322 },
      budget: { maxIterations: 6, maxTokens: 16_000 },
      toolCalls: [
        { name: 'calculate', arguments: '{"expression":"(17 + 25) * 3"}', ok: true, output: '126' },
      ],
    });
    expect(data.steps).toHaveLength(3);
    expect(statusText(task)).toBe('Answered after 2 model calls, 1 tool call, 322 tokens.');
    // The handler's AGENT span holds the LLM and TOOL spans.
    expect(tracing.spans.map((span) => span.attributes['openinference.span.kind'])).toEqual(
      expect.arrayContaining(['AGENT', 'LLM', 'TOOL']),
    );
  });

  it('passes the conversation before the question to the model', async () => {
    llm.enqueue({ content: '84.' });
    const task = await send(online, [
      textPart('And doubled?'),
      dataPart({
        reasoning: {
          history: [
            { role: 'user', content: 'What is 6 * 7?' },
            { role: 'assistant', content: '42.' },
          ],
        },
      }),
    ]);
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const body = llm.requests[0]?.body as { messages: { role: string; content: string }[] };
    expect(body.messages.slice(1).map((message) => message.content)).toEqual([
      'What is 6 * 7?',
      '42.',
      'And doubled?',
    ]);
  });

  it('answers with what it has when the iteration budget runs out', async () => {
    llm.enqueue(
      { toolCalls: [{ id: 'c1', name: 'current_time', arguments: { timezone: 'Asia/Tokyo' } }] },
      { toolCalls: [{ id: 'c2', name: 'calculate', arguments: { expression: '1 + 1' } }] },
    );
    const task = await send(tight, [textPart('What time is it in Tokyo, plus two hours?')]);
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const { text, data } = resultOf(task);
    expect(text).toMatch(/^The reasoning budget ran out \(2 model calls\)/);
    expect(text).toContain('current_time("Asia/Tokyo") → {"iso":"2026-07-01T12:00:00.000Z"');
    expect(data).toMatchObject({ stopReason: 'iteration-budget', iterations: 2 });
    expect(statusText(task)).toMatch(/^Stopped when the iteration budget ran out/);
  });

  it('stops the model call when the task is cancelled', async () => {
    llm.enqueue({ hang: true });
    const stream = online.client.sendStreamingMessage({
      message: createMessage({ parts: [textPart('What is 2 + 2?')] }),
    });
    const iterator = stream[Symbol.asyncIterator]();
    const first = await iterator.next();
    const taskId = first.done !== true && 'task' in first.value ? first.value.task.id : '';
    await llm.waitForRequests(1);
    const cancelled = await online.client.cancelTask({ id: taskId });
    expect(cancelled.status.state).toBe('TASK_STATE_CANCELED');
    const aborted = await llm.waitForAbort();
    expect(aborted.path).toMatch(/chat\/completions$/);
    await iterator.return?.();
  });

  it('fails the task with the upstream error when the model call fails', async () => {
    llm.enqueue({ error: { status: 400, message: 'tools are not supported by this model' } });
    const task = await send(online, [textPart('What is 2 + 2?')]);
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(statusText(task)).toContain('tools are not supported by this model');
  });
});
