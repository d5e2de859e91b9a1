import { randomUUID } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { afterAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { silentLogger } from '@fleet/http';
import { redisKeySlot as keySlot } from '@fleet/a2a/server';
import { TEST_REDIS_URL } from '../test-support/build-gateway';
import { tenantKey } from './tenant-key';
import { createTenantLimiter } from './tenant-limiter';

const keyPrefix = `test:gateway:tenant-keys:${randomUUID()}`;
const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });

afterAll(async () => {
  const keys = await redis.keys(`${keyPrefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

describe('tenantKey', () => {
  it('tags every key of a tenant with the tenant, so they share a Redis Cluster slot', () => {
    expect(tenantKey('fleet:limits', 'acme', 'requests', 'chat')).toBe(
      'fleet:limits:{tenant:acme}:requests:chat',
    );
    const acme = ['requests:chat', 'tokens:2026-01-01', 'runs'].map((part) =>
      keySlot(tenantKey('fleet:limits', 'acme', part)),
    );
    expect(new Set(acme).size).toBe(1);
    // Even with a brace in the tenant's name, its keys keep one tag.
    const odd = ['requests', 'runs'].map((part) => keySlot(tenantKey('p', 'a}b{c', part)));
    expect(new Set(odd).size).toBe(1);
    expect(() => tenantKey('fleet:{limits}', 'acme', 'runs')).toThrow('keyPrefix');
  });

  it("sends the limiter's scripts each with one tenant's keys, in one slot", async () => {
    const connection = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
    try {
      await connection.ping();
      const sent: { name: string; keys: string[] }[] = [];
      const send = connection.sendCommand.bind(connection);
      connection.sendCommand = (...args: Parameters<Redis['sendCommand']>) => {
        sent.push({ name: args[0].name, keys: args[0].getKeys().map(String) });
        return send(...args);
      };
      const limiter = createTenantLimiter({
        redis: connection,
        sessions: { countAwaitingApprovalForTenant: () => Promise.resolve(0) },
        defaults: { rpm: 1, runs: 1, waiting: null, tokens_per_day: 1000 },
        keyPrefix,
        syncIntervalMs: 60_000,
        logger: silentLogger,
      });
      for (const tenant of ['acme', 'globex']) {
        const res = new ServerResponse(new IncomingMessage(new Socket()));
        await limiter.admit({ tenant, route: 'chat', res });
        await limiter.admit({ tenant, route: 'chat', res }).catch(() => undefined);
        limiter.recordTokens(tenant, 10);
        const slot = await limiter.acquireRun({ tenant, res });
        slot.release();
      }
      await limiter.sync();
      const withKeys = sent.filter(({ keys }) => keys.length > 0);
      expect(withKeys.length).toBeGreaterThanOrEqual(8);
      for (const { name, keys } of withKeys) {
        expect({ name, slots: new Set(keys.map(keySlot)).size }).toEqual({ name, slots: 1 });
        const tenants = new Set(keys.map((key) => /\{tenant:([^}]*)\}/.exec(key)?.[1]));
        expect(tenants.size).toBe(1);
        expect(tenants.has(undefined)).toBe(false);
      }
    } finally {
      connection.disconnect();
    }
  });
});
