import { describe, expect, it } from '@jest/globals';
import express from 'express';
import request from 'supertest';
import { createMetrics } from './metrics';
import { addLogFields, observeRequests } from './observe-requests';
import { requestId } from './request-id';

describe('observeRequests', () => {
  it('logs one line per request with its fields and counts it under its route pattern', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = {
      info: (object: object) => lines.push(object as Record<string, unknown>),
      warn: () => undefined,
      error: () => undefined,
      debug: () => undefined,
    };
    const metrics = createMetrics({ serviceName: 'test', defaultMetrics: false });
    const app = express();
    app.use(requestId());
    app.use(observeRequests({ logger, metrics }));
    app.use(metrics.router);
    app.get('/items/:id', (_req, res) => {
      addLogFields(res, { tenant: 'acme' });
      res.status(201).json({});
    });
    await request(app)
      .get('/items/7')
      .set('authorization', 'Bearer secret-key')
      .set('x-request-id', 'r-1');
    await request(app).get('/healthz');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      requestId: 'r-1',
      method: 'GET',
      path: '/items/7',
      status: 201,
      tenant: 'acme',
    });
    expect(JSON.stringify(lines)).not.toContain('secret-key');
    const scrape = await request(app).get('/metrics');
    expect(scrape.text).toContain(
      'http_requests_total{method="GET",route="/items/:id",status="201",service="test"} 1',
    );
  });
});
