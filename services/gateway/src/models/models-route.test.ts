import { afterEach, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { getFreePort } from '@fleet/testing';
import { buildGateway, TEST_KEY, type TestGateway } from '../test-support/build-gateway';

describe('GET /v1/models', () => {
  let gateway: TestGateway | undefined;
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });

  it("lists the upstream's models and the fleet's own", async () => {
    gateway = await buildGateway({ upstream: { models: ['gpt-a', 'gpt-b'] } });
    const response = await request(gateway.app)
      .get('/v1/models')
      .auth(TEST_KEY, { type: 'bearer' });
    expect(response.status).toBe(200);
    expect(response.body.object).toBe('list');
    const ids = (response.body.data as { id: string }[]).map((model) => model.id);
    expect(ids).toEqual(['gpt-a', 'gpt-b', 'fleet-orchestration', 'fleet-reasoning', 'fleet-auto']);
  });

  it('reuses the upstream list for a while', async () => {
    gateway = await buildGateway();
    await request(gateway.app).get('/v1/models').auth(TEST_KEY, { type: 'bearer' }).expect(200);
    await request(gateway.app).get('/v1/models').auth(TEST_KEY, { type: 'bearer' }).expect(200);
    expect(gateway.llm!.requests.filter((r) => r.path.endsWith('/models'))).toHaveLength(1);
  });

  it("lists only the fleet's models offline", async () => {
    gateway = await buildGateway({ upstream: 'offline' });
    const response = await request(gateway.app)
      .get('/v1/models')
      .auth(TEST_KEY, { type: 'bearer' });
    expect(response.status).toBe(200);
    expect(response.headers['x-upstream-models']).toBe('offline');
    expect(response.body.data).toHaveLength(3);
  });

  it('still answers when the upstream is down, and says so', async () => {
    const port = await getFreePort();
    gateway = await buildGateway({ upstream: { unreachableUrl: `http://127.0.0.1:${port}/v1` } });
    const response = await request(gateway.app)
      .get('/v1/models')
      .auth(TEST_KEY, { type: 'bearer' });
    expect(response.status).toBe(200);
    expect(response.headers['x-upstream-models']).toBe('unavailable');
    expect(response.body.data).toHaveLength(3);
  });

  it('answers unknown routes with a 404 envelope', async () => {
    gateway = await buildGateway({ upstream: 'offline' });
    const response = await request(gateway.app)
      .get('/v1/nothing')
      .auth(TEST_KEY, { type: 'bearer' });
    expect(response.status).toBe(404);
    expect(response.body.error.type).toBe('not_found_error');
  });
});
