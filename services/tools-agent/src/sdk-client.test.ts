/**
 * Interop: the official `@a2a-js/sdk` client, built with `ClientFactory.createFromUrl` from the
 * tools agent's card, reads the tool skills and streams a call's progress lines and result.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SendMessageRequest, TaskState } from '@a2a-js/sdk';
import { ClientFactory, type Client } from '@a2a-js/sdk/client';
import { Redis } from 'ioredis';
import {
  bootToolsAgent,
  TEST_TOKEN,
  type RunningToolsAgent,
} from './test-support/boot-tools-agent';
import { everythingServer } from './test-support/mcp-servers';

function texts(parts: readonly { content?: { $case: string; value: unknown } | undefined }[]) {
  return parts
    .map((part) => (part.content?.$case === 'text' ? String(part.content.value) : ''))
    .join('');
}

describe('@a2a-js/sdk client against the tools agent', () => {
  let redis: Redis;
  let agent: RunningToolsAgent;
  let client: Client;
  const prefix = `test:tools-agent-sdk:${randomUUID()}`;
  const options = { serviceParameters: { authorization: `Bearer ${TEST_TOKEN}` } };

  beforeAll(async () => {
    redis = new Redis('redis://127.0.0.1:6379');
    agent = await bootToolsAgent({
      redis,
      keyPrefix: prefix,
      servers: new Map([['everything', everythingServer()]]),
    });
    client = await new ClientFactory().createFromUrl(agent.server.url);
  }, 60_000);

  afterAll(async () => {
    await agent?.close();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('sees each tool as a skill and streams progress notifications as working lines', async () => {
    const card = await client.getAgentCard();
    const skill = card.skills.find(
      (entry) => entry.id === 'everything/trigger-long-running-operation',
    );
    expect(skill?.tags).toEqual(['mcp', 'mcp-server:everything', 'approval:none', 'read-only']);

    const request = SendMessageRequest.fromJSON({
      message: {
        messageId: randomUUID(),
        role: 'ROLE_USER',
        parts: [
          { text: 'everything/trigger-long-running-operation {"duration": 0.6, "steps": 3}' },
        ],
      },
    });
    const states: string[] = [];
    const lines: string[] = [];
    let artifactText = '';
    for await (const event of client.sendMessageStream(request, options)) {
      const { payload } = event;
      if (payload?.$case === 'statusUpdate') {
        states.push(TaskState[payload.value.status?.state ?? 0] ?? '');
        const text = texts(payload.value.status?.message?.parts ?? []);
        if (text.includes('progress')) lines.push(text);
      } else if (payload?.$case === 'artifactUpdate') {
        artifactText += texts(payload.value.artifact?.parts ?? []);
      }
    }
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines[0]).toMatch(/^everything\/trigger-long-running-operation progress 1\/3/);
    expect(artifactText).toContain('completed');
    expect(states.at(-1)).toBe('TASK_STATE_COMPLETED');
  }, 60_000);
});
