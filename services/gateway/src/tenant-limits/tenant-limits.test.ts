import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import request from 'supertest';
import { dataPart, RESULT_ARTIFACT_NAME, textPart, type RunResult } from '@fleet/a2a';
import type { AgentEvent } from '@fleet/a2a/server';
import { silentLogger } from '@fleet/http';
import type { AppDependencies } from '../app';
import {
  buildGateway,
  createTestSessions,
  OTHER_KEY,
  TEST_KEY,
  TEST_REDIS_URL,
  type TestGateway,
} from '../test-support/build-gateway';
import {
  gate,
  startOrchestratorDouble,
  type OrchestratorDouble,
} from '../test-support/orchestrator-double';
import { seedSession } from '../test-support/seed-session';
import { serve, type Served } from '../test-support/serve';
import { createUpstreamClient } from '../upstream';
import type { TenantLimits, TenantLimitTable } from './tenant-limits-spec';

const GENEROUS: TenantLimits = { rpm: 1000, runs: 20, waiting: 50, tokens_per_day: null };
const CHAT = { model: 'gpt-test', messages: [{ role: 'user', content: 'Hello' }] };
const ORCHESTRATE = { model: 'fleet-orchestration', messages: [{ role: 'user', content: 'Go' }] };

let limitsRedis: Redis;
const prefixes: string[] = [];
const open: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  limitsRedis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  await limitsRedis.ping();
});

afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

afterAll(async () => {
  for (const prefix of prefixes) {
    const keys = await limitsRedis.keys(`${prefix}:*`);
    if (keys.length > 0) await limitsRedis.del(...keys);
  }
  await limitsRedis.quit();
});

/** A fresh key prefix, so tests never share a count. */
function newPrefix(): string {
  const prefix = `test:gateway:limits:${randomUUID()}`;
  prefixes.push(prefix);
  return prefix;
}

interface LimitedOptions {
  limits?: Partial<TenantLimits>;
  tenants?: TenantLimitTable;
  windowSeconds?: number;
  keyPrefix?: string;
  overrides?: Partial<AppDependencies>;
}

/** A gateway with tenant limits on the real Redis (its own key prefix unless one is given). */
async function limitedGateway({
  limits = {},
  tenants = {},
  windowSeconds = 60,
  keyPrefix = newPrefix(),
  overrides = {},
}: LimitedOptions = {}): Promise<TestGateway> {
  const sessions = createTestSessions();
  await sessions.redis.ping();
  const gateway = await buildGateway({
    sessions,
    overrides: {
      tenantLimits: {
        redis: limitsRedis,
        defaults: { ...GENEROUS, ...limits },
        tenants,
        windowSeconds,
        keyPrefix,
        runLeaseMs: 3_000,
        runRetryAfterSeconds: 2,
      },
      ...overrides,
    },
  });
  open.push(gateway);
  return gateway;
}

function chat(app: http.RequestListener, key = TEST_KEY, body: object = CHAT) {
  return request(app).post('/v1/chat/completions').set('authorization', `Bearer ${key}`).send(body);
}

describe('requests per window', () => {
  it('sends the x-ratelimit headers on every answer and a 429 in the OpenAI shape past the limit', async () => {
    const { app } = await limitedGateway({ limits: { rpm: 2 } });
    const first = await chat(app);
    expect(first.status).toBe(200);
    expect(first.headers['x-ratelimit-limit-requests']).toBe('2');
    expect(first.headers['x-ratelimit-remaining-requests']).toBe('1');
    expect(first.headers['x-ratelimit-reset-requests']).toMatch(/^(\d+m)?\d+s$/);
    const second = await chat(app);
    expect(second.status).toBe(200);
    expect(second.headers['x-ratelimit-remaining-requests']).toBe('0');

    const refused = await chat(app);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: {
        message: expect.stringContaining('2 requests per 60 s') as unknown,
        type: 'rate_limit_error',
        param: null,
        code: 'rate_limit_exceeded',
      },
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(Number(refused.headers['retry-after-ms'])).toBeGreaterThan(0);
    expect(refused.headers['x-ratelimit-limit-requests']).toBe('2');
    expect(refused.headers['x-ratelimit-remaining-requests']).toBe('0');
  });

  it('counts each tenant and each route on its own', async () => {
    const { app } = await limitedGateway({ limits: { rpm: 1 } });
    expect((await chat(app)).status).toBe(200);
    expect((await chat(app)).status).toBe(429);
    expect((await chat(app, OTHER_KEY)).status).toBe(200);
    const embeddings = await request(app)
      .post('/v1/embeddings')
      .set('authorization', `Bearer ${TEST_KEY}`)
      .send({ model: 'text-embedding-3-small', input: 'hello' });
    expect(embeddings.status).toBe(200);
    expect(embeddings.headers['x-ratelimit-limit-requests']).toBe('1');
  });

  it('starts over when the window ends, and the answer says when', async () => {
    const { app } = await limitedGateway({ limits: { rpm: 1 }, windowSeconds: 1 });
    expect((await chat(app)).status).toBe(200);
    const refused = await chat(app);
    expect(refused.status).toBe(429);
    await new Promise((resolve) => setTimeout(resolve, Number(refused.headers['retry-after-ms'])));
    expect((await chat(app)).status).toBe(200);
  });

  it("applies a tenant's overrides over the defaults", async () => {
    const { app } = await limitedGateway({ limits: { rpm: 100 }, tenants: { globex: { rpm: 1 } } });
    expect((await chat(app, OTHER_KEY)).status).toBe(200);
    const refused = await chat(app, OTHER_KEY);
    expect(refused.status).toBe(429);
    expect(refused.headers['x-ratelimit-limit-requests']).toBe('1');
    const acme = await chat(app);
    expect(acme.status).toBe(200);
    expect(acme.headers['x-ratelimit-limit-requests']).toBe('100');
  });

  it('shares one count between replicas on the same Redis', async () => {
    const keyPrefix = newPrefix();
    const one = await limitedGateway({ limits: { rpm: 3 }, keyPrefix });
    const two = await limitedGateway({ limits: { rpm: 3 }, keyPrefix });
    expect((await chat(one.app)).status).toBe(200);
    expect((await chat(two.app)).status).toBe(200);
    expect((await chat(one.app)).status).toBe(200);
    const refused = await chat(two.app);
    expect(refused.status).toBe(429);
  });

  it('limits the rest of /v1 as one bucket, never an approval or review decision', async () => {
    const gateway = await limitedGateway({ limits: { rpm: 1 } });
    const auth = { authorization: `Bearer ${TEST_KEY}` };
    expect((await request(gateway.app).get('/v1/sessions').set(auth)).status).toBe(200);
    const refused = await request(gateway.app).get('/v1/models').set(auth);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limit_exceeded');
    const session = await seedSession(gateway.sessions.store, { approvalExpiresInMs: 60_000 });
    const decided = await request(gateway.app)
      .post(`/v1/sessions/${session.id}/approvals/ap-1`)
      .set(auth)
      .send({ decision: 'approve' });
    expect(decided.status).toBe(200);
    const reviewed = await seedSession(gateway.sessions.store, { reviewExpiresInMs: 60_000 });
    const review = await request(gateway.app)
      .post(`/v1/sessions/${reviewed.id}/review`)
      .set(auth)
      .send({ decision: 'approve' });
    expect(review.status).toBe(200);
  });

  it("sends its own x-ratelimit headers on passthrough, not the upstream's", async () => {
    // An upstream that sends OpenAI's headers for the fleet's own upstream key.
    const upstream = await serve((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.setHeader('x-ratelimit-limit-requests', '10000');
      res.setHeader('x-ratelimit-limit-tokens', '2000000');
      res.end(JSON.stringify({ id: 'c', object: 'chat.completion', choices: [] }));
    });
    open.push(upstream);
    const upstreamClient = createUpstreamClient({
      upstream: { baseURL: `${upstream.url}/v1`, apiKey: 'sk-upstream' },
      timeoutMs: 5_000,
      logger: silentLogger,
    });
    open.push({ close: () => Promise.resolve(upstreamClient.close()) });
    const { app } = await limitedGateway({ limits: { rpm: 5 }, overrides: { upstreamClient } });
    const answer = await chat(app);
    expect(answer.status).toBe(200);
    expect(answer.headers['x-ratelimit-limit-requests']).toBe('5');
    // No token budget: the upstream's token headers pass through.
    expect(answer.headers['x-ratelimit-limit-tokens']).toBe('2000000');
  });

  it('counts refusals in gateway_rate_limited_total by tenant and limit', async () => {
    const { app } = await limitedGateway({ limits: { rpm: 1 }, overrides: { metrics: true } });
    await chat(app);
    await chat(app);
    const metrics = await request(app).get('/metrics');
    expect(metrics.text).toMatch(
      /gateway_rate_limited_total\{tenant="acme",limit="requests",service="gateway"\} 1/,
    );
  });
});

describe('with Redis down', () => {
  it('lets passthrough through, without limit headers', async () => {
    // Never connected: the limiter finds it not ready and does not wait for it.
    const down = new Redis('redis://127.0.0.1:1', { lazyConnect: true, maxRetriesPerRequest: 0 });
    const offline = await buildGateway({
      overrides: {
        tenantLimits: { redis: down, defaults: { ...GENEROUS, rpm: 1, tokens_per_day: 10 } },
      },
    });
    open.push(offline);
    for (let sent = 0; sent < 3; sent += 1) {
      const answer = await chat(offline.app);
      expect(answer.status).toBe(200);
      expect(answer.headers['x-ratelimit-limit-requests']).toBeUndefined();
    }
    down.disconnect();
  });
});

describe('tokens per day', () => {
  it("refuses new requests once the day's tokens are spent, counting the upstream's usage", async () => {
    const gateway = await limitedGateway({ limits: { tokens_per_day: 10 } });
    gateway.llm?.enqueue({ content: 'Hi', usage: { prompt_tokens: 6, completion_tokens: 5 } });
    const first = await chat(gateway.app);
    expect(first.status).toBe(200);
    expect(first.headers['x-ratelimit-limit-tokens']).toBe('10');
    expect(first.headers['x-ratelimit-remaining-tokens']).toBe('10');
    expect(first.headers['x-ratelimit-reset-tokens']).toMatch(/^(\d+h)?(\d+m)?\d+s$/);
    let refused = await chat(gateway.app);
    for (let attempt = 0; refused.status === 200 && attempt < 20; attempt += 1) {
      // The count is written after the answer; give it a moment.
      await new Promise((resolve) => setTimeout(resolve, 25));
      refused = await chat(gateway.app);
    }
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      type: 'rate_limit_error',
      code: 'tokens_per_day_exceeded',
    });
    expect(refused.headers['x-ratelimit-remaining-tokens']).toBe('0');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('reads the usage chunk of a stream with include_usage', async () => {
    const gateway = await limitedGateway({ limits: { tokens_per_day: 1000 } });
    gateway.llm?.enqueue({ content: 'Hi', usage: { prompt_tokens: 300, completion_tokens: 400 } });
    const streamed = await chat(gateway.app, TEST_KEY, {
      ...CHAT,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(streamed.status).toBe(200);
    // The probes' own answers report no usage, so only the stream's tokens count.
    gateway.llm?.enqueue(...Array.from({ length: 21 }, () => ({ usage: false as const })));
    let remaining = '1000';
    for (let attempt = 0; remaining === '1000' && attempt < 20; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      remaining = String((await chat(gateway.app)).headers['x-ratelimit-remaining-tokens']);
    }
    expect(remaining).toBe('300');
  });
});

describe('tokens per day on the other routes', () => {
  /** Polls the tenant's remaining tokens (with a probe whose answer reports no usage). */
  async function remainingAfter(gateway: TestGateway, before: string): Promise<string> {
    gateway.llm?.enqueue(...Array.from({ length: 21 }, () => ({ usage: false as const })));
    let remaining = before;
    for (let attempt = 0; remaining === before && attempt < 20; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      remaining = String((await chat(gateway.app)).headers['x-ratelimit-remaining-tokens']);
    }
    return remaining;
  }

  it("reads a streamed Responses answer's usage from response.completed", async () => {
    const gateway = await limitedGateway({ limits: { tokens_per_day: 1000 } });
    gateway.llm?.enqueue({ content: 'Hi', usage: { prompt_tokens: 100, completion_tokens: 50 } });
    const streamed = await request(gateway.app)
      .post('/v1/responses')
      .set('authorization', `Bearer ${TEST_KEY}`)
      .send({ model: 'gpt-test', input: 'Hello', stream: true });
    expect(streamed.status).toBe(200);
    expect(streamed.headers['x-ratelimit-limit-tokens']).toBe('1000');
    expect(await remainingAfter(gateway, '1000')).toBe('850');
  });

  it("counts an orchestrated run's usage", async () => {
    const usage = { promptTokens: 200, completionTokens: 100, totalTokens: 300 };
    const double = await startOrchestratorDouble(async function* execute() {
      await Promise.resolve();
      const result: RunResult = {
        sessionId: 'sess-usage',
        plan: { nodes: [], rationale: 'none', confidence: 1 },
        nodes: [],
        citations: [],
        failedNodes: [],
        composer: 'llm',
        usage: {
          ...usage,
          calls: 1,
          unknownCalls: 0,
          complete: true,
          steps: [{ step: 'composer', ...usage, calls: 1, unknownCalls: 0, reported: true }],
        },
      };
      yield {
        type: 'artifact',
        artifact: { name: RESULT_ARTIFACT_NAME, parts: [textPart('Done.'), dataPart(result)] },
      };
    });
    open.push(double);
    const gateway = await limitedGateway({
      limits: { tokens_per_day: 1000 },
      overrides: { orchestratorClient: double.client },
    });
    const answer = await chat(gateway.app, TEST_KEY, ORCHESTRATE);
    expect(answer.status).toBe(200);
    expect(answer.body.usage.total_tokens).toBe(300);
    expect(await remainingAfter(gateway, '1000')).toBe('700');
  });
});

/** An orchestrated run that answers only when its gate opens. */
function gatedRun(sessionId: string, opened: Promise<void>) {
  const result: RunResult = {
    sessionId,
    plan: { nodes: [], rationale: 'none', confidence: 1 },
    nodes: [],
    citations: [],
    failedNodes: [],
    composer: 'offline',
  };
  return async function* execute(): AsyncGenerator<AgentEvent> {
    yield {
      type: 'status',
      state: 'TASK_STATE_WORKING',
      metadata: { sessionId },
      message: [textPart('Run started.'), dataPart({ progress: { type: 'run-start', sessionId } })],
    };
    await opened;
    yield {
      type: 'artifact',
      artifact: { name: RESULT_ARTIFACT_NAME, parts: [textPart('Done.'), dataPart(result)] },
    };
  };
}

/** Starts a streamed orchestrated request and resolves once its headers arrived. */
function startStream(
  url: string,
): Promise<{ response: http.IncomingMessage; request: http.ClientRequest }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/v1/chat/completions`, {
      method: 'POST',
      agent: false,
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    });
    req.on('error', reject);
    req.on('response', (response) => resolve({ response, request: req }));
    req.end(JSON.stringify({ ...ORCHESTRATE, stream: true }));
  });
}

describe('orchestrated runs', () => {
  let double: OrchestratorDouble;
  let runGate = gate();

  beforeAll(async () => {
    double = await startOrchestratorDouble(() => gatedRun('sess-limits', runGate.promise)());
  });
  afterAll(async () => {
    runGate.open();
    await double.close();
  });

  async function served(
    limits: Partial<TenantLimits>,
  ): Promise<{ url: string; gateway: TestGateway }> {
    const gateway = await limitedGateway({
      limits,
      overrides: { orchestratorClient: double.client },
    });
    const server: Served = await serve(gateway.app);
    open.push(server);
    return { url: server.url, gateway };
  }

  it('refuses a run past the concurrent limit, and frees the slot when the client leaves', async () => {
    runGate = gate();
    const { url } = await served({ runs: 1 });
    const first = await startStream(url);
    expect(first.response.statusCode).toBe(200);

    const refused = await request(url)
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${TEST_KEY}`)
      .send(ORCHESTRATE);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      type: 'rate_limit_error',
      code: 'concurrency_limit_exceeded',
    });
    expect(refused.headers['retry-after']).toBe('2');

    // The client leaves: its slot is given back.
    first.request.destroy();
    let next = await startStream(url);
    for (let attempt = 0; next.response.statusCode === 429 && attempt < 20; attempt += 1) {
      next.request.destroy();
      await new Promise((resolve) => setTimeout(resolve, 25));
      next = await startStream(url);
    }
    expect(next.response.statusCode).toBe(200);
    runGate.open();
    await new Promise((resolve) => next.response.on('end', resolve).resume());
  });

  it('gives the slot back when the run ends', async () => {
    runGate = gate();
    const { url } = await served({ runs: 1 });
    runGate.open();
    for (let run = 0; run < 3; run += 1) {
      const answer = await request(url)
        .post('/v1/chat/completions')
        .set('authorization', `Bearer ${TEST_KEY}`)
        .send(ORCHESTRATE);
      expect(answer.status).toBe(200);
    }
  });

  it("refuses new runs while the tenant's waiting runs are at the limit, never the waiting run", async () => {
    runGate = gate();
    runGate.open();
    const { url, gateway } = await served({ waiting: 1 });
    const waiting = await seedSession(gateway.sessions.store, { approvalExpiresInMs: 60_000 });
    const auth = { authorization: `Bearer ${TEST_KEY}` };

    const refused = await request(url).post('/v1/chat/completions').set(auth).send(ORCHESTRATE);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('concurrency_limit_exceeded');
    expect(refused.body.error.message).toContain('waiting for a person');
    // Continuing a session is not a new run: never refused by the run limits.
    const finished = await seedSession(gateway.sessions.store, { completedWith: 'Done.' });
    const resumed = await request(url)
      .post('/v1/chat/completions')
      .set(auth)
      .set('x-session-id', finished.id)
      .send(ORCHESTRATE);
    expect(resumed.status).toBe(200);
    expect(resumed.body.choices[0].message.content).toContain('Done.');

    // Another tenant is not concerned; the waiting run's approval is decided as ever.
    const globex = await request(url)
      .post('/v1/chat/completions')
      .set('authorization', `Bearer ${OTHER_KEY}`)
      .send(ORCHESTRATE);
    expect(globex.status).toBe(200);
    const decided = await request(url)
      .post(`/v1/sessions/${waiting.id}/approvals/ap-1`)
      .set(auth)
      .send({ decision: 'approve' });
    expect(decided.status).toBe(200);
    // Decided, it no longer waits: new runs start again.
    const started = await request(url).post('/v1/chat/completions').set(auth).send(ORCHESTRATE);
    expect(started.status).toBe(200);
  });
});
