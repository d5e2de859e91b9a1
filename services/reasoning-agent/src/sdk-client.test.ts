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
        chunkCount: 1,
        toolCalls: [{ id: 'c1', name: 'calculate', arguments: { expression: '2 ^ 10' } }],
      },
      { content: '2^10 = 1024.', chunkCount: 1 },
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
        case 'artifactUpdate': {
          const { artifact, append, lastChunk } = payload.value;
          const flags = `${append ? 'append' : 'whole'}${lastChunk ? ',last' : ''}`;
          events.push(`artifact:${artifact?.name}:${flags}:${texts(artifact?.parts ?? [])}`);
          break;
        }
        case 'message':
        case undefined:
          events.push('other');
      }
    }
    expect(events.slice(0, -1)).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'TASK_STATE_WORKING',
      // Every call's text streams as answer chunks, the note before a tool call too.
      'artifact:result:append:Two to the tenth.',
      'TASK_STATE_WORKING:Calling calculate("2 ^ 10")',
      'TASK_STATE_WORKING:Result: 1024',
      'artifact:result:append:\n\n2^10 = 1024.',
      'artifact:result:whole,last:Two to the tenth.\n\n2^10 = 1024.',
    ]);
    expect(events.at(-1)).toMatch(
      /^TASK_STATE_COMPLETED:Answered after 2 model calls, 1 tool call, \d+ tokens\.$/,
    );
  });

  it('sees the answer of the last, tool-free call in append chunks while the model writes it', async () => {
    const streaming = await bootReasoningAgent({
      redis,
      keyPrefix: `${prefix}:live`,
      maxIterations: 2,
      llm: {
        client: new OpenAI({ apiKey: 'sk-test', baseURL: llm.baseURL, maxRetries: 0 }),
        model: 'reasoning-model',
      },
    });
    try {
      const sdk = await new ClientFactory().createFromUrl(streaming.server.url);
      const answer = 'Two to the tenth is 1024, which is a kibi.';
      llm.enqueue(
        { toolCalls: [{ id: 'c1', name: 'calculate', arguments: { expression: '2 ^ 10' } }] },
        { content: answer, chunkCount: 6, chunkDelayMs: 60 },
      );
      const chunks: { text: string; append: boolean; last: boolean; modelDone: boolean }[] = [];
      let artifactIds = new Set<string>();
      const request = SendMessageRequest.fromJSON({
        message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'What is 2^10?' }] },
      });
      for await (const event of sdk.sendMessageStream(request, options)) {
        const { payload } = event;
        if (payload?.$case !== 'artifactUpdate') continue;
        const { artifact, append, lastChunk } = payload.value;
        artifactIds = artifactIds.add(artifact?.artifactId ?? '');
        chunks.push({
          text: texts(artifact?.parts ?? []),
          append,
          last: lastChunk,
          // The scripted model's answer call: still streaming while this chunk arrived?
          modelDone: llm.requests.at(-1)?.status !== undefined,
        });
      }
      const pieces = chunks.filter((chunk) => chunk.append);
      expect(pieces.length).toBeGreaterThan(2);
      expect(pieces.every((chunk) => !chunk.last)).toBe(true);
      expect(pieces[0]?.modelDone).toBe(false);
      expect(pieces.map((chunk) => chunk.text).join('')).toBe(answer);
      expect(chunks.at(-1)).toMatchObject({ text: answer, append: false, last: true });
      expect(artifactIds.size).toBe(1);
    } finally {
      await streaming.close();
    }
  });
});
