import { randomUUID } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { silentLogger } from '@fleet/http';
import { TEST_REDIS_URL } from '../test-support/build-gateway';
import { createTenantLimiter, type LimitedRoute, type TenantLimiter } from './tenant-limiter';
import type { TenantLimits } from './tenant-limits-spec';

const UNLIMITED: TenantLimits = { rpm: null, runs: null, waiting: null, tokens_per_day: null };
const NO_SESSIONS = { countAwaitingApprovalForTenant: () => Promise.resolve(0) };

const prefixes: string[] = [];
const clients: Redis[] = [];

afterEach(() => {
  for (const client of clients.splice(0)) client.disconnect();
});

afterAll(async () => {
  const redis = new Redis(TEST_REDIS_URL);
  for (const prefix of prefixes) {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
  }
  await redis.quit();
});

/** A connected Redis client that records the name of every command sent after it was ready. */
async function countingRedis(): Promise<{ redis: Redis; sent: string[] }> {
  const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  clients.push(redis);
  await redis.ping();
  const sent: string[] = [];
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = (...args: Parameters<Redis['sendCommand']>) => {
    sent.push(args[0].name);
    return send(...args);
  };
  return { redis, sent };
}

/** A limiter on its own key prefix (or a shared one: replicas). */
function limiter(
  redis: Redis,
  {
    limits,
    keyPrefix,
    windowSeconds = 60,
    syncIntervalMs = 60_000,
  }: {
    limits: Partial<TenantLimits>;
    keyPrefix: string;
    windowSeconds?: number;
    syncIntervalMs?: number;
  },
): TenantLimiter {
  return createTenantLimiter({
    redis,
    sessions: NO_SESSIONS,
    defaults: { ...UNLIMITED, ...limits },
    keyPrefix,
    windowSeconds,
    // Long by default: tests sync by hand.
    syncIntervalMs,
    logger: silentLogger,
  });
}

function newPrefix(): string {
  const prefix = `test:gateway:limiter:${randomUUID()}`;
  prefixes.push(prefix);
  return prefix;
}

function response(): ServerResponse {
  return new ServerResponse(new IncomingMessage(new Socket()));
}

/** Admits one request; its answer's headers, and whether it was refused. */
async function admit(
  limits: TenantLimiter,
  { tenant = 'acme', route = 'chat' }: { tenant?: string; route?: LimitedRoute } = {},
): Promise<{ refused: boolean; headers: Record<string, unknown> }> {
  const res = response();
  const refused = await limits.admit({ tenant, route, res }).then(
    () => false,
    () => true,
  );
  return { refused, headers: res.getHeaders() };
}

describe('createTenantLimiter: requests', () => {
  it('admits requests far from the limit from memory, without a Redis command each', async () => {
    const { redis, sent } = await countingRedis();
    const limits = limiter(redis, { limits: { rpm: 1000 }, keyPrefix: newPrefix() });
    for (let request = 1; request <= 50; request += 1) {
      const { refused, headers } = await admit(limits);
      expect(refused).toBe(false);
      // One replica: remaining is exact.
      expect(headers['x-ratelimit-remaining-requests']).toBe(String(1000 - request));
    }
    expect(sent).toEqual([]);
  });

  it('sends the counts with the sync, so every replica sees them', async () => {
    const { redis, sent } = await countingRedis();
    const keyPrefix = newPrefix();
    const one = limiter(redis, { limits: { rpm: 1000 }, keyPrefix });
    for (let request = 0; request < 40; request += 1) await admit(one);
    await admit(one, { route: 'embeddings' });
    await one.sync();
    // One command per bucket, sent together.
    expect(sent).toEqual(['eval', 'eval']);
    expect(await redis.get(`${keyPrefix}:{tenant:acme}:requests:chat`)).toBe('40');
    expect(await redis.get(`${keyPrefix}:{tenant:acme}:requests:embeddings`)).toBe('1');
    expect(await redis.pttl(`${keyPrefix}:{tenant:acme}:requests:chat`)).toBeGreaterThan(50_000);

    const two = limiter(redis, { limits: { rpm: 1000 }, keyPrefix });
    await admit(two);
    await two.sync();
    expect((await admit(two)).headers['x-ratelimit-remaining-requests']).toBe(String(1000 - 42));
    // Nothing counted since: the sync sends nothing.
    sent.length = 0;
    await one.sync();
    expect(sent).toEqual([]);
  });

  it('asks Redis near the limit, and refuses from memory once it is spent', async () => {
    const { redis, sent } = await countingRedis();
    // Share per sync interval: ⌈3 × 1 s / 60 s⌉ = 1 request from memory between syncs.
    const limits = limiter(redis, {
      limits: { rpm: 3 },
      keyPrefix: newPrefix(),
      syncIntervalMs: 1000,
    });
    await limits.sync();
    expect((await admit(limits)).refused).toBe(false);
    expect(sent).toEqual([]);
    // The share is used: this one goes to Redis, with the one before.
    const second = await admit(limits);
    expect(second.refused).toBe(false);
    expect(second.headers['x-ratelimit-remaining-requests']).toBe('1');
    expect(sent).toEqual(['eval']);
    expect((await admit(limits)).refused).toBe(false);
    const refused = await admit(limits);
    expect(refused.refused).toBe(true);
    expect(refused.headers['x-ratelimit-remaining-requests']).toBe('0');
    expect(Number(refused.headers['retry-after-ms'])).toBeGreaterThan(50_000);
    expect(sent).toEqual(['eval', 'eval']);
    // Spent: refused from memory until the window ends.
    for (let request = 0; request < 5; request += 1)
      expect((await admit(limits)).refused).toBe(true);
    expect(sent).toEqual(['eval', 'eval']);
  });

  it('keeps two replicas within limit + (replicas − 1) × share per window', async () => {
    const { redis } = await countingRedis();
    const keyPrefix = newPrefix();
    // rpm 120 per 60 s, synced every 5 s: a share of ⌈120 × 5 / 60⌉ = 10 requests per replica.
    const options = { limits: { rpm: 120 }, keyPrefix, syncIntervalMs: 5_000 };
    const replicas = [limiter(redis, options), limiter(redis, options)];
    let admitted = 0;
    let refused = 0;
    for (let round = 0; round < 20; round += 1) {
      // Both replicas flooded at once, then their background syncs.
      const results = await Promise.all(
        replicas.flatMap((replica) => Array.from({ length: 20 }, () => admit(replica))),
      );
      admitted += results.filter((result) => !result.refused).length;
      refused += results.filter((result) => result.refused).length;
      await Promise.all(replicas.map((replica) => replica.sync()));
    }
    expect(admitted).toBeGreaterThanOrEqual(120);
    expect(admitted).toBeLessThanOrEqual(120 + (2 - 1) * 10);
    expect(admitted + refused).toBe(800);
    // Other tenants are counted on their own.
    expect((await admit(replicas[0]!, { tenant: 'globex' })).refused).toBe(false);
  });

  it('lets a request through without headers when Redis fails near the limit, and counts it later', async () => {
    const { redis } = await countingRedis();
    const keyPrefix = newPrefix();
    const limits = limiter(redis, { limits: { rpm: 2 }, keyPrefix, syncIntervalMs: 1000 });
    expect((await admit(limits)).refused).toBe(false);
    const evaluate = redis.eval.bind(redis);
    redis.eval = () => Promise.reject(new Error('connection lost'));
    const unchecked = await admit(limits);
    expect(unchecked.refused).toBe(false);
    expect(unchecked.headers['x-ratelimit-limit-requests']).toBeUndefined();
    redis.eval = evaluate;
    await limits.sync();
    // The first request reached Redis after all.
    expect(await redis.get(`${keyPrefix}:{tenant:acme}:requests:chat`)).toBe('1');
  });
});

describe('createTenantLimiter: tokens per day', () => {
  it('reads the day once, then checks the budget from memory and sends the tokens with the sync', async () => {
    const { redis, sent } = await countingRedis();
    const keyPrefix = newPrefix();
    const limits = limiter(redis, { limits: { tokens_per_day: 1000 }, keyPrefix });
    expect((await admit(limits)).headers['x-ratelimit-remaining-tokens']).toBe('1000');
    expect(sent).toEqual(['get']);
    limits.recordTokens('acme', 300);
    for (let request = 0; request < 10; request += 1) {
      expect((await admit(limits)).headers['x-ratelimit-remaining-tokens']).toBe('700');
    }
    expect(sent).toEqual(['get']);
    await limits.sync();
    const day = new Date().toISOString().slice(0, 10);
    expect(await redis.get(`${keyPrefix}:{tenant:acme}:tokens:${day}`)).toBe('300');
    expect(await redis.ttl(`${keyPrefix}:{tenant:acme}:tokens:${day}`)).toBeGreaterThan(86_400);
  });

  it("sees the other replicas' tokens after a sync, and refuses once the budget is spent", async () => {
    const { redis } = await countingRedis();
    const keyPrefix = newPrefix();
    const one = limiter(redis, { limits: { tokens_per_day: 1000 }, keyPrefix });
    const two = limiter(redis, { limits: { tokens_per_day: 1000 }, keyPrefix });
    await admit(one);
    await admit(two);
    one.recordTokens('acme', 600);
    two.recordTokens('acme', 300);
    await Promise.all([one.sync(), two.sync()]);
    await Promise.all([one.sync(), two.sync()]);
    expect((await admit(one)).headers['x-ratelimit-remaining-tokens']).toBe('100');
    expect((await admit(two)).headers['x-ratelimit-remaining-tokens']).toBe('100');
    two.recordTokens('acme', 150);
    const refused = await admit(two);
    expect(refused.refused).toBe(true);
    expect(refused.headers['x-ratelimit-remaining-tokens']).toBe('0');
    await two.sync();
    await one.sync();
    expect((await admit(one)).refused).toBe(true);
  });
});
