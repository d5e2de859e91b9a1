/**
 * Interop: the official `@a2a-js/sdk` client, built with `ClientFactory.createFromUrl` from the
 * reasoning agent's card, streams a run's steps and reads its result.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SendMessageRequest, TaskState } from '@a2a-js/sdk';
import { ClientFactory, type Client } from '@a2a-js/sdk/client';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import {
  bootReasoningAgent,
  TEST_TOKEN,
  type RunningReasoningAgent,
} from './test-support/boot-reasoning-agent';

function texts(parts: readonly { content?: { $case: string; value: unknown } | undefined }[]) {
  return parts
    .map((part) => (part.content?.$case === 'text' ? String(part.content.value) : ''))
    .join('');
}

describe('@a2a-js/sdk client against the reasoning agent', () => {
  let redis: Redis;
  let llm: ScriptedOpenAI;
  let agent: RunningReasoningAgent;
  let client: Client;
  const prefix = `test:reasoning-agent-sdk:${randomUUID()}`;
  const options = { serviceParameters: { authorization: `Bearer ${TEST_TOKEN}` } };

  beforeAll(async () => {
    redis = new Redis('redis://127.0.0.1:6379');
    llm = await startScriptedOpenAI();
    agent = await bootReasoningAgent({
      redis,
      keyPrefix: prefix,
      llm: {
        client: new OpenAI({ apiKey: 'sk-test', baseURL: llm.baseURL, maxRetries: 0 }),
        model: 'reasoning-model',
      },
    });
    client = await new ClientFactory().createFromUrl(agent.server.url);
  });

  afterAll(async () => {
    await agent?.close();
    await llm?.close();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('streams each step as a working status, then the result artifact and completed', async () => {
    llm.enqueue(
      {
        content: 'Two to the tenth.',
        toolCalls: [{ id: 'c1', name: 'calculate', arguments: { expression: '2 ^ 10' } }],
      },
      { content: '2^10 = 1024.' },
    );
    const events: string[] = [];
    const request = SendMessageRequest.fromJSON({
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'What is 2^10?' }] },
    });
    for await (const event of client.sendMessageStream(request, options)) {
      const { payload } = event;
      switch (payload?.$case) {
        case 'task':
          events.push(`task:${TaskState[payload.value.status?.state ?? 0]}`);
          break;
        case 'statusUpdate': {
          const text = texts(payload.value.status?.message?.parts ?? []);
          events.push(`${TaskState[payload.value.status?.state ?? 0]}${text ? `:${text}` : ''}`);
          break;
        }
        case 'artifactUpdate':
          events.push(
            `artifact:${payload.value.artifact?.name}:${texts(payload.value.artifact?.parts ?? [])}`,
          );
          break;
        case 'message':
        case undefined:
          events.push('other');
      }
    }
    expect(events.slice(0, -1)).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'TASK_STATE_WORKING',
      'TASK_STATE_WORKING:Thinking: Two to the tenth.',
      'TASK_STATE_WORKING:Calling calculate("2 ^ 10")',
      'TASK_STATE_WORKING:Result: 1024',
      'artifact:result:2^10 = 1024.',
    ]);
    expect(events.at(-1)).toMatch(
      /^TASK_STATE_COMPLETED:Answered after 2 model calls, 1 tool call, \d+ tokens\.$/,
    );
  });
});
