import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { createMessage, RESULT_ARTIFACT_NAME, type Part, type Task } from '@fleet/a2a';
import type { McpElicitationRequest } from '@fleet/mcp';
import { answerElicitation } from './agent/elicitation';
import { bootToolsAgent, nodeParts, type RunningToolsAgent } from './test-support/boot-tools-agent';
import { everythingServer } from './test-support/mcp-servers';

const SLOW = 60_000;
const ELICIT = 'everything/trigger-elicitation-request';

const form = (
  properties: Record<string, unknown>,
  required: string[] = [],
): McpElicitationRequest => ({
  message: 'Tell me',
  requestedSchema: {
    type: 'object',
    properties,
    required,
  } as McpElicitationRequest['requestedSchema'],
});

describe('answerElicitation', () => {
  it('reads decline and cancel as such', () => {
    const request = form({ name: { type: 'string' } });
    expect(answerElicitation('decline', request)).toEqual({ action: 'decline' });
    expect(answerElicitation(' No. ', request)).toEqual({ action: 'decline' });
    expect(answerElicitation('cancel', request)).toEqual({ action: 'cancel' });
  });

  it('takes the whole answer as the value of a one-field form, in the field type', () => {
    expect(answerElicitation('Ada Lovelace', form({ name: { type: 'string' } }))).toEqual({
      action: 'accept',
      content: { name: 'Ada Lovelace' },
    });
    expect(answerElicitation('42', form({ n: { type: 'integer' } }))).toEqual({
      action: 'accept',
      content: { n: 42 },
    });
    expect(answerElicitation('yes', form({ ok: { type: 'boolean' } }))).toEqual({
      action: 'accept',
      content: { ok: true },
    });
  });

  it('reads JSON and field: value lines for larger forms, keeping only the form fields', () => {
    const request = form({
      name: { type: 'string' },
      age: { type: 'number' },
      tags: { type: 'array' },
    });
    expect(answerElicitation('{"name": "Ada", "age": "36", "other": 1}', request)).toEqual({
      action: 'accept',
      content: { name: 'Ada', age: 36 },
    });
    expect(answerElicitation('name: Ada\nage = 36\ntags: a, b', request)).toEqual({
      action: 'accept',
      content: { name: 'Ada', age: 36, tags: ['a', 'b'] },
    });
  });
});

function statusText(task: Task): string {
  return task.status.message?.parts.find((part) => part.text !== undefined)?.text ?? '';
}

function resultText(task: Task): string {
  const artifact = task.artifacts?.find((entry) => entry.name === RESULT_ARTIFACT_NAME);
  return artifact?.parts.find((part) => part.text !== undefined)?.text ?? '';
}

describe("an MCP server's question pauses the step as input-required (server-everything)", () => {
  let redis: Redis;
  let agent: RunningToolsAgent;
  const prefix = `test:tools-agent-elicitation:${randomUUID()}`;
  const servers = () =>
    new Map([
      [
        'everything',
        { ...everythingServer(), approval: { 'trigger-elicitation-request': 'never' as const } },
      ],
    ]);

  const send = async (target: RunningToolsAgent, parts: Part[], taskId?: string) =>
    (await target.client.sendMessage({
      message: createMessage({ parts, ...(taskId === undefined ? {} : { taskId }) }),
    })) as Task;

  beforeAll(async () => {
    redis = new Redis('redis://127.0.0.1:6379');
    agent = await bootToolsAgent({ redis, keyPrefix: prefix, servers: servers() });
  }, SLOW);

  afterAll(async () => {
    await agent?.close();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it(
    'asks the question, and the answer reaches the server with the call still open',
    async () => {
      const asked = await send(agent, nodeParts({ text: `${ELICIT} {}` }));
      expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      expect(statusText(asked)).toContain(`${ELICIT} asks: Please provide inputs`);
      expect(statusText(asked)).toMatch(/- name \(string, required\)/);
      const question = asked.status.message?.parts.find((part) => part.data !== undefined)?.data;
      expect(question).toMatchObject({ mcpQuestion: { tool: ELICIT } });

      const answered = await send(agent, [{ text: '{"name": "Ada", "check": true}' }], asked.id);
      expect(answered.status.state).toBe('TASK_STATE_COMPLETED');
      expect(resultText(answered)).toContain('User provided the requested information');
      expect(resultText(answered)).toContain('- Name: Ada');
    },
    SLOW,
  );

  it(
    'tells the server a person declined',
    async () => {
      const asked = await send(agent, nodeParts({ text: `${ELICIT} {}` }));
      expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      const answered = await send(agent, [{ text: 'decline' }], asked.id);
      expect(answered.status.state).toBe('TASK_STATE_COMPLETED');
      expect(resultText(answered)).toContain('User declined');
    },
    SLOW,
  );

  it(
    'fails the step, saying so, when the answer reaches a replica that does not hold the call',
    async () => {
      const asked = await send(agent, nodeParts({ text: `${ELICIT} {}` }));
      expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      const other = await bootToolsAgent({ redis, keyPrefix: prefix, servers: servers() });
      try {
        const answered = await send(other, [{ text: 'Ada' }], asked.id);
        expect(answered.status.state).toBe('TASK_STATE_FAILED');
        expect(statusText(answered)).toContain('no longer open');
      } finally {
        await other.close();
      }
      // The first replica's call is still open; the server hears cancel at its time-out.
    },
    SLOW,
  );
});
