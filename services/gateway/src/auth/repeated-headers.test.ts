import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { dataPart, RESULT_ARTIFACT_NAME, textPart, type RunResult } from '@fleet/a2a';
import { createMemoryStore } from '@fleet/memory';
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
import { serve, type Served } from '../test-support/serve';

const runResult: RunResult = {
  sessionId: 'sess-repeated',
  plan: { nodes: [], rationale: 'nothing to do', confidence: 1 },
  nodes: [],
  citations: [],
  failedNodes: [],
  composer: 'offline',
};

interface Answer {
  status: number;
  body: { error?: { message: string; type: string; param: string | null; code: string | null } };
}

/**
 * One request whose headers go out exactly as listed, a name as often as it appears (Node's
 * client sends an array value as one header line per element).
 */
function send(
  baseUrl: string,
  {
    method,
    path,
    headers,
    body,
  }: { method: string; path: string; headers: Record<string, string | string[]>; body?: string },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${baseUrl}${path}`, { method, headers, agent: false });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        let parsed: Answer['body'] = {};
        try {
          parsed = JSON.parse(text) as Answer['body'];
        } catch {
          // Not JSON: the status says enough.
        }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
    });
    req.end(body);
  });
}

const CHAT = JSON.stringify({
  model: 'fleet-orchestration',
  messages: [{ role: 'user', content: 'Remember that my name is Ada' }],
});
const RESPONSES = JSON.stringify({ model: 'fleet-orchestration', input: 'Hi' });

describe('identity and routing headers sent more than once', () => {
  let gateway: TestGateway;
  let orchestrator: OrchestratorDouble;
  let served: Served;

  beforeAll(async () => {
    orchestrator = await startOrchestratorDouble(async function* answer() {
      await Promise.resolve();
      yield {
        type: 'artifact',
        artifact: { name: RESULT_ARTIFACT_NAME, parts: [textPart('Done.'), dataPart(runResult)] },
      };
      yield { type: 'status', state: 'TASK_STATE_COMPLETED' };
    });
    const sessions = createTestSessions();
    gateway = await buildGateway({
      upstream: 'offline',
      sessions,
      overrides: {
        orchestratorClient: orchestrator.client,
        memory: createMemoryStore({ redis: sessions.redis, keyPrefix: `${sessions.prefix}:mem` }),
      },
    });
    served = await serve(gateway.app);
  });

  afterAll(async () => {
    await served.close();
    await gateway.close();
    await orchestrator.close();
  });

  const auth = { authorization: `Bearer ${TEST_KEY}` };
  const json = { 'content-type': 'application/json' };

  it.each([
    ['X-Fleet-User', ['alice', 'bob']],
    ['X-Routing-Mode', ['orchestration', 'orchestration']],
    ['X-Session-ID', ['sess-a', 'sess-b']],
    ['X-Plan-Approval', ['none', 'none']],
  ])(
    'refuses %s sent twice on POST /v1/chat/completions with 400 naming it, before any run',
    async (name, values) => {
      const before = orchestrator.calls.length;
      const answer = await send(served.url, {
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { ...auth, ...json, 'x-routing-mode': 'orchestration', [name]: values },
        body: CHAT,
      });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ type: 'invalid_request_error', param: name });
      expect(answer.body.error?.message).toContain(`${name} was sent 2 times`);
      expect(orchestrator.calls.length).toBe(before);
    },
  );

  it('refuses X-Fleet-User sent twice on POST /v1/responses', async () => {
    const answer = await send(served.url, {
      method: 'POST',
      path: '/v1/responses',
      headers: { ...auth, ...json, 'x-routing-mode': 'orchestration', 'x-fleet-user': ['a', 'b'] },
      body: RESPONSES,
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error?.param).toBe('X-Fleet-User');
  });

  it('refuses X-Fleet-User sent twice on GET /v1/memory instead of reading a third user', async () => {
    const answer = await send(served.url, {
      method: 'GET',
      path: '/v1/memory',
      headers: { ...auth, 'x-fleet-user': ['alice', 'bob'] },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error?.param).toBe('X-Fleet-User');
  });

  it.each([
    ['POST', '/v1/chat/completions', CHAT],
    ['POST', '/v1/embeddings', JSON.stringify({ model: 'm', input: 'x' })],
    ['GET', '/v1/sessions', undefined],
    ['GET', '/v1/models', undefined],
  ])(
    'refuses two Authorization headers on %s %s, even two valid keys',
    async (method, path, body) => {
      const answer = await send(served.url, {
        method,
        path,
        headers: {
          ...json,
          authorization: [`Bearer ${TEST_KEY}`, `Bearer ${OTHER_KEY}`],
        },
        ...(body === undefined ? {} : { body }),
      });
      expect(answer.status).toBe(400);
      expect(answer.body.error?.param).toBe('Authorization');
    },
  );

  it('still takes one X-Fleet-User whose value has a comma as that one user', async () => {
    const answer = await send(served.url, {
      method: 'GET',
      path: '/v1/memory',
      headers: { ...auth, 'x-fleet-user': 'alice, bob' },
    });
    expect(answer.status).toBe(200);
  });
});
