import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { TEST_REDIS_URL } from '../test-support/build-gateway';
import type { LegacyExchanges } from './legacy-exchanges';
import { createRedisLegacyExchanges, legacyExchangeKeys } from './redis-legacy-exchanges';
import { until } from '../test-support/until';

/** An elicitation answer as a 2025-era client POSTs it. */
function answer(id: string, decision = 'approve'): Record<string, unknown> {
  return { jsonrpc: '2.0', id, result: { action: 'accept', content: { decision } } };
}

function cancelled(requestId: string | number): Record<string, unknown> {
  return { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } };
}

/** Settles within `ms`, or says it did not. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'pending'>((resolve) => {
    timer = setTimeout(() => resolve('pending'), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe('createRedisLegacyExchanges: two replicas sharing one Redis', () => {
  let redis: Redis;
  let other: Redis;
  let a: LegacyExchanges;
  let b: LegacyExchanges;
  const opened: LegacyExchanges[] = [];

  const replica = (
    connection: Redis,
    options: Omit<Parameters<typeof createRedisLegacyExchanges>[0], 'redis'> = {},
  ): LegacyExchanges => {
    const exchanges = createRedisLegacyExchanges({ redis: connection, ...options });
    opened.push(exchanges);
    return exchanges;
  };

  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
    other = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  });

  beforeEach(() => {
    // Replica A and replica B: each its own connection, as two gateway processes.
    a = replica(redis);
    b = replica(other);
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((exchanges) => exchanges.close()));
  });

  afterAll(() => {
    redis.disconnect();
    other.disconnect();
  });

  it('a connection initialized on one replica is known, with its elicitation, on the other', async () => {
    const eliciting = await a.initialized('acme', { elicitation: {} });
    const plain = await a.initialized('acme', {});
    const urlOnly = await a.initialized('acme', { elicitation: { url: {} } });
    expect(eliciting).toMatch(/^fleet-/);
    expect(await b.client('acme', eliciting)).toMatchObject({ tenant: 'acme', elicitation: true });
    expect(await b.client('acme', plain)).toMatchObject({ tenant: 'acme', elicitation: false });
    expect(await b.client('acme', urlOnly)).toMatchObject({ elicitation: false });
    expect(await b.client('acme', 'fleet-never-handed-out')).toBeUndefined();
    expect(await b.client('acme', undefined)).toBeUndefined();
    // One key per connection, in its own slot, with the connection's TTL.
    const ttl = await redis.pttl(legacyExchangeKeys.client(eliciting));
    expect(ttl).toBeGreaterThan(23 * 60 * 60 * 1000);
  });

  it("another tenant does not get a connection's capabilities", async () => {
    const id = await a.initialized('acme', { elicitation: {} });
    expect(await b.client('globex', id)).toBeUndefined();
    expect(await a.client('globex', id)).toBeUndefined();
    expect(await b.client('acme', id)).toMatchObject({ elicitation: true });
  });

  it('forgets a connection once its TTL ends, on every replica', async () => {
    const shortA = replica(redis, { clientTtlMs: 150 });
    const shortB = replica(other, { clientTtlMs: 150 });
    const id = await shortA.initialized('acme', { elicitation: {} });
    expect(await shortB.client('acme', id)).toMatchObject({ elicitation: true });
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await redis.exists(legacyExchangeKeys.client(id))).toBe(0);
    // Cached on both, and forgotten on both.
    expect(await shortA.client('acme', id)).toBeUndefined();
    expect(await shortB.client('acme', id)).toBeUndefined();
  });

  it('an answer POSTed to the other replica reaches the call waiting on this one, once', async () => {
    const id = `fleet-elicit-${Math.random().toString(36).slice(2)}`;
    const pending = await a.awaitResponse('acme', id, new AbortController().signal);
    expect(await b.route('acme', 'fleet-conn', answer(id))).toBe(true);
    await expect(pending.answer).resolves.toEqual(answer(id));
    // The same answer again (a client retrying its POST) finds no wait: it goes to the SDK.
    expect(await b.route('acme', 'fleet-conn', answer(id, 'deny'))).toBe(false);
    expect(await a.route('acme', 'fleet-conn', answer(id, 'deny'))).toBe(false);
    expect(await redis.exists(legacyExchangeKeys.response('acme', id))).toBe(0);
  });

  it('an answer POSTed to the replica holding the call is delivered there too', async () => {
    const id = 'fleet-elicit-local';
    const pending = await a.awaitResponse('acme', id, new AbortController().signal);
    expect(await a.route('acme', undefined, answer(id))).toBe(true);
    await expect(pending.answer).resolves.toEqual(answer(id));
  });

  it("another tenant's POST neither answers nor consumes the wait", async () => {
    const id = 'fleet-elicit-tenants';
    const pending = await a.awaitResponse('acme', id, new AbortController().signal);
    expect(await b.route('globex', 'fleet-conn', answer(id, 'approve'))).toBe(false);
    expect(await within(pending.answer, 200)).toBe('pending');
    expect(await b.route('acme', 'fleet-conn', answer(id, 'deny'))).toBe(true);
    await expect(pending.answer).resolves.toEqual(answer(id, 'deny'));
  });

  it('a message nobody waits for is not routed', async () => {
    expect(await b.route('acme', 'fleet-conn', answer('fleet-elicit-nobody'))).toBe(false);
    expect(await b.route('acme', 'fleet-conn', cancelled(7))).toBe(false);
    expect(await b.route('acme', 'fleet-conn', { jsonrpc: '2.0', id: 1, method: 'ping' })).toBe(
      false,
    );
    expect(await b.route('acme', 'fleet-conn', 'not json-rpc')).toBe(false);
  });

  it('a cancel POSTed to the other replica cancels the call on this one, not another tenant’s', async () => {
    const cancels: string[] = [];
    const stop = await a.onCancel(
      { tenant: 'acme', connectionId: 'fleet-conn-1', requestId: 3 },
      () => cancels.push('acme call 3'),
    );
    // Another tenant, another connection, another request: none of them is this call.
    expect(await b.route('globex', 'fleet-conn-1', cancelled(3))).toBe(false);
    expect(await b.route('acme', 'fleet-conn-2', cancelled(3))).toBe(false);
    expect(await b.route('acme', 'fleet-conn-1', cancelled(4))).toBe(false);
    expect(await b.route('acme', undefined, cancelled(3))).toBe(false);
    expect(await b.route('acme', 'fleet-conn-1', cancelled(3))).toBe(true);
    await until(() => cancels.length === 1, 'the cancel');
    expect(cancels).toEqual(['acme call 3']);
    stop();
    await until(
      async () => (await redis.exists(legacyExchangeKeys.cancel('fleet-conn-1', 'acme', 3))) === 0,
      'the cancel key to go',
    );
    expect(await b.route('acme', 'fleet-conn-1', cancelled(3))).toBe(false);
  });

  it('an aborted wait rejects, leaves no key, and its answer is no longer routed', async () => {
    const id = 'fleet-elicit-aborted';
    const abort = new AbortController();
    const pending = await a.awaitResponse('acme', id, abort.signal);
    expect(await redis.exists(legacyExchangeKeys.response('acme', id))).toBe(1);
    abort.abort(new Error('The call was cancelled.'));
    await expect(pending.answer).rejects.toThrow('The call was cancelled.');
    await until(
      async () => (await redis.exists(legacyExchangeKeys.response('acme', id))) === 0,
      'the wait key to go',
    );
    expect(await b.route('acme', 'fleet-conn', answer(id))).toBe(false);
    // A signal aborted before the wait: nothing registered at all.
    const early = await a.awaitResponse('acme', 'fleet-elicit-early', abort.signal);
    await expect(early.answer).rejects.toThrow('The call was cancelled.');
    expect(await redis.exists(legacyExchangeKeys.response('acme', 'fleet-elicit-early'))).toBe(0);
  });

  it('renews the key of a wait while it waits, and a dead replica’s wait ends with its TTL', async () => {
    const renewing = replica(redis, { holdTtlMs: 300 });
    const id = 'fleet-elicit-renewed';
    const pending = await renewing.awaitResponse('acme', id, new AbortController().signal);
    // Three TTLs later the key is still there: renewed.
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect(await redis.exists(legacyExchangeKeys.response('acme', id))).toBe(1);
    // The replica stops (as a dead one would): its key is gone within a TTL.
    await renewing.close();
    await until(
      async () => (await redis.exists(legacyExchangeKeys.response('acme', id))) === 0,
      'the key to expire',
    );
    expect(await b.route('acme', 'fleet-conn', answer(id))).toBe(false);
    expect(await within(pending.answer, 50)).toBe('pending');
  });

  it('refuses a wait beyond its bound', async () => {
    const bounded = replica(redis, { maxWaits: 1 });
    const abort = new AbortController();
    await bounded.awaitResponse('acme', 'fleet-elicit-one', abort.signal);
    await expect(bounded.awaitResponse('acme', 'fleet-elicit-two', abort.signal)).rejects.toThrow(
      /Too many MCP calls/,
    );
    abort.abort();
  });
});
