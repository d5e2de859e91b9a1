import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import request from 'supertest';
import { dataPart, RESULT_ARTIFACT_NAME, textPart, type RunResult } from '@fleet/a2a';
import { createLlmClient } from '@fleet/llm';
import { createRouteClassifier, type RouteClassifier } from '../routing';
import { buildGateway, TEST_KEY, type TestGateway } from '../test-support/build-gateway';
import {
  startOrchestratorDouble,
  type OrchestratorDouble,
} from '../test-support/orchestrator-double';
import { serve, type Served } from '../test-support/serve';

const runResult: RunResult = {
  sessionId: 'sess-auto',
  plan: {
    nodes: [{ id: 'n1', agent: 'rag-agent', task: 'find the policy', dependsOn: [] }],
    rationale: 'one step',
    confidence: 0.9,
  },
  nodes: [{ id: 'n1', agent: 'rag-agent', state: 'completed', durationMs: 3, attempts: 1 }],
  citations: [],
  failedNodes: [],
  composer: 'offline',
};

async function startOrchestrator(): Promise<OrchestratorDouble> {
  return startOrchestratorDouble(async function* execute() {
    await Promise.resolve();
    yield {
      type: 'artifact',
      artifact: {
        name: RESULT_ARTIFACT_NAME,
        parts: [textPart('Hotels up to 150 EUR a night.'), dataPart(runResult)],
      },
    };
  });
}

const ask = (content: string, extra: Record<string, unknown> = {}) => ({
  model: 'gpt-x',
  messages: [{ role: 'user', content }],
  ...extra,
});

describe('X-Routing-Mode: auto', () => {
  let gateway: TestGateway;
  let orchestrator: OrchestratorDouble;
  let classifier: RouteClassifier;
  beforeAll(async () => {
    orchestrator = await startOrchestrator();
    gateway = await buildGateway({
      overrides: {
        orchestratorClient: orchestrator.client,
        // The classifier talks to the same scripted upstream, which starts inside buildGateway.
        autoRouting: {
          classifier: { classify: (input) => classifier.classify(input) },
          passthroughModel: 'upstream-model',
        },
      },
    });
    classifier = createRouteClassifier({
      client: createLlmClient({
        upstream: { offline: false, baseURL: gateway.llm!.baseURL, apiKey: 'sk-upstream' },
        maxRetries: 0,
      }),
      model: 'router-model',
      // Each test scripts its own upstream answers; one failure must not pause the next.
      failureCooldownMs: 0,
    });
  });
  beforeEach(() => {
    gateway.llm!.requests.length = 0;
  });
  afterAll(async () => {
    await gateway.close();
    await orchestrator.close();
  });

  it('passes through when the classifier says so, forwarding the client bytes unchanged', async () => {
    gateway.llm!.enqueue(
      { json: { route: 'passthrough', reason: 'general question' } },
      { content: 'Lisbon is the capital of Portugal.' },
    );
    const raw = JSON.stringify(ask('What is the capital of Portugal?', { seed: 7 }));
    const response = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .set('x-routing-mode', 'auto')
      .set('content-type', 'application/json')
      .send(raw);
    expect(response.status).toBe(200);
    expect(response.headers['x-routing-mode']).toBe('passthrough');
    expect(response.headers['x-routing-reason']).toBe(
      'auto: classifier (model router-model): general question',
    );
    expect(response.body.choices[0].message.content).toBe('Lisbon is the capital of Portugal.');
    const [classification, forwarded] = gateway.llm!.requests;
    expect((classification?.body as { model: string }).model).toBe('router-model');
    expect(forwarded?.rawBody).toBe(raw);
  });

  it('orchestrates when the classifier says so', async () => {
    gateway.llm!.enqueue({ json: { route: 'orchestration', reason: 'needs documents' } });
    const response = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .set('x-routing-mode', 'AUTO')
      .send(ask('What does our travel policy say about hotels?'));
    expect(response.status).toBe(200);
    expect(response.headers['x-routing-mode']).toBe('orchestration');
    expect(response.headers['x-routing-reason']).toBe(
      'auto: classifier (model router-model): needs documents',
    );
    expect(response.body.choices[0].message.content).toBe('Hotels up to 150 EUR a night.');
    const call = await orchestrator.waitForCall((each) => each.text.includes('travel policy'));
    expect(call.input?.tenant).toBe('acme');
    // Only the classification went upstream.
    expect(gateway.llm!.requests).toHaveLength(1);
  });

  it('falls back to the heuristic when the classifier fails, and says so', async () => {
    gateway.llm!.enqueue({ error: { status: 500 } });
    const response = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .set('x-routing-mode', 'auto')
      .send(ask('Check my inbox for the offsite invitation'));
    expect(response.status).toBe(200);
    expect(response.headers['x-routing-mode']).toBe('orchestration');
    expect(response.headers['x-routing-reason']).toBe(
      'auto: heuristic (classifier failed: upstream HTTP 500): needs email',
    );
  });

  it('sends fleet-auto requests that pass through with the upstream model', async () => {
    gateway.llm!.enqueue({ json: { route: 'passthrough', reason: 'chat' } }, { content: 'Hi!' });
    const response = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .send({ model: 'fleet-auto', messages: [{ role: 'user', content: 'Hello' }], seed: 3 });
    expect(response.status).toBe(200);
    expect(response.headers['x-routing-mode']).toBe('passthrough');
    const forwarded = gateway.llm!.requests[1]?.body as Record<string, unknown>;
    expect(forwarded).toEqual(expect.objectContaining({ model: 'upstream-model', seed: 3 }));
  });

  it('does not classify requests with tools: they always pass through', async () => {
    const response = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .set('x-routing-mode', 'auto')
      .send(ask('Weather?', { tools: [{ type: 'function', function: { name: 'weather' } }] }));
    expect(response.status).toBe(200);
    expect(response.headers['x-routing-mode']).toBe('passthrough');
    expect(response.headers['x-routing-reason']).toMatch(/^tools present/);
    expect(gateway.llm!.requests).toHaveLength(1);
  });

  it('works with the official openai SDK, which reads the route from the headers', async () => {
    const served: Served = await serve(gateway.app);
    try {
      gateway.llm!.enqueue(
        { json: { route: 'passthrough', reason: 'writing' } },
        { content: 'Roses are red.' },
      );
      const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${served.url}/v1`, maxRetries: 0 });
      const stream = await client.chat.completions
        .create(
          { model: 'gpt-x', stream: true, messages: [{ role: 'user', content: 'A short poem?' }] },
          { headers: { 'X-Routing-Mode': 'auto' } },
        )
        .withResponse();
      expect(stream.response.headers.get('x-routing-mode')).toBe('passthrough');
      expect(stream.response.headers.get('x-routing-reason')).toBe(
        'auto: classifier (model router-model): writing',
      );
      let text = '';
      for await (const chunk of stream.data) text += chunk.choices[0]?.delta.content ?? '';
      expect(text).toBe('Roses are red.');
    } finally {
      await served.close();
    }
  });
});

describe('X-Routing-Mode: auto, offline', () => {
  let gateway: TestGateway;
  let orchestrator: OrchestratorDouble;
  beforeAll(async () => {
    orchestrator = await startOrchestrator();
    // No autoRouting override: the app's default, the heuristic alone.
    gateway = await buildGateway({
      upstream: 'offline',
      overrides: { orchestratorClient: orchestrator.client },
    });
  });
  afterAll(async () => {
    await gateway.close();
    await orchestrator.close();
  });

  it('orchestrates, since passthrough could only answer 503, and says why', async () => {
    const response = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .set('x-routing-mode', 'auto')
      .send(ask('Write a haiku about Lisbon'));
    expect(response.status).toBe(200);
    expect(response.headers['x-routing-mode']).toBe('orchestration');
    expect(response.headers['x-routing-reason']).toBe(
      'auto: heuristic (no upstream): no upstream LLM for passthrough; orchestration works offline',
    );
  });
});
