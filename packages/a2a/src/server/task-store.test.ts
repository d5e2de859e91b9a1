import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Redis } from 'ioredis';
import type { Task, TaskState } from '../schemas/core';
import { InMemoryTaskStore } from './in-memory-task-store';
import { RedisTaskStore } from './redis-task-store';
import type { TaskBusMessage, TaskStore } from './task-store';

function task(overrides: Partial<Task> & { state?: TaskState; at?: number } = {}): Task {
  const { state = 'TASK_STATE_WORKING', at = Date.now(), ...rest } = overrides;
  return {
    id: randomUUID(),
    contextId: 'ctx',
    status: { state, timestamp: new Date(at).toISOString() },
    ...rest,
  };
}

function waitFor(store: TaskStore, taskId: string) {
  const received: TaskBusMessage[] = [];
  let notify: () => void = () => undefined;
  const arrived = new Promise<void>((resolve) => {
    notify = resolve;
  });
  const subscription = store.subscribe(taskId, (message) => {
    received.push(message);
    notify();
  });
  return { received, arrived, subscription };
}

/** The contract every TaskStore keeps; `pair` gives two stores that share their data. */
function describeTaskStore(name: string, pair: () => [TaskStore, TaskStore]) {
  describe(name, () => {
    it('lets a side effect be claimed once per task, across instances, even concurrently', async () => {
      const [store, other] = pair();
      const taskId = randomUUID();
      const claims = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          (index % 2 === 0 ? store : other).claim(taskId, 'send-mail'),
        ),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await other.claim(taskId, 'run-code')).toBe(true);
      expect(await store.claim(randomUUID(), 'send-mail')).toBe(true);
    });

    it('saves and loads records, with compare-and-set', async () => {
      const [store] = pair();
      const record = { task: task(), version: 1 };
      expect(await store.load(record.task.id)).toBeUndefined();
      expect(await store.save(record, { expectedVersion: 0 })).toBe(true);
      expect(await store.save(record, { expectedVersion: 0 })).toBe(false);
      expect(await store.load(record.task.id)).toEqual(record);
      const next = { task: { ...record.task, metadata: { step: 2 } }, version: 2 };
      expect(await store.save(next, { expectedVersion: 5 })).toBe(false);
      expect(await store.save(next, { expectedVersion: 1 })).toBe(true);
      expect(await store.load(record.task.id)).toEqual(next);
      expect(await store.save({ ...next, version: 3 })).toBe(true);
    });

    it('lists newest first, by context, by status and a page at a time', async () => {
      const [store] = pair();
      const contextId = randomUUID();
      const base = Date.now();
      const tasks = [0, 1, 2, 3, 4].map((index) =>
        task({
          contextId,
          at: base + index * 1000,
          state: index === 2 ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_WORKING',
        }),
      );
      for (const entry of tasks) await store.save({ task: entry, version: 1 });
      await store.save({ task: task({ contextId: randomUUID() }), version: 1 });
      const first = await store.list({ contextId, pageSize: 2 });
      expect(first.tasks.map((entry) => entry.id)).toEqual([tasks[4]?.id, tasks[3]?.id]);
      expect(first.totalSize).toBe(5);
      const second = await store.list({ contextId, pageSize: 2, pageToken: first.nextPageToken });
      expect(second.tasks.map((entry) => entry.id)).toEqual([tasks[2]?.id, tasks[1]?.id]);
      const third = await store.list({ contextId, pageSize: 2, pageToken: second.nextPageToken });
      expect(third.tasks.map((entry) => entry.id)).toEqual([tasks[0]?.id]);
      expect(third.nextPageToken).toBe('');
      const completed = await store.list({
        contextId,
        status: 'TASK_STATE_COMPLETED',
        pageSize: 10,
      });
      expect(completed.tasks.map((entry) => entry.id)).toEqual([tasks[2]?.id]);
      expect(completed.totalSize).toBe(1);
      const recent = await store.list({
        contextId,
        statusTimestampAfter: new Date(base + 2500).toISOString(),
        pageSize: 10,
      });
      expect(recent.tasks.map((entry) => entry.id)).toEqual([tasks[4]?.id, tasks[3]?.id]);
    });

    it("carries a task's events to subscribers of the other store, until they unsubscribe", async () => {
      const [publisher, subscriber] = pair();
      const taskId = randomUUID();
      const first = waitFor(subscriber, taskId);
      const unsubscribe = await first.subscription;
      const other = waitFor(subscriber, randomUUID());
      const unsubscribeOther = await other.subscription;
      const event: TaskBusMessage = {
        type: 'event',
        version: 2,
        event: {
          statusUpdate: { taskId, contextId: 'ctx', status: { state: 'TASK_STATE_WORKING' } },
        },
      };
      await publisher.publish(taskId, event);
      await first.arrived;
      expect(first.received).toEqual([event]);
      await unsubscribe();
      await publisher.publish(taskId, { type: 'cancel' });
      const second = waitFor(subscriber, taskId);
      await (
        await second.subscription
      )();
      expect(first.received).toHaveLength(1);
      expect(other.received).toEqual([]);
      await unsubscribeOther();
    });

    it('saves a record and then publishes its events in order (saveAndPublish)', async () => {
      const [publisher, subscriber] = pair();
      const record = { task: task(), version: 3 };
      const taskId = record.task.id;
      const events = [2, 3].map((version): TaskBusMessage => ({
        type: 'event',
        version,
        event: {
          statusUpdate: { taskId, contextId: 'ctx', status: { state: 'TASK_STATE_WORKING' } },
        },
      }));
      const seen: { version: number; stored: number | undefined }[] = [];
      let notify: () => void = () => undefined;
      const both = new Promise<void>((resolve) => {
        notify = resolve;
      });
      const unsubscribe = await subscriber.subscribe(taskId, (message) => {
        if (message.type !== 'event') return;
        // What a follower reads when the event arrives: the record is already there.
        void subscriber.load(taskId).then((stored) => {
          seen.push({ version: message.version, stored: stored?.version });
          if (seen.length === 2) notify();
        });
      });
      expect(publisher.saveAndPublish).toBeDefined();
      await publisher.saveAndPublish?.(record, events);
      await both;
      expect(seen.map((entry) => entry.version)).toEqual([2, 3]);
      expect(seen.every((entry) => entry.stored === 3)).toBe(true);
      expect(await subscriber.load(taskId)).toEqual(record);
      await unsubscribe();
    });
  });
}

describeTaskStore('InMemoryTaskStore', () => {
  const store = new InMemoryTaskStore();
  return [store, store];
});

describe('RedisTaskStore (real Redis)', () => {
  const keyPrefix = `test:a2a:store:${randomUUID()}`;
  const stores: RedisTaskStore[] = [];
  let redis: Redis;

  beforeAll(() => {
    redis = new Redis({ host: '127.0.0.1', port: 6379 });
  });

  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    const keys = await redis.keys(`${keyPrefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  describeTaskStore('shared by two instances', () => {
    const created: [RedisTaskStore, RedisTaskStore] = [
      new RedisTaskStore({ redis, keyPrefix }),
      new RedisTaskStore({ redis, keyPrefix }),
    ];
    stores.push(...created);
    return created;
  });

  it('stores a task as JSON under its prefix, expiring after ttlSeconds', async () => {
    const store = new RedisTaskStore({ redis, keyPrefix, ttlSeconds: 60 });
    stores.push(store);
    const entry = task();
    await store.save({ task: entry, version: 1 });
    const stored = await redis.hget(`${keyPrefix}:{${entry.id}}:task`, 'task');
    expect(JSON.parse(stored ?? '{}')).toEqual(entry);
    const ttl = await redis.ttl(`${keyPrefix}:{${entry.id}}:task`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60);
    expect(await redis.zscore(`${keyPrefix}:{ctx:ctx}:tasks`, entry.id)).not.toBeNull();
  });

  it('does not wait for a publish: a task event is one round trip, and a failed publish fails its next save', async () => {
    const connection = new Redis({ host: '127.0.0.1', port: 6379 });
    try {
      const store = new RedisTaskStore({ redis: connection, keyPrefix: `${keyPrefix}:publish` });
      const replies: { settle: (error?: Error) => void }[] = [];
      // Redis's replies to PUBLISH come only when the test says so.
      const publish = (): Promise<number> =>
        new Promise<number>((resolve, reject) => {
          replies.push({ settle: (error) => (error ? reject(error) : resolve(1)) });
        });
      jest.spyOn(connection, 'publish').mockImplementation(publish);
      const entry = task();
      const message: TaskBusMessage = {
        type: 'event',
        version: 1,
        event: {
          statusUpdate: { taskId: entry.id, contextId: entry.contextId, status: entry.status },
        },
      };
      // Resolves although Redis has not answered the publish.
      await store.publish(entry.id, message);
      let saved: boolean | undefined;
      const saving = store.save({ task: entry, version: 1 }).then((value) => (saved = value));
      await new Promise((resolve) => setTimeout(resolve, 50));
      // The save waits for the earlier publish's reply, which comes in the same round trip.
      expect(saved).toBeUndefined();
      replies[0]?.settle();
      await saving;
      expect(saved).toBe(true);

      await store.publish(entry.id, message);
      replies[1]?.settle(new Error('connection lost'));
      await expect(store.save({ task: entry, version: 2 })).rejects.toThrow('connection lost');
      // Only that task's save: another task's events are not held up or failed by it.
      await store.publish(entry.id, message);
      await expect(store.save({ task: task(), version: 1 })).resolves.toBe(true);
      replies[2]?.settle();
      await store.close();
    } finally {
      const keys = await redis.keys(`${keyPrefix}:publish:*`);
      if (keys.length > 0) await redis.del(...keys);
      connection.disconnect();
    }
  });

  it('drops index entries whose task has expired', async () => {
    const store = new RedisTaskStore({ redis, keyPrefix: `${keyPrefix}:expiry` });
    stores.push(store);
    const kept = task({ contextId: 'expiry' });
    // Expired: its last change is older than the grace given to a save under way.
    const gone = task({ contextId: 'expiry', at: Date.now() - 5 * 60_000 });
    await store.save({ task: kept, version: 1 });
    await store.save({ task: gone, version: 1 });
    await redis.del(`${keyPrefix}:expiry:{${gone.id}}:task`);
    const page = await store.list({ contextId: 'expiry', pageSize: 10 });
    expect(page.tasks.map((entry) => entry.id)).toEqual([kept.id]);
    expect(await redis.zscore(`${keyPrefix}:expiry:{ctx:expiry}:tasks`, gone.id)).toBeNull();
    expect(await redis.zscore(`${keyPrefix}:expiry:{all}:tasks`, gone.id)).not.toBeNull();
  });

  it('leaves out, but keeps, a recent index entry whose task is not written yet (a save under way)', async () => {
    const store = new RedisTaskStore({ redis, keyPrefix: `${keyPrefix}:underway` });
    stores.push(store);
    const saving = task({ contextId: 'underway' });
    // What a save does first: the index entries, before the task itself.
    await redis.zadd(`${keyPrefix}:underway:{ctx:underway}:tasks`, Date.now(), saving.id);
    expect((await store.list({ contextId: 'underway', pageSize: 10 })).tasks).toEqual([]);
    expect(
      await redis.zscore(`${keyPrefix}:underway:{ctx:underway}:tasks`, saving.id),
    ).not.toBeNull();
    await store.save({ task: saving, version: 1 });
    const page = await store.list({ contextId: 'underway', pageSize: 10 });
    expect(page.tasks.map((entry) => entry.id)).toEqual([saving.id]);
  });
});
