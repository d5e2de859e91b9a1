import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createLlmClient } from '@fleet/llm';
import { getFreePort, startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { createRouteClassifier, type RouteClassifierOptions } from './classify-route';

const user = (content: string) => [{ role: 'user', content }];

function requestBody(llm: ScriptedOpenAI, index: number): Record<string, unknown> {
  return llm.requests[index]?.body as Record<string, unknown>;
}

describe('createRouteClassifier', () => {
  let llm: ScriptedOpenAI;
  beforeAll(async () => {
    llm = await startScriptedOpenAI();
  });
  afterAll(() => llm.close());
  beforeEach(() => {
    llm.requests.length = 0;
  });

  const classifier = (options: Partial<RouteClassifierOptions> = {}) =>
    createRouteClassifier({
      client: createLlmClient({
        upstream: { offline: false, baseURL: llm.baseURL, apiKey: 'sk-upstream' },
        maxRetries: 0,
      }),
      model: 'router-model',
      ...options,
    });

  it('lets the model choose orchestration, with strict structured output at temperature 0', async () => {
    llm.enqueue({ json: { route: 'orchestration', reason: "needs the user's documents" } });
    const decision = await classifier().classify({
      tenant: 'acme',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'We are planning the Lisbon offsite.' },
        { role: 'assistant', content: 'Great, how can I help?' },
        { role: 'user', content: 'What does the policy say about hotels?' },
      ],
    });
    expect(decision).toEqual({
      route: 'orchestration',
      reason: "auto: classifier (model router-model): needs the user's documents",
      source: 'classifier',
      cached: false,
      // The call this request paid for: the run's step `classifier`.
      usage: {
        promptTokens: expect.any(Number),
        completionTokens: expect.any(Number),
        totalTokens: expect.any(Number),
        calls: 1,
        unknownCalls: 0,
      },
    });
    const body = requestBody(llm, 0);
    expect(body).toEqual(
      expect.objectContaining({
        model: 'router-model',
        temperature: 0,
        response_format: expect.objectContaining({
          type: 'json_schema',
          json_schema: expect.objectContaining({ name: 'route_decision', strict: true }),
        }),
      }),
    );
    // The model reads the request and the turns before it, not the system prompt of the client.
    const prompt = JSON.stringify(body['messages']);
    expect(prompt).toContain('What does the policy say about hotels?');
    expect(prompt).toContain('Lisbon offsite');
    expect(prompt).not.toContain('Be brief.');
  });

  it('lets the model choose passthrough', async () => {
    llm.enqueue({ json: { route: 'passthrough', reason: 'general question' } });
    const decision = await classifier().classify({ tenant: 'acme', messages: user('Hi there') });
    expect(decision.route).toBe('passthrough');
    expect(decision.reason).toBe('auto: classifier (model router-model): general question');
  });

  it('keeps the reason header-safe (one printable line, bounded)', async () => {
    llm.enqueue({
      json: { route: 'passthrough', reason: `chat\r\nX-Evil: 1 é ${'x'.repeat(400)}` },
    });
    const { reason } = await classifier().classify({ tenant: 'acme', messages: user('Hey') });
    expect(reason).toMatch(/^auto: classifier \(model router-model\): chat X-Evil: 1 x+$/);
    expect(reason.length).toBeLessThan(220);
  });

  describe('falls back to the heuristic', () => {
    it('on an HTTP error', async () => {
      llm.enqueue({ error: { status: 500, message: 'boom' } });
      const decision = await classifier().classify({
        tenant: 'acme',
        messages: user('Check my inbox for mail from Bob'),
      });
      expect(decision).toEqual({
        route: 'orchestration',
        reason: 'auto: heuristic (classifier failed: upstream HTTP 500): needs email',
        source: 'heuristic',
        cached: false,
      });
    });

    it('on a time-out', async () => {
      llm.enqueue({ json: { route: 'orchestration', reason: 'late' }, latencyMs: 2_000 });
      const decision = await classifier({ timeoutMs: 100 }).classify({
        tenant: 'acme',
        messages: user('Write a limerick'),
      });
      expect(decision).toEqual({
        route: 'passthrough',
        reason:
          'auto: heuristic (classifier timed out after 100 ms): general request the model answers directly',
        source: 'heuristic',
        cached: false,
        // The upstream may have done the work: a call of unknown usage, not zero.
        usage: {
          promptTokens: 0,
          completionTokens: 0,
          totalTokens: 0,
          calls: 0,
          unknownCalls: 1,
        },
      });
    });

    it('on an answer that is not JSON', async () => {
      llm.enqueue({ content: 'I think orchestration, probably.' });
      const decision = await classifier().classify({
        tenant: 'acme',
        messages: user('Search the web for Lisbon weather'),
      });
      expect(decision.source).toBe('heuristic');
      expect(decision.reason).toBe('auto: heuristic (classifier answer invalid): needs the web');
      // The model answered (and was paid) even though its answer was no use.
      expect(decision.usage).toMatchObject({ calls: 1, unknownCalls: 0 });
    });

    it('on JSON outside the schema (auto never picks reasoning)', async () => {
      llm.enqueue({ json: { route: 'reasoning', reason: 'hard maths' } });
      const decision = await classifier().classify({
        tenant: 'acme',
        messages: user('Prove that there are infinitely many primes'),
      });
      expect(decision.route).toBe('passthrough');
      expect(decision.reason).toMatch(/^auto: heuristic \(classifier answer invalid\): /);
    });

    it('when the upstream cannot be reached', async () => {
      const port = await getFreePort();
      const unreachable = createRouteClassifier({
        client: createLlmClient({
          upstream: { offline: false, baseURL: `http://127.0.0.1:${port}/v1`, apiKey: undefined },
          maxRetries: 0,
        }),
        model: 'router-model',
      });
      const decision = await unreachable.classify({ tenant: 'acme', messages: user('Hello') });
      expect(decision.route).toBe('passthrough');
      expect(decision.reason).toMatch(
        /^auto: heuristic \(classifier failed: upstream unreachable\)/,
      );
    });

    it('offline, sending what it cannot place to orchestration', async () => {
      const offline = createRouteClassifier({ client: undefined, model: 'router-model' });
      await expect(
        offline.classify({ tenant: 'acme', messages: user('Write a haiku') }),
      ).resolves.toEqual({
        route: 'orchestration',
        reason:
          'auto: heuristic (no upstream): no upstream LLM for passthrough; orchestration works offline',
        source: 'heuristic',
        cached: false,
      });
      expect(llm.requests).toHaveLength(0);
    });
  });

  describe('after an upstream failure', () => {
    it('lets the heuristic decide alone for a while, then asks the model again', async () => {
      let clock = 0;
      llm.enqueue({ error: { status: 500 } }, { json: { route: 'passthrough', reason: 'chat' } });
      const router = classifier({ failureCooldownMs: 15_000, now: () => clock });
      await router.classify({ tenant: 'acme', messages: user('Hello') });
      clock = 14_999;
      const paused = await router.classify({ tenant: 'globex', messages: user('Check my inbox') });
      expect(paused).toEqual({
        route: 'orchestration',
        reason:
          'auto: heuristic (classifier paused after a failure: classifier failed: upstream HTTP 500): needs email',
        source: 'heuristic',
        cached: false,
      });
      expect(llm.requests).toHaveLength(1);
      clock = 15_000;
      const resumed = await router.classify({ tenant: 'acme', messages: user('Hello') });
      expect(resumed.source).toBe('classifier');
      expect(llm.requests).toHaveLength(2);
    });

    it('does not pause for an answer that does not parse', async () => {
      llm.enqueue({ content: 'not json' }, { json: { route: 'passthrough', reason: 'chat' } });
      const router = classifier();
      await router.classify({ tenant: 'acme', messages: user('Hello') });
      const next = await router.classify({ tenant: 'acme', messages: user('Hello') });
      expect(next.source).toBe('classifier');
      expect(llm.requests).toHaveLength(2);
    });
  });

  describe('cache', () => {
    it('answers a repeated request (normalised) without asking the model again', async () => {
      llm.enqueue({ json: { route: 'orchestration', reason: 'needs documents' } });
      const router = classifier();
      const first = await router.classify({
        tenant: 'acme',
        messages: user('Summarise our travel policy'),
      });
      const second = await router.classify({
        tenant: 'acme',
        messages: user('  summarise OUR\ntravel   policy '),
      });
      expect(llm.requests).toHaveLength(1);
      expect(first.cached).toBe(false);
      expect(first.usage?.calls).toBe(1);
      expect(second).toEqual({
        route: 'orchestration',
        reason: 'auto: classifier (model router-model, cached): needs documents',
        source: 'classifier',
        cached: true,
      });
    });

    it('shares one call between identical requests in flight', async () => {
      llm.enqueue({ json: { route: 'passthrough', reason: 'chat' }, latencyMs: 100 });
      const router = classifier();
      const decisions = await Promise.all([
        router.classify({ tenant: 'acme', messages: user('Good morning') }),
        router.classify({ tenant: 'acme', messages: user('Good morning') }),
      ]);
      expect(llm.requests).toHaveLength(1);
      expect(decisions.map((decision) => decision.cached).sort()).toEqual([false, true]);
      expect(decisions.every((decision) => decision.route === 'passthrough')).toBe(true);
    });

    it("never serves one tenant another tenant's decision", async () => {
      llm.enqueue(
        { json: { route: 'orchestration', reason: 'for acme' } },
        { json: { route: 'passthrough', reason: 'for globex' } },
      );
      const router = classifier();
      const acme = await router.classify({
        tenant: 'acme',
        messages: user('Tell me about Lisbon'),
      });
      const globex = await router.classify({
        tenant: 'globex',
        messages: user('Tell me about Lisbon'),
      });
      expect(llm.requests).toHaveLength(2);
      expect(acme.reason).toMatch(/for acme$/);
      expect(globex).toEqual(expect.objectContaining({ route: 'passthrough', cached: false }));
      expect(globex.reason).toMatch(/for globex$/);
      const again = await router.classify({
        tenant: 'globex',
        messages: user('Tell me about Lisbon'),
      });
      expect(again.reason).toMatch(/cached\): for globex$/);
    });

    it('keys on the earlier turns too ("yes, do it" means different things)', async () => {
      llm.enqueue(
        { json: { route: 'orchestration', reason: 'sends mail' } },
        { json: { route: 'passthrough', reason: 'chat' } },
      );
      const router = classifier();
      const turns = (assistant: string) => [
        { role: 'assistant', content: assistant },
        { role: 'user', content: 'yes, do it' },
      ];
      await router.classify({ tenant: 'acme', messages: turns('Shall I email Bob the summary?') });
      const other = await router.classify({
        tenant: 'acme',
        messages: turns('Shall I tell a joke?'),
      });
      expect(llm.requests).toHaveLength(2);
      expect(other.route).toBe('passthrough');
    });

    it('does not cache a failure: the next request asks the model again', async () => {
      llm.enqueue({ error: { status: 503 } }, { json: { route: 'passthrough', reason: 'chat' } });
      const router = classifier({ failureCooldownMs: 0 });
      const failed = await router.classify({ tenant: 'acme', messages: user('Hello again') });
      const retried = await router.classify({ tenant: 'acme', messages: user('Hello again') });
      expect(failed.source).toBe('heuristic');
      expect(retried).toEqual(expect.objectContaining({ source: 'classifier', cached: false }));
      expect(llm.requests).toHaveLength(2);
    });
    it('forgets decisions after their time to live', async () => {
      let clock = 0;
      llm.enqueue(
        { json: { route: 'passthrough', reason: 'chat' } },
        { json: { route: 'passthrough', reason: 'chat' } },
      );
      const router = classifier({ cacheTtlSeconds: 60, now: () => clock });
      await router.classify({ tenant: 'acme', messages: user('Hi') });
      clock = 59_000;
      expect((await router.classify({ tenant: 'acme', messages: user('Hi') })).cached).toBe(true);
      clock = 60_000;
      expect((await router.classify({ tenant: 'acme', messages: user('Hi') })).cached).toBe(false);
      expect(llm.requests).toHaveLength(2);
    });

    it('asks every time when its size is 0', async () => {
      llm.enqueue(
        { json: { route: 'passthrough', reason: 'chat' } },
        { json: { route: 'passthrough', reason: 'chat' } },
      );
      const router = classifier({ cacheSize: 0 });
      await router.classify({ tenant: 'acme', messages: user('Hi') });
      await router.classify({ tenant: 'acme', messages: user('Hi') });
      expect(llm.requests).toHaveLength(2);
    });
  });
});
