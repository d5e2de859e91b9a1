import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Cluster, Redis } from 'ioredis';
import { FleetError } from '@fleet/errors';
import { createFleetRedis, RedisTaskStore, type FleetRedis } from '@fleet/a2a/server';
import {
  startRedisCluster,
  startRedisSentinel,
  type TestRedisCluster,
  type TestRedisSentinel,
} from '@fleet/testing';

const KEY_PREFIX = 'fleet:a2a:claims';
const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/** The claim key a store writes for `taskId`'s `key`. */
const claimKey = (taskId: string, key: string) => `${KEY_PREFIX}:{${taskId}}:claim:${key}`;

/** Whether `promise` rejects with the fleet's 503, the claim not carried out. */
async function expectUnreplicated(promise: Promise<unknown>): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(FleetError.isInstance(error)).toBe(true);
  expect((error as FleetError).status).toBe(503);
  expect((error as Error).message).toContain('REDIS_CLAIM_REPLICAS');
}

/** `host:port` as ioredis takes it. */
function hostPort(address: string): { host: string; port: number } {
  const [host = '', port = ''] = address.split(':');
  return { host, port: Number(port) };
}

describe('a side effect claimed only once its replicas hold the claim (REDIS_CLAIM_REPLICAS)', () => {
  describe('one Redis without replicas', () => {
    let redis: Redis;
    beforeAll(() => {
      redis = new Redis(REDIS_URL);
    });
    afterAll(async () => {
      await redis.quit();
    });

    it('refuses a claim no replica acknowledged, and removes it', async () => {
      const store = new RedisTaskStore({
        redis,
        keyPrefix: KEY_PREFIX,
        ttlSeconds: 60,
        claimReplication: { replicas: 1, waitMs: 100 },
      });
      const taskId = randomUUID();
      await expectUnreplicated(store.claim(taskId, 'send-mail'));
      expect(await redis.exists(claimKey(taskId, 'send-mail'))).toBe(0);
      await store.close();
    });

    it('claims as before when no replica is asked for', async () => {
      const store = new RedisTaskStore({
        redis,
        keyPrefix: KEY_PREFIX,
        ttlSeconds: 60,
        claimReplication: { replicas: 0, waitMs: 100 },
      });
      const taskId = randomUUID();
      expect(await store.claim(taskId, 'send-mail')).toBe(true);
      expect(await store.claim(taskId, 'send-mail')).toBe(false);
      await store.close();
    });
  });

  describe('a primary and its replica through Sentinel', () => {
    let sentinel: TestRedisSentinel;
    let redis: FleetRedis;
    let store: RedisTaskStore;

    beforeAll(async () => {
      sentinel = await startRedisSentinel();
      redis = createFleetRedis({
        redisUrl: 'redis://127.0.0.1:6379',
        redisSentinels: sentinel.sentinels.map(hostPort),
        redisSentinelName: sentinel.name,
      });
      store = new RedisTaskStore({
        redis,
        keyPrefix: KEY_PREFIX,
        ttlSeconds: 60,
        claimReplication: { replicas: 1, waitMs: 1000 },
      });
    }, 60_000);

    afterAll(async () => {
      await store?.close();
      await redis?.quit().catch(() => undefined);
      await sentinel?.stop();
    });

    it('claims once, with the claim on the replica before the side effect may run', async () => {
      const taskId = randomUUID();
      expect(await store.claim(taskId, 'run-code')).toBe(true);
      const replica = new Redis(hostPort(sentinel.replica));
      try {
        // WAIT returned: the replica has it now, without polling.
        expect(await replica.exists(claimKey(taskId, 'run-code'))).toBe(1);
      } finally {
        replica.disconnect();
      }
      expect(await store.claim(taskId, 'run-code')).toBe(false);
    });

    it('refuses the claim while the replica is gone, and leaves nothing claimed', async () => {
      // No reconnect: SHUTDOWN ends the connection, and the command must not be sent again.
      const replica = new Redis({ ...hostPort(sentinel.replica), retryStrategy: () => null });
      await replica.call('SHUTDOWN', 'NOSAVE').catch(() => undefined);
      replica.disconnect();
      const taskId = randomUUID();
      await expectUnreplicated(store.claim(taskId, 'run-code'));
      expect(await redis.exists(claimKey(taskId, 'run-code'))).toBe(0);
    });
  });

  describe('a Redis Cluster of three masters with a replica each', () => {
    let cluster: TestRedisCluster;
    let connection: Cluster;
    let store: RedisTaskStore;

    beforeAll(async () => {
      cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
      connection = new Cluster(cluster.nodes.map(hostPort));
      store = new RedisTaskStore({
        redis: connection,
        keyPrefix: KEY_PREFIX,
        ttlSeconds: 60,
        claimReplication: { replicas: 1, waitMs: 1000 },
      });
    }, 90_000);

    afterAll(async () => {
      await store?.close();
      await connection?.quit().catch(() => undefined);
      await cluster?.stop();
    });

    /** The replica of `master`, from its `CLUSTER NODES`. */
    async function replicaOf(master: string): Promise<string> {
      const client = new Redis(hostPort(master));
      try {
        const lines = String(await client.call('CLUSTER', 'NODES'))
          .trim()
          .split('\n');
        const own = lines.find((line) => line.includes('myself'))?.split(' ')[0];
        const replica = lines
          .map((line) => line.split(' '))
          .find((fields) => (fields[2] ?? '').includes('slave') && fields[3] === own);
        if (replica === undefined) throw new Error(`no replica of ${master}`);
        return (replica[1] ?? '').split('@')[0] ?? '';
      } finally {
        client.disconnect();
      }
    }

    it('waits on the master of each claim’s slot, whichever master that is', async () => {
      const taskIds = Array.from({ length: 9 }, () => randomUUID());
      const masters = new Set(
        await Promise.all(taskIds.map((id) => cluster.masterFor(claimKey(id, 'send-mail')))),
      );
      expect(masters.size).toBeGreaterThan(1);
      for (const id of taskIds) expect(await store.claim(id, 'send-mail')).toBe(true);
      for (const id of taskIds) expect(await store.claim(id, 'send-mail')).toBe(false);
    });

    it('refuses a claim whose master lost its replica, and still claims on the others', async () => {
      const lonely = randomUUID();
      const master = await cluster.masterFor(claimKey(lonely, 'send-mail'));
      await cluster.kill(await replicaOf(master));
      await expectUnreplicated(store.claim(lonely, 'send-mail'));
      expect(await connection.exists(claimKey(lonely, 'send-mail'))).toBe(0);
      // A claim on another master (its replica alive) still goes through.
      let other = randomUUID();
      while ((await cluster.masterFor(claimKey(other, 'send-mail'))) === master) {
        other = randomUUID();
      }
      expect(await store.claim(other, 'send-mail')).toBe(true);
    });
  });
});
