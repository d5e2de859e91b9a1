import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { agentCardSchema } from './agent-card';
import { messageSchema, partSchema, streamResponseSchema, taskSchema } from './core';
import {
  createMessage,
  dataPart,
  findData,
  isInterruptedState,
  isTerminalState,
  partsText,
  textPart,
} from './helpers';
import { jsonRpcRequestSchema } from './json-rpc';
import { listTasksResponseSchema, sendMessageRequestSchema } from './methods';

describe('partSchema', () => {
  it('takes exactly one of text, data, url or raw', () => {
    expect(partSchema.safeParse({ text: 'hi' }).success).toBe(true);
    expect(partSchema.safeParse({ data: { a: 1 }, mediaType: 'application/json' }).success).toBe(
      true,
    );
    expect(partSchema.safeParse({ url: 'https://x', filename: 'x.pdf' }).success).toBe(true);
    expect(partSchema.safeParse({ text: 'hi', data: {} }).success).toBe(false);
    expect(partSchema.safeParse({ mediaType: 'text/plain' }).success).toBe(false);
  });
});

describe('messageSchema', () => {
  it('accepts ProtoJSON with omitted defaults and unknown keys', () => {
    const message = messageSchema.parse({
      messageId: 'm1',
      role: 'ROLE_USER',
      kindOfNew: 'ignored',
    });
    expect(message).toEqual({ messageId: 'm1', role: 'ROLE_USER', parts: [] });
  });

  it('refuses v0.3 roles and a missing messageId', () => {
    expect(messageSchema.safeParse({ messageId: 'm', role: 'user', parts: [] }).success).toBe(
      false,
    );
    expect(messageSchema.safeParse({ role: 'ROLE_USER', parts: [] }).success).toBe(false);
  });
});

describe('taskSchema and streamResponseSchema', () => {
  it('defaults contextId and tells stream events apart by member', () => {
    const task = taskSchema.parse({ id: 't', status: { state: 'TASK_STATE_WORKING' } });
    expect(task.contextId).toBe('');
    const event = streamResponseSchema.parse({
      statusUpdate: { taskId: 't', status: { state: 'TASK_STATE_COMPLETED' } },
    });
    expect('statusUpdate' in event).toBe(true);
    expect(streamResponseSchema.safeParse({ kind: 'status-update' }).success).toBe(false);
  });
});

describe('agentCardSchema', () => {
  it('accepts the minimal v1.0 card the SDK accepts, defaulting omitted lists', () => {
    const card = agentCardSchema.parse({
      name: 'Hand Agent',
      description: 'd',
      version: '0.0.1',
      supportedInterfaces: [
        { url: 'http://localhost:41250/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      ],
      capabilities: { streaming: true },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 'echo', name: 'Echo', description: 'echo', tags: ['echo'] }],
    });
    expect(card.skills[0]?.id).toBe('echo');
    expect(agentCardSchema.parse({ name: 'bare' }).supportedInterfaces).toEqual([]);
  });

  it('keeps a card whose extensions are malformed, dropping what is not an extension', () => {
    const card = agentCardSchema.parse({
      name: 'Foreign Agent',
      capabilities: {
        extensions: [
          { uri: 'urn:example:params-string', params: 'not an object' },
          { description: 'no uri' },
          'not an object',
          { uri: 'urn:example:fine', params: { a: 1 } },
        ],
      },
    });
    expect(card.capabilities.extensions).toEqual([
      { uri: 'urn:example:params-string' },
      { uri: 'urn:example:fine', params: { a: 1 } },
    ]);
  });
});

describe('method schemas', () => {
  it('parses a SendMessage request as the SDK client sends it', () => {
    const request = sendMessageRequestSchema.parse({
      message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] },
      configuration: {},
    });
    expect(request.configuration).toEqual({});
    expect(
      jsonRpcRequestSchema.safeParse({ jsonrpc: '2.0', id: 1, method: 'GetTask' }).success,
    ).toBe(true);
    expect(
      jsonRpcRequestSchema.safeParse({ jsonrpc: '1.0', id: 1, method: 'GetTask' }).success,
    ).toBe(false);
  });

  it('defaults an empty ListTasks response', () => {
    expect(listTasksResponseSchema.parse({})).toEqual({
      tasks: [],
      nextPageToken: '',
      pageSize: 0,
      totalSize: 0,
    });
  });
});

describe('helpers', () => {
  it('builds parts and reads them back', () => {
    const parts = [textPart('one'), dataPart({ fleet: { nodeId: 'n1' } }), textPart('two')];
    expect(partsText(parts)).toBe('one\ntwo');
    expect(findData(parts, z.object({ fleet: z.object({ nodeId: z.string() }) }))).toEqual({
      fleet: { nodeId: 'n1' },
    });
    expect(findData(parts, z.object({ other: z.string() }))).toBeUndefined();
    expect(dataPart(1).mediaType).toBe('application/json');
  });

  it('classifies states', () => {
    expect(isTerminalState('TASK_STATE_REJECTED')).toBe(true);
    expect(isTerminalState('TASK_STATE_INPUT_REQUIRED')).toBe(false);
    expect(isInterruptedState('TASK_STATE_AUTH_REQUIRED')).toBe(true);
    expect(isInterruptedState('TASK_STATE_WORKING')).toBe(false);
  });

  it('creates messages with fresh ids', () => {
    const first = createMessage({ parts: 'hi', taskId: 't1' });
    const second = createMessage({ parts: [textPart('hi')], role: 'ROLE_AGENT' });
    expect(first.messageId).not.toBe(second.messageId);
    expect(first).toMatchObject({ role: 'ROLE_USER', taskId: 't1', parts: [{ text: 'hi' }] });
    expect(second.role).toBe('ROLE_AGENT');
    expect(messageSchema.parse(first)).toEqual(first);
  });
});
