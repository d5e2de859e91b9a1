import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createLlmClient } from '@fleet/llm';
import { createRecordingTracer, startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { createRouteClassifier } from './classify-route';

describe('the gateway.route span', () => {
  let llm: ScriptedOpenAI;
  let recording: ReturnType<typeof createRecordingTracer>;
  beforeAll(async () => {
    llm = await startScriptedOpenAI();
  });
  afterAll(() => llm.close());
  beforeEach(() => {
    recording = createRecordingTracer();
  });

  const routeSpans = () => recording.spans.filter((span) => span.name === 'gateway.route');

  it('records the decision, its source and whether it was cached, with the LLM call inside', async () => {
    llm.enqueue({ json: { route: 'orchestration', reason: 'needs documents' } });
    const router = createRouteClassifier({
      client: createLlmClient({
        upstream: { offline: false, baseURL: llm.baseURL, apiKey: 'sk-upstream' },
        maxRetries: 0,
      }),
      model: 'router-model',
      tracer: recording.tracer,
    });
    const messages = [{ role: 'user', content: 'Summarise our travel policy' }];
    await router.classify({ tenant: 'acme', messages });
    await router.classify({ tenant: 'acme', messages });
    expect(routeSpans()).toHaveLength(2);
    const [first, second] = routeSpans();
    expect(first?.ended).toBe(true);
    expect(first?.attributes).toEqual(
      expect.objectContaining({
        'openinference.span.kind': 'CHAIN',
        'input.value': 'Summarise our travel policy',
        'fleet.route': 'orchestration',
        'fleet.route.reason': 'auto: classifier (model router-model): needs documents',
        'fleet.route.source': 'classifier',
        'fleet.route.cached': false,
        'fleet.route.classifier_model': 'router-model',
      }),
    );
    expect(second?.attributes).toEqual(
      expect.objectContaining({ 'fleet.route.cached': true, 'fleet.route': 'orchestration' }),
    );
    // The classifier's own call is an LLM span under the first decision; the cached one made none.
    const llmSpans = recording.spans.filter((span) => span.name === 'llm.generate-object');
    expect(llmSpans).toHaveLength(1);
    expect(llmSpans[0]?.parentId).toBe(first?.id);
  });

  it('says when the heuristic decided', async () => {
    const offline = createRouteClassifier({
      client: undefined,
      model: 'router-model',
      tracer: recording.tracer,
    });
    await offline.classify({
      tenant: 'acme',
      messages: [{ role: 'user', content: 'Check my inbox' }],
    });
    const [span] = routeSpans();
    expect(span?.attributes).toEqual(
      expect.objectContaining({
        'fleet.route': 'orchestration',
        'fleet.route.source': 'heuristic',
        'fleet.route.reason': 'auto: heuristic (no upstream): needs email',
      }),
    );
    expect(span?.attributes).not.toHaveProperty('fleet.route.classifier_model');
  });
});
