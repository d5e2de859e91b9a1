import { describe, expect, it } from '@jest/globals';
import express from 'express';
import request from 'supertest';
import { healthRoutes } from './health';

describe('healthRoutes', () => {
  it('answers /healthz whatever the dependencies say', async () => {
    const app = express().use(
      healthRoutes({ checks: { redis: () => Promise.reject(new Error('down')) } }),
    );
    await request(app).get('/healthz').expect(200, { status: 'ok' });
  });

  it('answers /readyz 200 when every check passes', async () => {
    const app = express().use(
      healthRoutes({ checks: { redis: () => Promise.resolve(), llm: () => undefined } }),
    );
    await request(app)
      .get('/readyz')
      .expect(200, { status: 'ready', checks: { redis: 'ok', llm: 'ok' } });
  });

  it('answers /readyz 503 naming the failing dependency and why', async () => {
    const app = express().use(
      healthRoutes({
        checks: {
          redis: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379')),
          slow: () => new Promise<void>(() => undefined),
        },
        checkTimeoutMs: 50,
      }),
    );
    const response = await request(app).get('/readyz');
    expect(response.status).toBe(503);
    expect(response.body).toEqual({
      status: 'not_ready',
      checks: { redis: 'connect ECONNREFUSED 127.0.0.1:6379', slow: 'no answer within 50 ms' },
    });
  });

  it('answers /readyz 200 degraded, with the reason, when a check runs without its dependency', async () => {
    const app = express().use(
      healthRoutes({
        checks: {
          redis: () => undefined,
          embeddings: () => ({ degraded: 'full-text search only' }),
        },
      }),
    );
    await request(app)
      .get('/readyz')
      .expect(200, {
        status: 'degraded',
        checks: { redis: 'ok', embeddings: 'degraded: full-text search only' },
      });
  });

  it('answers /readyz 503 when one check fails and another is degraded', async () => {
    const app = express().use(
      healthRoutes({
        checks: {
          redis: () => Promise.reject(new Error('degraded: not really')),
          embeddings: () => Promise.resolve({ degraded: 'no upstream' }),
        },
      }),
    );
    const response = await request(app).get('/readyz');
    expect(response.status).toBe(503);
    expect(response.body).toEqual({
      status: 'not_ready',
      checks: { redis: 'degraded: not really', embeddings: 'degraded: no upstream' },
    });
  });

  it('answers /readyz 503 while shutting down', async () => {
    const app = express().use(healthRoutes({ isShuttingDown: () => true }));
    await request(app).get('/readyz').expect(503, { status: 'shutting_down', checks: {} });
  });
});
