import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import request from 'supertest';
import { createSessionStore } from '@fleet/sessions';
import { buildGateway, TEST_KEY, type TestGateway } from './test-support/build-gateway';

describe('createApp without Redis', () => {
  let gateway: TestGateway;
  let unreachable: Redis;

  beforeAll(async () => {
    // Nothing listens on port 1: every command fails at once, nothing retries.
    unreachable = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      enableOfflineQueue: false,
    });
    unreachable.on('error', () => undefined);
    gateway = await buildGateway({
      overrides: { redis: unreachable, sessions: createSessionStore({ redis: unreachable }) },
    });
  });

  afterAll(async () => {
    // Never connected, and never retried: there is nothing to disconnect (ioredis would leave a
    // timer behind for a socket that is already closed).
    expect(unreachable.status).toBe('end');
    await gateway.close();
  });

  it('reports Redis in /readyz', async () => {
    const response = await request(gateway.app).get('/readyz');
    expect(response.status).toBe(503);
    expect(response.body.status).toBe('not_ready');
    expect(response.body.checks.redis).not.toBe('ok');
  });

  it('still proxies passthrough requests: they never touch Redis', async () => {
    const response = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .send({ model: 'gpt-x', messages: [{ role: 'user', content: 'Hi' }] });
    expect(response.status).toBe(200);
    expect(response.body.choices[0].message.content).toBe('You said: Hi');
  });

  it('answers sessions requests with a 503 and Retry-After instead of hanging', async () => {
    const response = await request(gateway.app)
      .get('/v1/sessions')
      .auth(TEST_KEY, { type: 'bearer' });
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(response.body.error).toMatchObject({
      type: 'server_error',
      code: 'service_unavailable',
    });
  });
});

describe('createApp with Redis', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await buildGateway({ upstream: 'offline' });
  });

  afterAll(() => gateway.close());

  it('is ready when Redis answers', async () => {
    const response = await request(gateway.app).get('/readyz');
    expect(response.status).toBe(200);
    expect(response.body.checks).toEqual({ redis: 'ok' });
  });
});
