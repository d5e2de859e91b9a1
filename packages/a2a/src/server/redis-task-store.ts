import type { Cluster, Redis } from 'ioredis';
import { z } from 'zod';
import { safeParseJson } from '@fleet/errors';
import { type StreamResponse, type Task, taskSchema } from '../schemas/core';
import { decodePageToken, encodePageToken, matchesQuery, statusTime } from './internal/task-query';
import { claimReplicated, type ClaimReplication } from './replicated-claim';
import type {
  SaveTaskOptions,
  TaskBusMessage,
  TaskPage,
  TaskQuery,
  TaskRecord,
  TaskStore,
  Unsubscribe,
} from './task-store';

/** Options for {@link RedisTaskStore}. */
export interface RedisTaskStoreOptions {
  /**
   * The connection for commands: one Redis or a Redis Cluster; the store duplicates it once for
   * its subscriptions.
   */
  redis: RedisConnection;
  /** Prefix of every key and channel. @default 'fleet:a2a' */
  keyPrefix?: string;
  /** How long a task is kept after its last change. @default 604800 (7 days) */
  ttlSeconds?: number;
  /**
   * Sharded pub/sub (SPUBLISH/SSUBSCRIBE, Redis 7) for the task channels and the cancel channel.
   * Every replica sharing the store must agree. @default true on a Cluster, false on one Redis
   */
  shardedPubSub?: boolean;
  /**
   * Replicas that must hold a side effect's claim (`claim`) before it counts, and how long to
   * wait for them ({@link claimReplicated}). @default no wait (a claim counts once the primary has it)
   */
  claimReplication?: ClaimReplication | undefined;
}

/**
 * A task's channel carries what this store's `saveAndPublish`/`publish` wrote: events built by the
 * A2A server from parts it validated. Each is read back by every subscriber of the channel, the
 * turn's own cancel listener included (a run hears each of its events once more), so an event is
 * checked for its shape (exactly one of the four kinds, an object), not parsed through the whole
 * schema again.
 */
const streamResponseShapeSchema = z
  .union([
    z.object({ task: z.looseObject({}) }),
    z.object({ message: z.looseObject({}) }),
    z.object({ statusUpdate: z.looseObject({}) }),
    z.object({ artifactUpdate: z.looseObject({}) }),
  ])
  .transform((event) => event as StreamResponse);

const cancelRequestSchema = z.object({ taskId: z.string(), reason: z.string().optional() });

const taskBusMessageSchema = z.union([
  z.object({
    type: z.literal('event'),
    version: z.number().int(),
    event: streamResponseShapeSchema,
  }),
  z.object({ type: z.literal('cancel'), reason: z.string().optional() }),
]);

// The write both save scripts end with: the task and its TTL. Every key a script touches carries
// the task's hash tag (`{<task id>}`), so on a Redis Cluster they live in one slot.
// KEYS: task hash. ARGV: task JSON, version, expected version ('' = any), ttl seconds.
const WRITE_TASK_LUA = `
redis.call('HSET', KEYS[1], 'task', ARGV[1], 'version', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[4])`;

// The write, after a compare-and-set on the version when ARGV[3] names one. KEYS, ARGV: as above.
const SAVE_SCRIPT = `
if ARGV[3] ~= '' then
  local current = redis.call('HGET', KEYS[1], 'version') or '0'
  if current ~= ARGV[3] then return 0 end
end${WRITE_TASK_LUA}
return 1
`;

// The write (no compare-and-set), then a PUBLISH (or, sharded, an SPUBLISH: ARGV[5]) of each message
// after the first five arguments, in order: a batch of a turn's events in one round trip,
// published only once saved. KEYS: the task hash, then the task's channel (same slot).
// ARGV: as above, then the publish command, then the messages.
const SAVE_AND_PUBLISH_SCRIPT = `${WRITE_TASK_LUA}
for i = 6, #ARGV do
  redis.call(ARGV[5], KEYS[2], ARGV[i])
end
return 1
`;

// One index (a sorted set of task ids by status time): the entry, the trim of entries older than
// the TTL, and the index's own TTL. Its only key is the index. KEYS: the index. ARGV: score, task
// id, cutoff score, ttl seconds.
const INDEX_TASK_SCRIPT = `
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
return 1
`;

/** The scripts as ioredis commands (`defineCommand`): EVALSHA, or EVAL when Redis lacks them. */
interface SaveTaskCommands {
  fleetA2ASaveTask(taskKey: string, ...args: string[]): Promise<unknown>;
  fleetA2ASaveAndPublishTask(taskKey: string, channel: string, ...args: string[]): Promise<unknown>;
  fleetA2AIndexTask(indexKey: string, ...args: string[]): Promise<unknown>;
}

/** A connection to one Redis or to a Redis Cluster (ioredis). */
export type RedisConnection = Redis | Cluster;

/** The client with the save commands, defined once per client (a client may be shared). */
function withSaveCommands(redis: RedisConnection): RedisConnection & SaveTaskCommands {
  const commands = redis as RedisConnection & Partial<SaveTaskCommands>;
  if (typeof commands.fleetA2ASaveTask !== 'function') {
    redis.defineCommand('fleetA2ASaveTask', { numberOfKeys: 1, lua: SAVE_SCRIPT });
  }
  if (typeof commands.fleetA2ASaveAndPublishTask !== 'function') {
    redis.defineCommand('fleetA2ASaveAndPublishTask', {
      numberOfKeys: 2,
      lua: SAVE_AND_PUBLISH_SCRIPT,
    });
  }
  if (typeof commands.fleetA2AIndexTask !== 'function') {
    redis.defineCommand('fleetA2AIndexTask', { numberOfKeys: 1, lua: INDEX_TASK_SCRIPT });
  }
  return redis as RedisConnection & SaveTaskCommands;
}

/** How many ids a filtered `list` reads from an index at most. */
const MAX_SCANNED_TASKS = 10_000;
const LOAD_BATCH = 500;
/**
 * An index entry whose task is missing is dropped by `list` only when its score (the task's status
 * time) is older than this: a newer one may belong to a save under way, whose index entry is
 * written before its task (see {@link RedisTaskStore.save}).
 */
const DANGLING_GRACE_MS = 60_000;

/** The keys and channels of a store (`keyPrefix` in front of each). */
export interface RedisTaskKeys {
  /** The task hash (`task` as JSON, `version`). */
  task(taskId: string): string;
  /** The lease of the turn working on the task. */
  turn(taskId: string): string;
  /** A side effect claimed once per task. */
  claim(taskId: string, key: string): string;
  /** The task's event channel. */
  channel(taskId: string): string;
  /** The index of every task of the store. */
  all(): string;
  /** The index of a context's tasks. */
  context(contextId: string): string;
  /** The channel cancel requests of every task of the store go on. */
  cancelChannel(): string;
}

/**
 * The key layout of a {@link RedisTaskStore}: every key of one task, and its channel, carry the
 * hash tag `{<task id>}`, so the scripts touching them run on one Redis Cluster slot; an index is
 * tagged by what it indexes (`{all}`, `{ctx:<context id>}`) and written on its own.
 */
export function redisTaskKeys(keyPrefix: string): RedisTaskKeys {
  if (/[{}]/.test(keyPrefix)) {
    throw new Error(`A task store's keyPrefix cannot contain "{" or "}" (got "${keyPrefix}")`);
  }
  return {
    task: (taskId) => `${keyPrefix}:{${taskId}}:task`,
    turn: (taskId) => `${keyPrefix}:{${taskId}}:turn`,
    claim: (taskId, key) => `${keyPrefix}:{${taskId}}:claim:${key}`,
    channel: (taskId) => `${keyPrefix}:{${taskId}}:events`,
    all: () => `${keyPrefix}:{all}:tasks`,
    context: (contextId) => `${keyPrefix}:{ctx:${contextId}}:tasks`,
    cancelChannel: () => `${keyPrefix}:cancels`,
  };
}

/** True for an ioredis `Cluster` (both clients carry `isCluster`). */
function isCluster(redis: RedisConnection): redis is Cluster {
  return (redis as { isCluster?: boolean }).isCluster === true;
}

/**
 * A {@link TaskStore} in Redis, shared by every replica of an agent (docs/architecture.md §4); it
 * works on one Redis and on a Redis Cluster ({@link redisTaskKeys}):
 *
 * - each task is a hash `<prefix>:{<id>}:task` (`task` as JSON, `version`), expiring `ttlSeconds`
 *   after its last change; writes are one Lua script, so compare-and-set is atomic;
 * - sorted sets `<prefix>:{all}:tasks` and `<prefix>:{ctx:<contextId>}:tasks` (score: status time)
 *   index `ListTasks`; they are written before the task, each by itself (on a cluster they live in
 *   other slots than the task), so a task saved is always indexed; an entry whose task is missing
 *   (expired, or a save that never finished) is dropped by `list`;
 * - events go out on the channel `<prefix>:{<id>}:events`, cancel requests on `<prefix>:cancels`,
 *   read through one subscriber connection (`redis.duplicate()`, opened on the first subscribe).
 *   On a Cluster they are sharded channels (SPUBLISH/SSUBSCRIBE: a message goes to the shard that
 *   owns its channel's slot, not to every node), unless `shardedPubSub` is false.
 *
 * @example
 * const store = new RedisTaskStore({ redis: new Redis(config.redisUrl), keyPrefix: 'fleet:a2a:planner' });
 */
export class RedisTaskStore implements TaskStore {
  private readonly redis: RedisConnection & SaveTaskCommands;
  private readonly keys: RedisTaskKeys;
  private readonly ttlSeconds: number;
  private readonly cluster: boolean;
  private readonly sharded: boolean;
  private readonly claimReplication: ClaimReplication | undefined;
  private subscriber: RedisConnection | undefined;
  private readonly listeners = new Map<string, Set<(message: TaskBusMessage) => void>>();
  private readonly cancelListeners = new Set<(taskId: string, reason?: string) => void>();
  /** Per task, publishes sent whose reply has not been read yet (see {@link RedisTaskStore.publish}). */
  private readonly unconfirmed = new Map<string, Set<Promise<unknown>>>();

  constructor({
    redis,
    keyPrefix = 'fleet:a2a',
    ttlSeconds = 7 * 24 * 3600,
    shardedPubSub,
    claimReplication,
  }: RedisTaskStoreOptions) {
    this.redis = withSaveCommands(redis);
    this.keys = redisTaskKeys(keyPrefix);
    this.ttlSeconds = ttlSeconds;
    this.cluster = isCluster(redis);
    this.sharded = shardedPubSub ?? this.cluster;
    this.claimReplication = (claimReplication?.replicas ?? 0) > 0 ? claimReplication : undefined;
  }

  async load(taskId: string): Promise<TaskRecord | undefined> {
    const [task, version] = await this.redis.hmget(this.keys.task(taskId), 'task', 'version');
    return this.decodeRecord(task ?? null, version ?? null);
  }

  /**
   * The indexes first, then the task (one script on the task's slot). On one Redis both go out
   * together and run in that order (one connection); on a Cluster the task waits for its indexes,
   * which live on other nodes. Either way a task that was written is indexed, even if this process
   * dies in between. A compare-and-set that fails has indexed anyway: the task exists (in another
   * version), and at most its score is off until its next save.
   */
  async save(record: TaskRecord, { expectedVersion }: SaveTaskOptions = {}): Promise<boolean> {
    const { task } = record;
    const indexed = this.index(task);
    if (this.cluster) await indexed;
    const saving = this.redis.fleetA2ASaveTask(
      this.keys.task(task.id),
      ...this.saveArguments(record, expectedVersion),
    );
    // In the same round trip: the replies of the publishes sent before, so one that failed fails here.
    const [, written] = await Promise.all([indexed, saving, this.confirmPublishes(task.id)]);
    return written === 1;
  }

  /**
   * One script: the write, then a PUBLISH per message, so a batch of a turn's events costs one
   * command and one round trip, and nothing is published unless the write happened (the indexes
   * as in {@link RedisTaskStore.save}).
   */
  async saveAndPublish(record: TaskRecord, messages: readonly TaskBusMessage[]): Promise<void> {
    const { task } = record;
    const indexed = this.index(task);
    if (this.cluster) await indexed;
    const saving = this.redis.fleetA2ASaveAndPublishTask(
      this.keys.task(task.id),
      this.keys.channel(task.id),
      ...this.saveArguments(record, undefined),
      this.sharded ? 'SPUBLISH' : 'PUBLISH',
      ...messages.map((message) => JSON.stringify(message)),
    );
    await Promise.all([indexed, saving, this.confirmPublishes(task.id)]);
  }

  /** ARGV of the save scripts: task JSON, version, expected version, ttl. */
  private saveArguments(record: TaskRecord, expectedVersion: number | undefined): string[] {
    return [
      JSON.stringify(record.task),
      String(record.version),
      expectedVersion === undefined ? '' : String(expectedVersion),
      String(this.ttlSeconds),
    ];
  }

  /** Adds the task to the store's index and its context's, each index a command of its own. */
  private async index(task: Task): Promise<void> {
    const args = [
      String(statusTime(task) || Date.now()),
      task.id,
      String(Date.now() - this.ttlSeconds * 1000),
      String(this.ttlSeconds),
    ];
    await Promise.all([
      this.redis.fleetA2AIndexTask(this.keys.all(), ...args),
      this.redis.fleetA2AIndexTask(this.keys.context(task.contextId), ...args),
    ]);
  }

  async list(query: TaskQuery): Promise<TaskPage> {
    const index =
      query.contextId === undefined ? this.keys.all() : this.keys.context(query.contextId);
    const offset = decodePageToken(query.pageToken);
    const filtered = query.status !== undefined || query.statusTimestampAfter !== undefined;
    if (!filtered) {
      const [entries, total] = await Promise.all([
        this.redis.zrevrange(index, offset, offset + query.pageSize - 1, 'WITHSCORES'),
        this.redis.zcard(index),
      ]);
      const tasks = await this.loadTasks(index, entries);
      const end = offset + query.pageSize;
      return { tasks, nextPageToken: end < total ? encodePageToken(end) : '', totalSize: total };
    }
    const entries = await this.redis.zrevrange(index, 0, MAX_SCANNED_TASKS - 1, 'WITHSCORES');
    const matching = (await this.loadTasks(index, entries)).filter((task) =>
      matchesQuery(task, query),
    );
    const end = offset + query.pageSize;
    return {
      tasks: matching.slice(offset, end),
      nextPageToken: end < matching.length ? encodePageToken(end) : '',
      totalSize: matching.length,
    };
  }

  async holdTurn(taskId: string, ttlMs: number): Promise<void> {
    await this.redis.set(this.keys.turn(taskId), '1', 'PX', Math.max(1, Math.round(ttlMs)));
  }

  async releaseTurn(taskId: string): Promise<void> {
    await this.redis.del(this.keys.turn(taskId));
  }

  async turnHeld(taskId: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.turn(taskId))) === 1;
  }

  async claim(taskId: string, key: string): Promise<boolean> {
    if (this.claimReplication !== undefined) {
      return claimReplicated(
        this.redis,
        {
          key: this.keys.claim(taskId, key),
          value: new Date().toISOString(),
          ttlSeconds: this.ttlSeconds,
        },
        this.claimReplication,
      );
    }
    // SET NX: only the first claim writes; it lives as long as the task does.
    const claimed = await this.redis.set(
      this.keys.claim(taskId, key),
      new Date().toISOString(),
      'EX',
      this.ttlSeconds,
      'NX',
    );
    return claimed === 'OK';
  }

  /** PUBLISH, or SPUBLISH when the store's channels are sharded. */
  private send(channel: string, text: string): Promise<unknown> {
    return this.sharded ? this.redis.spublish(channel, text) : this.redis.publish(channel, text);
  }

  /**
   * Sends the message without waiting for Redis's reply (the count of subscribers, which nobody
   * reads): commands on one connection run in order, so the publish follows the save before it and
   * precedes every later command, and a task event costs one round trip (its save) instead of two.
   * A publish that fails rejects the task's next `save`.
   */
  async publish(taskId: string, message: TaskBusMessage): Promise<void> {
    if (message.type === 'cancel') {
      // Turns listen on the store's cancel channel; a replica of an earlier version listens on
      // the task's own channel, where the request goes too.
      await this.send(
        this.keys.cancelChannel(),
        JSON.stringify({
          taskId,
          ...(message.reason === undefined ? {} : { reason: message.reason }),
        }),
      );
    }
    const sent = this.send(this.keys.channel(taskId), JSON.stringify(message));
    let pending = this.unconfirmed.get(taskId);
    if (pending === undefined) {
      pending = new Set();
      this.unconfirmed.set(taskId, pending);
    }
    pending.add(sent);
    // A publish that went through is forgotten; one that failed waits for the task's next save.
    sent.then(
      () => this.forget(taskId, sent),
      () => undefined,
    );
    await Promise.resolve();
  }

  /** Waits for the replies of the task's publishes sent so far; rejects if one failed. */
  private async confirmPublishes(taskId?: string): Promise<void> {
    const sets =
      taskId === undefined ? [...this.unconfirmed.values()] : [this.unconfirmed.get(taskId)];
    const sent = sets.flatMap((set) => (set === undefined ? [] : [...set]));
    if (sent.length === 0) return;
    for (const each of sent) if (taskId !== undefined) this.forget(taskId, each);
    if (taskId === undefined) this.unconfirmed.clear();
    await Promise.all(sent);
  }

  private forget(taskId: string, sent: Promise<unknown>): void {
    const pending = this.unconfirmed.get(taskId);
    pending?.delete(sent);
    if (pending?.size === 0) this.unconfirmed.delete(taskId);
  }

  async subscribe(
    taskId: string,
    listener: (message: TaskBusMessage) => void,
  ): Promise<Unsubscribe> {
    const channel = this.keys.channel(taskId);
    let listeners = this.listeners.get(channel);
    if (listeners === undefined) {
      listeners = new Set();
      this.listeners.set(channel, listeners);
    }
    listeners.add(listener);
    try {
      await this.listenOn(channel);
    } catch (error) {
      this.removeListener(channel, listener);
      throw error;
    }
    let active = true;
    return async () => {
      if (!active) return;
      active = false;
      if (this.removeListener(channel, listener)) {
        await this.stopListening(channel);
      }
    };
  }

  async listenForCancels(
    listener: (taskId: string, reason?: string) => void,
  ): Promise<Unsubscribe> {
    this.cancelListeners.add(listener);
    try {
      if (this.cancelListeners.size === 1) {
        await this.listenOn(this.keys.cancelChannel());
      }
    } catch (error) {
      this.cancelListeners.delete(listener);
      throw error;
    }
    let active = true;
    return async () => {
      if (!active) return;
      active = false;
      this.cancelListeners.delete(listener);
      if (this.cancelListeners.size === 0) {
        await this.stopListening(this.keys.cancelChannel());
      }
    };
  }

  async close(): Promise<void> {
    await this.confirmPublishes().catch(() => undefined);
    this.listeners.clear();
    this.cancelListeners.clear();
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect());
  }

  /** Removes a listener; true when it was the channel's last. */
  private removeListener(channel: string, listener: (message: TaskBusMessage) => void): boolean {
    const listeners = this.listeners.get(channel);
    if (listeners === undefined) return false;
    listeners.delete(listener);
    if (listeners.size > 0) return false;
    this.listeners.delete(channel);
    return true;
  }

  /** SUBSCRIBE, or SSUBSCRIBE when the store's channels are sharded. */
  private async listenOn(channel: string): Promise<void> {
    const subscriber = this.subscriberConnection();
    await (this.sharded ? subscriber.ssubscribe(channel) : subscriber.subscribe(channel));
  }

  private async stopListening(channel: string): Promise<void> {
    const subscriber = this.subscriber;
    if (subscriber === undefined) return;
    await (this.sharded ? subscriber.sunsubscribe(channel) : subscriber.unsubscribe(channel)).catch(
      () => undefined,
    );
  }

  /**
   * The subscriber connection: `redis.duplicate()`; for sharded channels on a Cluster, with
   * ioredis's `shardedSubscribers` (one subscriber connection per master, each channel read from
   * the master that owns its slot).
   */
  private subscriberConnection(): RedisConnection {
    if (this.subscriber) return this.subscriber;
    const subscriber = isCluster(this.redis)
      ? this.redis.duplicate([], this.sharded ? { shardedSubscribers: true } : {})
      : this.redis.duplicate();
    const onMessage = (channel: string, text: string): void => this.receive(channel, text);
    subscriber.on(this.sharded ? 'smessage' : 'message', onMessage);
    // Errors surface on the commands; without a listener ioredis would log them as unhandled.
    subscriber.on('error', () => undefined);
    this.subscriber = subscriber;
    return subscriber;
  }

  /** A message on one of the subscriber's channels. */
  private receive(channel: string, text: string): void {
    if (channel === this.keys.cancelChannel()) {
      const request = safeParseJson({
        text,
        schema: cancelRequestSchema,
        subject: 'A cancel request',
      });
      if (!request.success) return;
      for (const listener of [...this.cancelListeners]) {
        listener(request.value.taskId, request.value.reason);
      }
      return;
    }
    const listeners = this.listeners.get(channel);
    if (listeners === undefined) return;
    const parsed = safeParseJson({ text, schema: taskBusMessageSchema, subject: 'A task event' });
    if (!parsed.success) return;
    for (const listener of [...listeners]) listener(parsed.value);
  }

  /**
   * The tasks of index entries (`ZREVRANGE … WITHSCORES`: id, score, id, score…), each read by its
   * own command (on a Cluster the tasks live in different slots, which one pipeline cannot span;
   * ioredis sends the commands of a batch together). An entry whose task is missing is left out,
   * and removed from the index unless it is recent (a save under way writes its index entry first).
   */
  private async loadTasks(index: string, entries: readonly string[]): Promise<Task[]> {
    const tasks: Task[] = [];
    const danglingBefore = Date.now() - DANGLING_GRACE_MS;
    for (let start = 0; start < entries.length; start += LOAD_BATCH * 2) {
      const batch: { id: string; score: number }[] = [];
      for (let at = start; at < Math.min(entries.length, start + LOAD_BATCH * 2); at += 2) {
        batch.push({ id: entries[at] ?? '', score: Number(entries[at + 1]) });
      }
      const results = await Promise.all(
        batch.map(({ id }) => this.redis.hmget(this.keys.task(id), 'task', 'version')),
      );
      const dangling: string[] = [];
      results.forEach(([task, version], position) => {
        const record = this.decodeRecord(task ?? null, version ?? null);
        const entry = batch[position];
        if (record) tasks.push(record.task);
        else if (entry !== undefined && entry.score < danglingBefore) dangling.push(entry.id);
      });
      if (dangling.length > 0) await this.redis.zrem(index, ...dangling);
    }
    return tasks;
  }

  private decodeRecord(task: string | null, version: string | null): TaskRecord | undefined {
    if (task === null) return undefined;
    const parsed = safeParseJson({ text: task, schema: taskSchema, subject: 'A stored task' });
    if (!parsed.success) return undefined;
    return { task: parsed.value, version: Number(version ?? 0) };
  }
}
