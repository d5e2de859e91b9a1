import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import request from 'supertest';
import { RESULT_ARTIFACT_NAME, textPart } from '@fleet/a2a';
import { toFleetError } from '@fleet/errors';
import { createMemoryStore } from '@fleet/memory';
import { createSessionStore } from '@fleet/sessions';
import { startRedisServer, type TestRedisServer } from '@fleet/testing';
import { createDocumentsClient } from './documents';
import { GATEWAY_REDIS_OPTIONS } from './redis';
import { buildGateway, TEST_KEY, type TestGateway } from './test-support/build-gateway';
import {
  startOrchestratorDouble,
  type OrchestratorDouble,
} from './test-support/orchestrator-double';
import { startRagAgentDouble, type RagAgentDouble } from './test-support/rag-agent-double';

/**
 * The gateway's Redis is a `redis-server` this test owns, connected with the gateway's own client
 * options: killed, every route that needs Redis answers 503 with Retry-After within seconds; started
 * again on the same port, they answer 200 again without a restart of the gateway.
 */
describe('the gateway while its Redis is down', () => {
  let server: TestRedisServer;
  let redis: Redis;
  let gateway: TestGateway;
  let orchestrator: OrchestratorDouble;
  let agent: RagAgentDouble;

  beforeAll(async () => {
    server = await startRedisServer({ persistent: false });
    redis = new Redis(server.url, GATEWAY_REDIS_OPTIONS);
    redis.on('error', () => undefined);
    const store = createSessionStore({ redis });
    orchestrator = await startOrchestratorDouble(async function* (_context, call) {
      await Promise.resolve();
      yield {
        type: 'artifact',
        artifact: { name: RESULT_ARTIFACT_NAME, parts: [textPart(`Done: ${call.text}`)] },
      };
    });
    agent = await startRagAgentDouble();
    gateway = await buildGateway({
      upstream: 'offline',
      sessions: {
        store,
        redis,
        prefix: 'fleet',
        async close() {
          await store.close();
          redis.disconnect();
        },
      },
      overrides: {
        memory: createMemoryStore({ redis }),
        orchestratorClient: orchestrator.client,
        documents: createDocumentsClient({ client: agent.client, agentUrl: agent.url }),
      },
    });
  });
  afterAll(async () => {
    await gateway.close();
    await orchestrator.close();
    await agent.close();
    await server.stop();
  });

  const routes: { name: string; send: () => request.Test }[] = [
    { name: 'GET /v1/sessions', send: () => request(gateway.app).get('/v1/sessions') },
    { name: 'GET /v1/memory', send: () => request(gateway.app).get('/v1/memory') },
    { name: 'GET /v1/documents', send: () => request(gateway.app).get('/v1/documents') },
    {
      name: 'an orchestration chat request',
      send: () =>
        request(gateway.app)
          .post('/v1/chat/completions')
          .set('x-routing-mode', 'orchestration')
          .send({ model: 'fleet', messages: [{ role: 'user', content: 'Plan my week' }] }),
    },
  ];
  const send = (route: (typeof routes)[number]) =>
    route.send().auth(TEST_KEY, { type: 'bearer' }).timeout(10_000);

  async function expectAll(status: number): Promise<void> {
    for (const route of routes) {
      const response = await send(route);
      expect({ route: route.name, status: response.status }).toEqual({ route: route.name, status });
    }
  }

  it('serves every route while Redis is up', async () => {
    await expectAll(200);
  });

  it('answers 503 with Retry-After within seconds once Redis is gone', async () => {
    await server.kill();
    for (const route of routes) {
      const started = Date.now();
      const response = await send(route);
      expect({ route: route.name, status: response.status }).toEqual({
        route: route.name,
        status: 503,
      });
      expect(Date.now() - started).toBeLessThan(3000);
      expect(response.headers['retry-after']).toBe('5');
      expect(response.body.error).toMatchObject({
        type: 'server_error',
        code: 'service_unavailable',
      });
      expect(response.body.error.message).toMatch(/Redis/);
    }
    // Passthrough and the models list never needed Redis.
    const models = await request(gateway.app).get('/v1/models').auth(TEST_KEY, { type: 'bearer' });
    expect(models.status).toBe(200);
  });

  it('maps what a Redis command raises while disconnected to the same 503', async () => {
    // Past the gate, straight at the store: the error ioredis raises is what the error
    // middleware maps.
    const failure: unknown = await gateway.sessions.store.list('acme').then(
      () => new Error('expected a failure'),
      (error: unknown) => error,
    );
    const mapped = toFleetError(failure);
    expect(mapped.status).toBe(503);
    expect(mapped.retryAfterSeconds).toBe(5);
  });

  it('recovers by itself once Redis is back on the same port', async () => {
    await server.restart();
    const deadline = Date.now() + 10_000;
    let status = 0;
    while (Date.now() < deadline) {
      status = (await send(routes[0]!)).status;
      if (status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
    await expectAll(200);
  });
});
