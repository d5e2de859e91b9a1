/**
 * The agent's task store (Redis) is unreachable: A2A calls answer 503 with Retry-After and a
 * JSON-RPC error that says so — a retryable outage, not "Internal error." with a 500.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import { Redis } from 'ioredis';
import request from 'supertest';
import { createTestAgent } from '../../__fixtures__/test-agent';
import { buildAgentCard } from '../build-agent-card';
import { createA2AHandler } from '../create-a2a-handler';
import { RedisTaskStore } from '../redis-task-store';
import { a2aRouter } from './a2a-router';

describe('a2aRouter while Redis is unreachable', () => {
  // Port 9 (discard): nothing answers. Commands fail at once instead of queueing.
  const redis = new Redis('redis://127.0.0.1:9', {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);

  afterAll(() => {
    redis.disconnect();
  });

  const app = express();
  app.use(
    a2aRouter({
      handler: createA2AHandler({
        card: buildAgentCard({
          name: 'outage-agent',
          description: 'd',
          version: '1',
          url: 'http://agent.test/',
          skills: [{ id: 's', name: 'S', description: 'skill' }],
          internalToken: false,
        }),
        execute: createTestAgent().execute,
        store: new RedisTaskStore({ redis }),
      }),
    }),
  );

  it.each([
    ['GetTask', { id: 'task-1' }],
    [
      'SendMessage',
      { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'echo hi' }] } },
    ],
  ])('answers %s with 503, Retry-After and a message naming Redis', async (method, params) => {
    const response = await request(app)
      .post('/a2a')
      .set('a2a-version', '1.0')
      .send({ jsonrpc: '2.0', id: 1, method, params })
      .expect(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(response.body).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32603, message: expect.stringMatching(/^Redis, .* cannot be reached/) },
    });
  });
});
