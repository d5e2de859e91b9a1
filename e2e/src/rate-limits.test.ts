/**
 * Tenant limits as SDK users meet them: a gateway process with a tiny request limit (2 per 2 s),
 * and the official `openai` SDK and the Vercel AI SDK backing off on its 429 by themselves
 * (`retry-after-ms` / `retry-after`) until the window starts over (docs/limits.md).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText } from 'ai';
import OpenAI from 'openai';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { E2E_KEY, startGateway, type RunningGateway } from './support/start-gateway';

const MESSAGES = [{ role: 'user' as const, content: 'Hello' }];

/** A fetch that records each answer's status: what the SDK met before its result. */
function recordingFetch(statuses: number[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    statuses.push(response.status);
    return response;
  };
}

describe('tenant limits with the SDKs', () => {
  let llm: ScriptedOpenAI;
  let gateway: RunningGateway;
  // Its own tenant: the count in Redis is shared with nothing else the suite runs.
  const tenant = `limits-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    llm = await startScriptedOpenAI({ models: ['gpt-test'] });
    gateway = await startGateway({
      OPENAI_BASE_URL: llm.baseURL,
      OPENAI_API_KEY: 'sk-upstream-e2e',
      GATEWAY_API_KEYS: `${E2E_KEY}:${tenant}`,
      GATEWAY_LIMITS: 'true',
      GATEWAY_LIMIT_RPM: '2',
      GATEWAY_LIMIT_WINDOW_SECONDS: '2',
    });
  }, 30_000);
  afterAll(async () => {
    await gateway?.stop();
    await llm?.close();
  });

  /** Spends the window's two requests, so the next one is refused. */
  async function spendWindow(client: OpenAI): Promise<void> {
    for (let sent = 0; sent < 3; sent += 1) {
      const answer = await client.chat.completions
        .create({ model: 'gpt-test', messages: MESSAGES })
        .withResponse()
        .catch((error: unknown) => error);
      if (answer instanceof OpenAI.RateLimitError) return;
    }
  }

  it('tells the openai SDK its limits on every answer, and the 429 how long to wait', async () => {
    const client = new OpenAI({ apiKey: E2E_KEY, baseURL: gateway.baseURL, maxRetries: 0 });
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const { response } = await client.chat.completions
      .create({ model: 'gpt-test', messages: MESSAGES })
      .withResponse();
    expect(response.headers.get('x-ratelimit-limit-requests')).toBe('2');
    expect(response.headers.get('x-ratelimit-remaining-requests')).toMatch(/^[01]$/);
    await spendWindow(client);
    const refused = await client.chat.completions
      .create({ model: 'gpt-test', messages: MESSAGES })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    const error = refused as InstanceType<typeof OpenAI.RateLimitError>;
    expect(error.status).toBe(429);
    expect(error.code).toBe('rate_limit_exceeded');
    expect(error.type).toBe('rate_limit_error');
    expect(Number(error.headers?.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(error.headers?.get('retry-after-ms'))).toBeLessThanOrEqual(2_000);
  });

  it('the openai SDK (maxRetries 2) backs off on the 429 and succeeds after Retry-After', async () => {
    const statuses: number[] = [];
    const client = new OpenAI({
      apiKey: E2E_KEY,
      baseURL: gateway.baseURL,
      maxRetries: 2,
      fetch: recordingFetch(statuses),
    });
    await spendWindow(new OpenAI({ apiKey: E2E_KEY, baseURL: gateway.baseURL, maxRetries: 0 }));
    const answer = await client.chat.completions.create({ model: 'gpt-test', messages: MESSAGES });
    expect(answer.choices[0]?.message.content).toBeTruthy();
    // Refused first, then the SDK waited and asked again by itself.
    expect(statuses[0]).toBe(429);
    expect(statuses.at(-1)).toBe(200);
  }, 20_000);

  it('the Vercel AI SDK (generateText, maxRetries 2) backs off on the 429 and succeeds', async () => {
    await spendWindow(new OpenAI({ apiKey: E2E_KEY, baseURL: gateway.baseURL, maxRetries: 0 }));
    const statuses: number[] = [];
    const provider = createOpenAI({
      baseURL: gateway.baseURL,
      apiKey: E2E_KEY,
      fetch: recordingFetch(statuses),
    });
    const { text } = await generateText({
      model: provider.chat('gpt-test'),
      prompt: 'Hello',
      maxRetries: 2,
    });
    expect(text).toBeTruthy();
    expect(statuses[0]).toBe(429);
    expect(statuses.at(-1)).toBe(200);
  }, 20_000);
});
