/**
 * Faults: the fleet's Redis connection (`createFleetRedis`, what every service opens) in its three
 * modes against real servers of this test's own: one redis-server, a Redis Cluster of three
 * masters with a replica each, and a primary with a replica watched by three sentinels. The
 * cluster runs commands and Lua scripts on hash-tagged keys; when a master or the primary is
 * SIGKILLed, the same client object serves again once the replica is promoted.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Cluster, Redis } from 'ioredis';
import { loadConfig, redisEnv } from '@fleet/config';
import { createFleetRedis, type FleetRedis } from '@fleet/a2a/server';
import {
  startRedisCluster,
  startRedisSentinel,
  startRedisServer,
  type TestRedisCluster,
  type TestRedisSentinel,
  type TestRedisServer,
} from '@fleet/testing';

/** Increments KEYS[1] and appends ARGV[1] to KEYS[2], in one step; returns the new count. */
const COUNT_AND_LOG = `
local count = redis.call('INCR', KEYS[1])
redis.call('RPUSH', KEYS[2], ARGV[1])
return count
`;

/** The fleet's connection for these variables, as a service loads and opens it. */
function connect(environment: Record<string, string>): FleetRedis {
  const redis = createFleetRedis(loadConfig(redisEnv, environment));
  redis.on('error', () => undefined); // connection errors are expected while servers die
  return redis;
}

/** Closes a client gracefully (no connector left to time out after the test). */
async function close(redis: FleetRedis | undefined): Promise<void> {
  await redis?.quit().catch(() => redis.disconnect());
}

/**
 * Runs `attempt` until it succeeds (a fail-over makes it fail for a while), giving up after
 * `timeoutMs`; resolves with its result and how many attempts failed first.
 */
async function eventually<T>(
  attempt: () => Promise<T>,
  timeoutMs = 30_000,
): Promise<{ value: T; failures: number }> {
  const deadline = Date.now() + timeoutMs;
  let failures = 0;
  for (;;) {
    try {
      return { value: await attempt(), failures };
    } catch (error) {
      failures += 1;
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

describe('createFleetRedis with one server (REDIS_URL)', () => {
  let server: TestRedisServer;
  let redis: FleetRedis | undefined;
  beforeAll(async () => {
    server = await startRedisServer({ persistent: false });
  });
  afterAll(async () => {
    await close(redis);
    await server?.stop();
  });

  it('connects to the server REDIS_URL names, in its database', async () => {
    redis = connect({ REDIS_URL: `${server.url}/3` });
    expect(redis).toBeInstanceOf(Redis);
    await redis.set('fleet:modes:single', 'here');
    const direct = new Redis(`${server.url}/3`);
    try {
      expect(await direct.get('fleet:modes:single')).toBe('here');
    } finally {
      await direct.quit();
    }
  });
});

describe('createFleetRedis with a Redis Cluster (REDIS_CLUSTER_NODES)', () => {
  let cluster: TestRedisCluster;
  let redis: FleetRedis;
  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
    // One node is enough to discover the others.
    redis = connect({ REDIS_CLUSTER_NODES: cluster.nodes[0] ?? '' });
  }, 60_000);
  afterAll(async () => {
    await close(redis);
    await cluster?.stop();
  });

  it('is a cluster client that reaches keys on every master', async () => {
    expect(redis).toBeInstanceOf(Cluster);
    const keys = Array.from({ length: 30 }, (_, index) => `fleet:modes:spread:${index}`);
    await Promise.all(keys.map((key, index) => redis.set(key, String(index))));
    const masters = new Set(await Promise.all(keys.map((key) => cluster.masterFor(key))));
    expect(masters.size).toBe(3);
    expect(await Promise.all(keys.map((key) => redis.get(key)))).toEqual(
      keys.map((_, index) => String(index)),
    );
  });

  it('runs a Lua script over keys that share a hash tag, atomically', async () => {
    const keys = ['fleet:modes:{run-1}:count', 'fleet:modes:{run-1}:log'];
    expect(await redis.eval(COUNT_AND_LOG, 2, ...keys, 'first')).toBe(1);
    expect(await redis.eval(COUNT_AND_LOG, 2, ...keys, 'second')).toBe(2);
    expect(await redis.lrange('fleet:modes:{run-1}:log', 0, -1)).toEqual(['first', 'second']);
  });

  it('refuses a script over keys in different slots (what the hash tags are for)', async () => {
    await expect(
      redis.eval(COUNT_AND_LOG, 2, 'fleet:modes:{run-2}:count', 'fleet:modes:{run-3}:log', 'x'),
    ).rejects.toThrow(/CROSSSLOT|same slot/);
  });

  it('serves a killed master’s slot again, through the same client, once its replica is promoted', async () => {
    const key = 'fleet:modes:{failover}:count';
    await redis.set(key, '10');
    const master = await cluster.masterFor(key);
    // The write reaches the replica before the master dies.
    const direct = new Redis(`redis://${master}`);
    try {
      await direct.wait(1, 2000);
    } finally {
      await direct.quit();
    }
    await cluster.kill(master);
    const promoted = await cluster.waitForFailover(master);
    expect(promoted).not.toBe(master);
    const { value } = await eventually(() => redis.incr(key));
    expect(value).toBe(11);
    expect(await cluster.masterFor(key)).toBe(promoted);
    const { value: script } = await eventually(() =>
      redis.eval(
        COUNT_AND_LOG,
        2,
        'fleet:modes:{failover}:count',
        'fleet:modes:{failover}:log',
        'after',
      ),
    );
    expect(script).toBe(12);
  }, 60_000);
});

describe('createFleetRedis with Redis Sentinel (REDIS_SENTINELS)', () => {
  let sentinel: TestRedisSentinel;
  let redis: FleetRedis;
  beforeAll(async () => {
    sentinel = await startRedisSentinel();
    redis = connect({
      REDIS_SENTINELS: sentinel.sentinels.join(','),
      REDIS_SENTINEL_NAME: sentinel.name,
    });
  }, 60_000);
  afterAll(async () => {
    await close(redis);
    await sentinel?.stop();
  });

  it('connects to the primary the sentinels name', async () => {
    expect(redis).toBeInstanceOf(Redis);
    await redis.set('fleet:modes:sentinel', 'first');
    const primary = new Redis(`redis://${sentinel.primary}`);
    try {
      expect(await primary.get('fleet:modes:sentinel')).toBe('first');
    } finally {
      await primary.quit();
    }
  });

  it('writes to the new primary, through the same client, after the primary is killed', async () => {
    await redis.set('fleet:modes:sentinel:count', '1');
    // The write reaches the replica before the primary dies.
    const before = new Redis(`redis://${sentinel.primary}`);
    try {
      await before.wait(1, 2000);
    } finally {
      await before.quit();
    }
    const first = sentinel.primary;
    await sentinel.killPrimary();
    const promoted = await sentinel.waitForNewPrimary();
    expect(promoted).not.toBe(first);
    const { value } = await eventually(() => redis.incr('fleet:modes:sentinel:count'));
    expect(value).toBe(2);
    const direct = new Redis(`redis://${promoted}`);
    try {
      expect(await direct.get('fleet:modes:sentinel:count')).toBe('2');
      expect((await direct.role())[0]).toBe('master');
    } finally {
      await direct.quit();
    }
  }, 60_000);
});
