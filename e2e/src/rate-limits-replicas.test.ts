/**
 * Tenant limits across replicas (docs/limits.md): two gateway processes on one Redis, one tenant
 * flooding both with passthrough requests, another asking now and then. Each replica counts in
 * memory and syncs with Redis every GATEWAY_LIMIT_SYNC_MS; the flooding tenant gets at most
 * rpm + (replicas − 1) × ⌈rpm × sync / window⌉ answers in the window and 429s after, the other
 * tenant none.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { startGateway, type RunningGateway } from './support/start-gateway';

const FLOOD_KEY = 'sk-e2e-flood-0123456789';
const QUIET_KEY = 'sk-e2e-quiet-0123456789';
const RPM = 40;
const WINDOW_SECONDS = 60;
const SYNC_MS = 1000;
const REPLICAS = 2;
/** A replica's share of unconfirmed admissions: ⌈40 × 1 s / 60 s⌉ = 1. */
const SHARE = Math.ceil((RPM * SYNC_MS) / (WINDOW_SECONDS * 1000));

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

async function chat(gateway: RunningGateway, key: string): Promise<Answer> {
  const response = await fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'Hello' }] }),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

describe('tenant limits across two gateway replicas', () => {
  let llm: ScriptedOpenAI;
  const gateways: RunningGateway[] = [];
  // Tenants of their own: the counts in Redis are shared with nothing else the suite runs.
  const run = randomUUID().slice(0, 8);

  beforeAll(async () => {
    llm = await startScriptedOpenAI({ models: ['gpt-test'], recordRequests: false });
    const env = {
      OPENAI_BASE_URL: llm.baseURL,
      OPENAI_API_KEY: 'sk-upstream-e2e',
      GATEWAY_API_KEYS: `${FLOOD_KEY}:flood-${run},${QUIET_KEY}:quiet-${run}`,
      GATEWAY_LIMITS: 'true',
      GATEWAY_LIMIT_RPM: String(RPM),
      GATEWAY_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
      GATEWAY_LIMIT_SYNC_MS: String(SYNC_MS),
    };
    gateways.push(...(await Promise.all([startGateway(env), startGateway(env)])));
  }, 40_000);
  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.stop()));
    await llm?.close();
  });

  it('limits the flooding tenant within its bound and leaves the other alone', async () => {
    const flood: Answer[] = [];
    const quiet: Answer[] = [];
    // 8 clients per replica keep sending for the flooding tenant…
    const flooders = gateways.flatMap((gateway) =>
      Array.from({ length: 8 }, async () => {
        for (let sent = 0; sent < 20; sent += 1) flood.push(await chat(gateway, FLOOD_KEY));
      }),
    );
    // …while the other tenant asks on either replica now and then.
    const asker = (async () => {
      for (let sent = 0; sent < 12; sent += 1) {
        quiet.push(await chat(gateways[sent % REPLICAS]!, QUIET_KEY));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    await Promise.all([...flooders, asker]);

    const answered = flood.filter((answer) => answer.status === 200).length;
    const refused = flood.filter((answer) => answer.status === 429);
    expect(answered + refused.length).toBe(flood.length);
    expect(answered).toBeGreaterThanOrEqual(RPM);
    expect(answered).toBeLessThanOrEqual(RPM + (REPLICAS - 1) * SHARE);
    for (const answer of refused) {
      expect(answer.body).toMatchObject({
        error: { type: 'rate_limit_error', code: 'rate_limit_exceeded' },
      });
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(answer.headers.get('retry-after-ms'))).toBeLessThanOrEqual(
        WINDOW_SECONDS * 1000,
      );
      expect(answer.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    }

    expect(quiet.map((answer) => answer.status)).toEqual(quiet.map(() => 200));
    expect(quiet.every((answer) => answer.headers.get('x-ratelimit-limit-requests') === '40')).toBe(
      true,
    );
  }, 60_000);
});
