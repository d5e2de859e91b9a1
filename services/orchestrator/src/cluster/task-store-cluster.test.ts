import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Cluster, Redis } from 'ioredis';
import type { Task } from '@fleet/a2a';
import { migrateRedisTaskKeys, RedisTaskStore, type TaskBusMessage } from '@fleet/a2a/server';
import { startRedisCluster, type TestRedisCluster } from '@fleet/testing';

function task(contextId: string): Task {
  return {
    id: randomUUID(),
    contextId,
    status: { state: 'TASK_STATE_WORKING', timestamp: new Date().toISOString() },
  };
}

/** The first message a store's subscription to a task receives. */
function nextMessage(
  store: RedisTaskStore,
  taskId: string,
): { subscribed: Promise<() => Promise<void>>; received: Promise<TaskBusMessage> } {
  let deliver: (message: TaskBusMessage) => void = () => undefined;
  const received = new Promise<TaskBusMessage>((resolve) => {
    deliver = resolve;
  });
  return { subscribed: store.subscribe(taskId, (message) => deliver(message)), received };
}

describe('RedisTaskStore on a Redis Cluster of three masters (ioredis Cluster)', () => {
  let cluster: TestRedisCluster;
  const connections: Cluster[] = [];
  const stores: RedisTaskStore[] = [];
  const keyPrefix = 'fleet:a2a:test';

  /** A replica of an agent: its own Cluster connection and store. */
  function replica(shardedPubSub?: boolean): RedisTaskStore {
    const connection = new Cluster(
      cluster.nodes.map((node) => {
        const [host = '', port = ''] = node.split(':');
        return { host, port: Number(port) };
      }),
    );
    connections.push(connection);
    const store = new RedisTaskStore({
      redis: connection,
      keyPrefix,
      ttlSeconds: 600,
      ...(shardedPubSub === undefined ? {} : { shardedPubSub }),
    });
    stores.push(store);
    return store;
  }

  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 0 });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await Promise.all(connections.map((connection) => connection.quit().catch(() => undefined)));
    await cluster?.stop();
  });

  it('saves, compares-and-sets, loads and lists tasks whose keys live on different masters', async () => {
    const [one, other] = [replica(), replica()];
    const tasks = Array.from({ length: 12 }, (_, index) => task(index % 2 === 0 ? 'even' : 'odd'));
    const masters = new Set(
      await Promise.all(tasks.map((entry) => cluster.masterFor(`${keyPrefix}:{${entry.id}}:task`))),
    );
    expect(masters.size).toBeGreaterThan(1);
    for (const entry of tasks) await one.save({ task: entry, version: 1 });
    const first = tasks[0] as Task;
    expect(await other.save({ task: first, version: 2 }, { expectedVersion: 1 })).toBe(true);
    expect(await one.save({ task: first, version: 3 }, { expectedVersion: 1 })).toBe(false);
    expect(await one.load(first.id)).toEqual({ task: first, version: 2 });

    const even = await other.list({ contextId: 'even', pageSize: 100 });
    expect(even.tasks.map(({ id }) => id).sort()).toEqual(
      tasks
        .filter((_, index) => index % 2 === 0)
        .map(({ id }) => id)
        .sort(),
    );
    const all = await other.list({ pageSize: 5 });
    expect(all.totalSize).toBe(12);
    expect(all.tasks).toHaveLength(5);
    const working = await other.list({ pageSize: 100, status: 'TASK_STATE_WORKING' });
    expect(working.totalSize).toBe(12);

    expect(await one.claim(first.id, 'send-mail')).toBe(true);
    expect(await other.claim(first.id, 'send-mail')).toBe(false);
    await one.holdTurn(first.id, 5000);
    expect(await other.turnHeld(first.id)).toBe(true);
    await other.releaseTurn(first.id);
    expect(await one.turnHeld(first.id)).toBe(false);
  });

  /** The shard channels the master owning `channel`'s slot has subscribers for. */
  async function shardChannelsAt(channel: string): Promise<string[]> {
    const [host = '', port = ''] = (await cluster.masterFor(channel)).split(':');
    const node = new Redis({ host, port: Number(port) });
    try {
      return (await node.call('PUBSUB', 'SHARDCHANNELS')) as string[];
    } finally {
      node.disconnect();
    }
  }

  it.each([
    ['sharded channels (SPUBLISH/SSUBSCRIBE, the default on a Cluster)', undefined],
    ['classic channels (shardedPubSub: false)', false],
  ])(
    "delivers a task's saved-and-published events to another replica's subscriber: %s",
    async (_name, shardedPubSub) => {
      const [writer, reader] = [replica(shardedPubSub), replica(shardedPubSub)];
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const entry = task('events');
        const { subscribed, received } = nextMessage(reader, entry.id);
        const unsubscribe = await subscribed;
        const channel = `${keyPrefix}:{${entry.id}}:events`;
        expect((await shardChannelsAt(channel)).includes(channel)).toBe(shardedPubSub !== false);
        const message: TaskBusMessage = {
          type: 'event',
          version: 1,
          event: {
            statusUpdate: { taskId: entry.id, contextId: entry.contextId, status: entry.status },
          },
        };
        await writer.saveAndPublish({ task: entry, version: 1 }, [message]);
        expect(await received).toEqual(message);
        expect(await reader.load(entry.id)).toEqual({ task: entry, version: 1 });

        // A publish outside a save reaches it as well.
        const next = nextMessage(reader, entry.id);
        const unsubscribeNext = await next.subscribed;
        await writer.publish(entry.id, { ...message, version: 2 });
        expect(await next.received).toEqual({ ...message, version: 2 });
        await unsubscribe();
        await unsubscribeNext();
      }
    },
  );

  it("hears a cancel request sent by another replica on the store's cancel channel", async () => {
    const [canceller, runner] = [replica(), replica()];
    const heard: [string, string | undefined][] = [];
    let notify: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => {
      notify = resolve;
    });
    const stop = await runner.listenForCancels((taskId, reason) => {
      heard.push([taskId, reason]);
      notify();
    });
    const entry = task('cancels');
    const { subscribed, received } = nextMessage(runner, entry.id);
    await subscribed;
    await canceller.publish(entry.id, { type: 'cancel', reason: 'user asked' });
    await arrived;
    expect(heard).toEqual([[entry.id, 'user asked']]);
    // The task's own channel carries it too (what a replica of an earlier version listens to).
    expect(await received).toEqual({ type: 'cancel', reason: 'user asked' });
    await stop();
  });
  it('moves the tasks of the earlier key layout, spread over the masters, to the current one', async () => {
    replica();
    const connection = connections.at(-1) as Cluster;
    const prefix = 'fleet:a2a:migrated';
    const tasks = Array.from({ length: 6 }, () => task('old'));
    for (const entry of tasks) {
      const key = `${prefix}:task:${entry.id}`;
      await connection.hset(key, 'task', JSON.stringify(entry), 'version', '3');
      await connection.expire(key, 600);
      await connection.zadd(`${prefix}:context:old`, Date.now(), entry.id);
      await connection.zadd(`${prefix}:tasks`, Date.now(), entry.id);
    }
    const [first, second] = tasks as [Task, Task];
    await connection.set(`${prefix}:task:${first.id}:claim:send-mail`, 'x', 'EX', 600);
    const masters = new Set(
      await Promise.all(tasks.map((entry) => cluster.masterFor(`${prefix}:task:${entry.id}`))),
    );
    expect(masters.size).toBeGreaterThan(1);

    expect(await migrateRedisTaskKeys({ redis: connection, keyPrefix: prefix })).toEqual({
      tasks: 6,
      indexEntries: 12,
    });
    expect(await migrateRedisTaskKeys({ redis: connection, keyPrefix: prefix })).toEqual({
      tasks: 0,
      indexEntries: 0,
    });
    const migrated = new RedisTaskStore({ redis: connection, keyPrefix: prefix });
    stores.push(migrated);
    const page = await migrated.list({ contextId: 'old', pageSize: 10 });
    expect(page.tasks.map(({ id }) => id).sort()).toEqual(tasks.map(({ id }) => id).sort());
    expect((await migrated.list({ pageSize: 10 })).totalSize).toBe(6);
    expect(await migrated.load(second.id)).toEqual({ task: second, version: 3 });
    expect(await migrated.claim(first.id, 'send-mail')).toBe(false);
    expect(await connection.exists(`${prefix}:task:${second.id}`)).toBe(0);
    expect(await connection.exists(`${prefix}:tasks`)).toBe(0);
  });
});
