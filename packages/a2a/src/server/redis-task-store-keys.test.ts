import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { redisKeySlot as keySlot } from './redis-key-slot';
import type { Task } from '../schemas/core';
import { migrateRedisTaskKeys } from './migrate-redis-task-keys';
import { RedisTaskStore, redisTaskKeys } from './redis-task-store';

function task(contextId = 'ctx'): Task {
  return {
    id: randomUUID(),
    contextId,
    status: { state: 'TASK_STATE_WORKING', timestamp: new Date().toISOString() },
  };
}

/** The keys of every command a connection sends, by command (ioredis `Command#getKeys`). */
function recordKeys(redis: Redis): { name: string; keys: string[] }[] {
  const sent: { name: string; keys: string[] }[] = [];
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = (...args: Parameters<Redis['sendCommand']>) => {
    const [command] = args;
    sent.push({ name: command.name, keys: command.getKeys().map(String) });
    return send(...args);
  };
  return sent;
}

describe('redisKeySlot', () => {
  it('computes the slots Redis Cluster documents', () => {
    expect(keySlot('123456789')).toBe(0x31c3);
    expect(keySlot('foo')).toBe(12182);
    expect(keySlot('{user1000}.following')).toBe(keySlot('user1000'));
    expect(keySlot('foo{}{bar}')).not.toBe(keySlot('bar'));
    expect(keySlot('foo{bar}{zap}')).toBe(keySlot('bar'));
  });
});

describe('RedisTaskStore keys on a Redis Cluster', () => {
  const keyPrefix = `test:a2a:slots:${randomUUID()}`;
  let redis: Redis;
  let store: RedisTaskStore;

  beforeAll(() => {
    redis = new Redis({ host: '127.0.0.1', port: 6379 });
    store = new RedisTaskStore({ redis, keyPrefix });
  });

  afterAll(async () => {
    await store.close();
    const keys = await redis.keys(`${keyPrefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('gives every key and the channel of one task one slot, apart from other tasks', () => {
    const keys = redisTaskKeys('fleet:a2a:planner');
    const id = randomUUID();
    const slots = new Set(
      [keys.task(id), keys.turn(id), keys.claim(id, 'send-mail'), keys.channel(id)].map(keySlot),
    );
    expect(slots.size).toBe(1);
    const others = new Set(Array.from({ length: 20 }, () => keySlot(keys.task(randomUUID()))));
    expect(others.size).toBeGreaterThan(1);
    expect(keys.task(id)).toBe(`fleet:a2a:planner:{${id}}:task`);
    expect(keys.context('c1')).toBe('fleet:a2a:planner:{ctx:c1}:tasks');
  });

  it('refuses a keyPrefix with a brace (it would move the hash tag)', () => {
    expect(() => new RedisTaskStore({ redis, keyPrefix: 'fleet:{a2a}' })).toThrow('keyPrefix');
  });

  it('sends each script and each multi-key command with the keys of one slot only', async () => {
    const connection = new Redis({ host: '127.0.0.1', port: 6379 });
    try {
      const sent = recordKeys(connection);
      const recorded = new RedisTaskStore({ redis: connection, keyPrefix });
      const entry = task();
      await recorded.save({ task: entry, version: 1 });
      await recorded.save({ task: entry, version: 2 }, { expectedVersion: 1 });
      await recorded.saveAndPublish({ task: entry, version: 3 }, [
        { type: 'cancel', reason: 'test' },
      ]);
      await recorded.claim(entry.id, 'once');
      await recorded.holdTurn(entry.id, 1000);
      await recorded.list({ pageSize: 10 });
      await recorded.list({ contextId: 'ctx', pageSize: 10, status: 'TASK_STATE_WORKING' });
      const scripts = sent.filter(({ name }) => name === 'evalsha' || name === 'eval');
      expect(scripts.length).toBeGreaterThanOrEqual(3);
      expect(sent.some(({ name }) => name === 'multi')).toBe(false);
      for (const { name, keys } of sent) {
        expect({ name, slots: new Set(keys.map(keySlot)).size }).toEqual({
          name,
          slots: Math.min(1, keys.length),
        });
      }
      // The save-and-publish script names the task's channel among its keys: the same slot.
      expect(scripts.some(({ keys }) => keys.includes(`${keyPrefix}:{${entry.id}}:events`))).toBe(
        true,
      );
      await recorded.close();
    } finally {
      connection.disconnect();
    }
  });
});

describe('migrateRedisTaskKeys', () => {
  const keyPrefix = `test:a2a:migrate:${randomUUID()}`;
  let redis: Redis;

  beforeAll(() => {
    redis = new Redis({ host: '127.0.0.1', port: 6379 });
  });

  afterAll(async () => {
    const keys = await redis.keys(`${keyPrefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('moves tasks, claims and indexes of the old layout to the new, keeping TTLs, and is idempotent', async () => {
    const old = task('c1');
    const newer = task('c1');
    const score = Date.now();
    await redis.hset(`${keyPrefix}:task:${old.id}`, 'task', JSON.stringify(old), 'version', '4');
    await redis.expire(`${keyPrefix}:task:${old.id}`, 600);
    await redis.set(`${keyPrefix}:task:${old.id}:claim:send-mail`, 'x', 'EX', 600);
    await redis.zadd(`${keyPrefix}:tasks`, score, old.id, score, newer.id);
    await redis.zadd(`${keyPrefix}:context:c1`, score, old.id, score, newer.id);
    await redis.expire(`${keyPrefix}:context:c1`, 600);
    // A task both layouts hold: the new one was written since, and wins.
    await redis.hset(
      `${keyPrefix}:task:${newer.id}`,
      'task',
      JSON.stringify(newer),
      'version',
      '1',
    );
    const store = new RedisTaskStore({ redis, keyPrefix });
    await store.save({ task: newer, version: 2 });

    expect(await migrateRedisTaskKeys({ redis, keyPrefix })).toEqual({ tasks: 1, indexEntries: 4 });
    expect(await store.load(old.id)).toEqual({ task: old, version: 4 });
    expect(await store.load(newer.id)).toEqual({ task: newer, version: 2 });
    expect(await redis.ttl(`${keyPrefix}:{${old.id}}:task`)).toBeGreaterThan(500);
    expect(await store.claim(old.id, 'send-mail')).toBe(false);
    const page = await store.list({ contextId: 'c1', pageSize: 10 });
    expect(page.tasks.map(({ id }) => id).sort()).toEqual([old.id, newer.id].sort());
    expect((await store.list({ pageSize: 10 })).totalSize).toBe(2);
    expect(await redis.keys(`${keyPrefix}:task:*`)).toEqual([]);
    expect(await redis.exists(`${keyPrefix}:tasks`, `${keyPrefix}:context:c1`)).toBe(0);

    expect(await migrateRedisTaskKeys({ redis, keyPrefix })).toEqual({ tasks: 0, indexEntries: 0 });
    expect(await store.load(old.id)).toEqual({ task: old, version: 4 });
    await store.close();
  });
});
