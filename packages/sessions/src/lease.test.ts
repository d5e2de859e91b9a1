import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { sessionKeys } from './internal/session-keys';
import { createSessionStore, type SessionStore } from './session-store';

const REDIS_URL = 'redis://127.0.0.1:6379';
const root = `test:sessions:lease:${randomUUID()}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('SessionStore leases', () => {
  let redis: Redis;
  let other: Redis;
  let first: SessionStore;
  let second: SessionStore;
  const runnerKey = (id: string) => sessionKeys(root).lease('runner', id);

  beforeAll(() => {
    redis = new Redis(REDIS_URL);
    other = new Redis(REDIS_URL);
    const options = { keyPrefix: root };
    // Two replicas on two connections.
    first = createSessionStore({ redis, ...options });
    second = createSessionStore({ redis: other, ...options });
  });
  afterAll(async () => {
    await Promise.all([first.close(), second.close()]);
    const keys = await redis.keys(`${root}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await Promise.all([redis.quit(), other.quit()]);
  });

  describe('acquireRunner', () => {
    it('gives the lease to one owner at a time, with the default TTL', async () => {
      const lease = await first.acquireRunner('s1', 'replica-a');
      expect(lease?.owner).toBe('replica-a');
      expect(await redis.get(runnerKey('s1'))).toBe('replica-a');
      const ttl = await redis.pttl(runnerKey('s1'));
      expect(ttl).toBeGreaterThan(10_000);
      expect(ttl).toBeLessThanOrEqual(15_000);

      expect(await second.acquireRunner('s1', 'replica-b')).toBeUndefined();
      // Even the same owner cannot take it twice: one holder, one lease.
      expect(await first.acquireRunner('s1', 'replica-a')).toBeUndefined();
      await lease?.release();
    });

    it('renews for its owner and lets another owner in after release', async () => {
      const lease = await first.acquireRunner('s2', 'replica-a', 5000);
      expect(lease).toBeDefined();
      await redis.pexpire(runnerKey('s2'), 1000);
      expect(await lease!.renew()).toBe(true);
      expect(await redis.pttl(runnerKey('s2'))).toBeGreaterThan(1000);

      await lease!.release();
      expect(await redis.exists(runnerKey('s2'))).toBe(0);
      const next = await second.acquireRunner('s2', 'replica-b');
      expect(next?.owner).toBe('replica-b');
      await next?.release();
    });

    it('never renews or releases a lease that another owner now holds', async () => {
      const stale = await first.acquireRunner('s3', 'replica-a', 5000);
      // replica-a stalls; its lease runs out and replica-b takes over.
      await redis.del(runnerKey('s3'));
      const current = await second.acquireRunner('s3', 'replica-b', 5000);
      expect(current).toBeDefined();

      expect(await stale!.renew()).toBe(false);
      await stale!.release();
      expect(await redis.get(runnerKey('s3'))).toBe('replica-b');
      expect(await current!.renew()).toBe(true);
      await current!.release();
    });

    it('answers false from renew once the lease has gone', async () => {
      const lease = await first.acquireRunner('s4', 'replica-a');
      await redis.del(runnerKey('s4'));
      expect(await lease!.renew()).toBe(false);
      expect(await redis.exists(runnerKey('s4'))).toBe(0);
    });

    it('dies with its holder: after the TTL another owner acquires it', async () => {
      const lease = await first.acquireRunner('s5', 'replica-a', 200);
      expect(lease).toBeDefined();
      expect(await second.acquireRunner('s5', 'replica-b', 200)).toBeUndefined();
      await sleep(400);
      const next = await second.acquireRunner('s5', 'replica-b', 5000);
      expect(next?.owner).toBe('replica-b');
      expect(await lease!.renew()).toBe(false);
      await next?.release();
    });

    it('rejects a TTL that is not a positive integer', async () => {
      await expect(first.acquireRunner('s6', 'replica-a', 0)).rejects.toThrow(RangeError);
      await expect(first.acquireRunner('s6', 'replica-a', 1.5)).rejects.toThrow(RangeError);
    });
  });

  describe('acquireAttach', () => {
    it('is a lease of its own, independent of the runner lease', async () => {
      const runner = await first.acquireRunner('s7', 'replica-a');
      const attach = await first.acquireAttach('s7', 'stream-1');
      expect(attach?.owner).toBe('stream-1');
      expect(await second.acquireAttach('s7', 'stream-2')).toBeUndefined();
      await attach?.release();
      const next = await second.acquireAttach('s7', 'stream-2');
      expect(next?.owner).toBe('stream-2');
      await Promise.all([runner?.release(), next?.release()]);
    });
  });
});
