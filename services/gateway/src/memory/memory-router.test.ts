import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { dataPart, findData, RESULT_ARTIFACT_NAME, textPart, type RunResult } from '@fleet/a2a';
import { createMemoryStore, type MemoryStore } from '@fleet/memory';
import { z } from 'zod';
import {
  buildGateway,
  createTestSessions,
  OTHER_KEY,
  TEST_KEY,
  type TestGateway,
} from '../test-support/build-gateway';
import {
  startOrchestratorDouble,
  type OrchestratorDouble,
} from '../test-support/orchestrator-double';

const runResult: RunResult = {
  sessionId: 'sess-memory',
  plan: { nodes: [], rationale: 'nothing to do', confidence: 1 },
  nodes: [],
  citations: [],
  failedNodes: [],
  composer: 'offline',
};

/** The `fleet.user` the gateway put in the orchestrate request. */
const userEnvelope = z.object({ fleet: z.object({ user: z.string().optional() }) });

describe('memoryRouter', () => {
  let gateway: TestGateway;
  let store: MemoryStore;
  let orchestrator: OrchestratorDouble;
  /** `fleet.user` of every orchestrate request, in order. */
  const users: (string | undefined)[] = [];

  beforeAll(async () => {
    orchestrator = await startOrchestratorDouble(async function* answer(context) {
      await Promise.resolve();
      users.push(findData(context.message.parts, userEnvelope)?.fleet.user);
      yield {
        type: 'artifact',
        artifact: {
          name: RESULT_ARTIFACT_NAME,
          parts: [textPart('Done.'), dataPart(runResult)],
        },
      };
      yield { type: 'status', state: 'TASK_STATE_COMPLETED' };
    });
    // Memory keys live under the test sessions' prefix, so closing the gateway removes them.
    const sessions = createTestSessions();
    store = createMemoryStore({ redis: sessions.redis, keyPrefix: `${sessions.prefix}:memory` });
    gateway = await buildGateway({
      upstream: 'offline',
      sessions,
      overrides: { memory: store, orchestratorClient: orchestrator.client },
    });
  });

  afterAll(async () => {
    await gateway.close();
    await orchestrator.close();
  });

  const call = (method: 'get' | 'delete', key = TEST_KEY, user?: string) => {
    const pending = request(gateway.app)[method]('/v1/memory').auth(key, { type: 'bearer' });
    return user === undefined ? pending : pending.set('X-Fleet-User', user);
  };
  const remember = (tenant: string, user: string, name: string) =>
    store.merge(
      { tenant, user },
      { update: { facts: { name }, preferences: {} }, source: 'rules' },
    );

  it('requires an API key', async () => {
    const response = await request(gateway.app).get('/v1/memory');
    expect(response.status).toBe(401);
    expect(response.body.error.type).toBe('authentication_error');
  });

  it('answers an empty memory for a user nothing is known about', async () => {
    const response = await call('get', TEST_KEY, 'nobody');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      object: 'memory',
      user: 'nobody',
      facts: {},
      preferences: {},
      updatedAt: null,
    });
  });

  it('shows the caller’s memory: X-Fleet-User, or the tenant’s default user', async () => {
    await remember('acme', 'ada', 'Ada');
    await remember('acme', 'default', 'Default Person');
    const ada = await call('get', TEST_KEY, 'ada');
    expect(ada.status).toBe(200);
    expect(ada.body).toMatchObject({
      object: 'memory',
      user: 'ada',
      facts: { name: { value: 'Ada', source: 'rules' } },
      updatedAt: expect.any(String),
    });
    const fallback = await call('get', TEST_KEY);
    expect(fallback.body).toMatchObject({
      user: 'default',
      facts: { name: { value: 'Default Person' } },
    });
  });

  it('never shows or erases another tenant’s memory, even for the same user id', async () => {
    await remember('acme', 'shared', 'Ada');
    const other = await call('get', OTHER_KEY, 'shared');
    expect(other.status).toBe(200);
    expect(other.body).toMatchObject({ user: 'shared', facts: {}, updatedAt: null });
    const erased = await call('delete', OTHER_KEY, 'shared');
    expect(erased.status).toBe(200);
    expect((await store.get({ tenant: 'acme', user: 'shared' })).facts.name?.value).toBe('Ada');
  });

  it('erases the caller’s memory', async () => {
    await remember('acme', 'erase-me', 'Ada');
    const response = await call('delete', TEST_KEY, 'erase-me');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ object: 'memory.deleted', user: 'erase-me', deleted: true });
    expect(await store.get({ tenant: 'acme', user: 'erase-me' })).toEqual({
      facts: {},
      preferences: {},
    });
    const after = await call('get', TEST_KEY, 'erase-me');
    expect(after.body).toMatchObject({ facts: {}, preferences: {}, updatedAt: null });
  });

  it('rejects a malformed X-Fleet-User with 400', async () => {
    const response = await call('get', TEST_KEY, 'x'.repeat(200));
    expect(response.status).toBe(400);
    expect(response.body.error.type).toBe('invalid_request_error');
    expect(response.body.error.message).toMatch(/X-Fleet-User is not a valid user id/);
  });

  describe('orchestrated requests', () => {
    const orchestrate = (body: Record<string, unknown>, user?: string) => {
      const pending = request(gateway.app)
        .post('/v1/chat/completions')
        .auth(TEST_KEY, { type: 'bearer' })
        .set('x-routing-mode', 'orchestration');
      return (user === undefined ? pending : pending.set('X-Fleet-User', user)).send({
        model: 'fleet-orchestration',
        messages: [{ role: 'user', content: 'My name is Ada' }],
        ...body,
      });
    };

    it('name the OpenAI `user`, else X-Fleet-User, else the default user', async () => {
      users.length = 0;
      expect((await orchestrate({ user: 'from-body' }, 'from-header')).status).toBe(200);
      expect((await orchestrate({}, 'from-header')).status).toBe(200);
      expect((await orchestrate({})).status).toBe(200);
      expect(users).toEqual(['from-body', 'from-header', 'default']);
    });

    it('reject a malformed `user` with 400 before the orchestrator is called', async () => {
      users.length = 0;
      const response = await orchestrate({ user: '' });
      expect(response.status).toBe(400);
      expect(response.body.error.message).toMatch(/user is not a valid user id/);
      expect(users).toEqual([]);
    });
  });
});
