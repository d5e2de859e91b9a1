import type { Redis } from 'ioredis';
import { z } from 'zod';
import { safeParseJson } from '@fleet/errors';
import { type StreamResponse, type Task, taskSchema } from '../schemas/core';
import { decodePageToken, encodePageToken, matchesQuery, statusTime } from './internal/task-query';
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
  /** The connection for commands; the store duplicates it once for its subscriptions. */
  redis: Redis;
  /** Prefix of every key and channel. @default 'fleet:a2a' */
  keyPrefix?: string;
  /** How long a task is kept after its last change. @default 604800 (7 days) */
  ttlSeconds?: number;
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

// The write both save scripts end with: the task, its TTL and its two indexes.
// KEYS: task hash, index of all tasks, index of the task's context.
// ARGV: task JSON, version, expected version ('' = any), ttl seconds, score, task id, cutoff score.
const WRITE_TASK_LUA = `
redis.call('HSET', KEYS[1], 'task', ARGV[1], 'version', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[4])
for i = 2, 3 do
  redis.call('ZADD', KEYS[i], ARGV[5], ARGV[6])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', ARGV[7])
  redis.call('EXPIRE', KEYS[i], ARGV[4])
end`;

// The write, after a compare-and-set on the version when ARGV[3] names one. KEYS, ARGV: as above.
const SAVE_SCRIPT = `
if ARGV[3] ~= '' then
  local current = redis.call('HGET', KEYS[1], 'version') or '0'
  if current ~= ARGV[3] then return 0 end
end${WRITE_TASK_LUA}
return 1
`;

// The write (no compare-and-set), then a PUBLISH of each message after the first seven arguments,
// in order: a batch of a turn's events in one round trip, published only once saved.
// KEYS: as above, then the task's channel. ARGV: as above, then the messages.
const SAVE_AND_PUBLISH_SCRIPT = `${WRITE_TASK_LUA}
for i = 8, #ARGV do
  redis.call('PUBLISH', KEYS[4], ARGV[i])
end
return 1
`;

/** The scripts as ioredis commands (`defineCommand`): EVALSHA, or EVAL when Redis lacks them. */
interface SaveTaskCommands {
  fleetA2ASaveTask(
    taskKey: string,
    allKey: string,
    contextKey: string,
    ...args: string[]
  ): Promise<unknown>;
  fleetA2ASaveAndPublishTask(
    taskKey: string,
    allKey: string,
    contextKey: string,
    channel: string,
    ...args: string[]
  ): Promise<unknown>;
}

/** The client with the save commands, defined once per client (a client may be shared). */
function withSaveCommands(redis: Redis): Redis & SaveTaskCommands {
  const commands = redis as Redis & Partial<SaveTaskCommands>;
  if (typeof commands.fleetA2ASaveTask !== 'function') {
    redis.defineCommand('fleetA2ASaveTask', { numberOfKeys: 3, lua: SAVE_SCRIPT });
  }
  if (typeof commands.fleetA2ASaveAndPublishTask !== 'function') {
    redis.defineCommand('fleetA2ASaveAndPublishTask', {
      numberOfKeys: 4,
      lua: SAVE_AND_PUBLISH_SCRIPT,
    });
  }
  return redis as Redis & SaveTaskCommands;
}

/** How many ids a filtered `list` reads from an index at most. */
const MAX_SCANNED_TASKS = 10_000;
const LOAD_BATCH = 500;

/**
 * A {@link TaskStore} in Redis, shared by every replica of an agent (docs/architecture.md §4):
 *
 * - each task is a hash `<prefix>:task:<id>` (`task` as JSON, `version`), expiring `ttlSeconds`
 *   after its last change; writes are one Lua script, so compare-and-set is atomic;
 * - sorted sets `<prefix>:tasks` and `<prefix>:context:<contextId>` (score: status time) index
 *   `ListTasks`;
 * - events go out on the channel `<prefix>:events:<id>`, read through one subscriber connection
 *   (`redis.duplicate()`, opened on the first `subscribe`).
 *
 * @example
 * const store = new RedisTaskStore({ redis: new Redis(config.redisUrl), keyPrefix: 'fleet:a2a:planner' });
 */
export class RedisTaskStore implements TaskStore {
  private readonly redis: Redis & SaveTaskCommands;
  private readonly keyPrefix: string;
  private readonly ttlSeconds: number;
  private subscriber: Redis | undefined;
  private readonly listeners = new Map<string, Set<(message: TaskBusMessage) => void>>();
  private readonly cancelListeners = new Set<(taskId: string, reason?: string) => void>();
  /** Per task, publishes sent whose reply has not been read yet (see {@link RedisTaskStore.publish}). */
  private readonly unconfirmed = new Map<string, Set<Promise<unknown>>>();

  constructor({
    redis,
    keyPrefix = 'fleet:a2a',
    ttlSeconds = 7 * 24 * 3600,
  }: RedisTaskStoreOptions) {
    this.redis = withSaveCommands(redis);
    this.keyPrefix = keyPrefix;
    this.ttlSeconds = ttlSeconds;
  }

  async load(taskId: string): Promise<TaskRecord | undefined> {
    const [task, version] = await this.redis.hmget(this.taskKey(taskId), 'task', 'version');
    return this.decodeRecord(task ?? null, version ?? null);
  }

  async save(record: TaskRecord, { expectedVersion }: SaveTaskOptions = {}): Promise<boolean> {
    const { task } = record;
    const saving = this.redis.fleetA2ASaveTask(
      this.taskKey(task.id),
      this.allKey(),
      this.contextKey(task.contextId),
      ...this.saveArguments(record, expectedVersion),
    );
    // In the same round trip: the replies of the publishes sent before, so one that failed fails here.
    const [written] = await Promise.all([saving, this.confirmPublishes(task.id)]);
    return written === 1;
  }

  /**
   * One script: the write, then a PUBLISH per message, so a batch of a turn's events costs one
   * command and one round trip, and nothing is published unless the write happened.
   */
  async saveAndPublish(record: TaskRecord, messages: readonly TaskBusMessage[]): Promise<void> {
    const { task } = record;
    const saving = this.redis.fleetA2ASaveAndPublishTask(
      this.taskKey(task.id),
      this.allKey(),
      this.contextKey(task.contextId),
      this.channel(task.id),
      ...this.saveArguments(record, undefined),
      ...messages.map((message) => JSON.stringify(message)),
    );
    await Promise.all([saving, this.confirmPublishes(task.id)]);
  }

  /** ARGV of the save scripts: task JSON, version, expected version, ttl, score, id, cutoff. */
  private saveArguments(record: TaskRecord, expectedVersion: number | undefined): string[] {
    const { task } = record;
    const score = statusTime(task) || Date.now();
    return [
      JSON.stringify(task),
      String(record.version),
      expectedVersion === undefined ? '' : String(expectedVersion),
      String(this.ttlSeconds),
      String(score),
      task.id,
      String(Date.now() - this.ttlSeconds * 1000),
    ];
  }

  async list(query: TaskQuery): Promise<TaskPage> {
    const index = query.contextId === undefined ? this.allKey() : this.contextKey(query.contextId);
    const offset = decodePageToken(query.pageToken);
    const filtered = query.status !== undefined || query.statusTimestampAfter !== undefined;
    if (!filtered) {
      const [ids, total] = await Promise.all([
        this.redis.zrevrange(index, offset, offset + query.pageSize - 1),
        this.redis.zcard(index),
      ]);
      const tasks = await this.loadTasks(index, ids);
      const end = offset + query.pageSize;
      return { tasks, nextPageToken: end < total ? encodePageToken(end) : '', totalSize: total };
    }
    const ids = await this.redis.zrevrange(index, 0, MAX_SCANNED_TASKS - 1);
    const matching = (await this.loadTasks(index, ids)).filter((task) => matchesQuery(task, query));
    const end = offset + query.pageSize;
    return {
      tasks: matching.slice(offset, end),
      nextPageToken: end < matching.length ? encodePageToken(end) : '',
      totalSize: matching.length,
    };
  }

  async holdTurn(taskId: string, ttlMs: number): Promise<void> {
    await this.redis.set(`${this.taskKey(taskId)}:turn`, '1', 'PX', Math.max(1, Math.round(ttlMs)));
  }

  async releaseTurn(taskId: string): Promise<void> {
    await this.redis.del(`${this.taskKey(taskId)}:turn`);
  }

  async turnHeld(taskId: string): Promise<boolean> {
    return (await this.redis.exists(`${this.taskKey(taskId)}:turn`)) === 1;
  }

  async claim(taskId: string, key: string): Promise<boolean> {
    // SET NX: only the first claim writes; it lives as long as the task does.
    const claimed = await this.redis.set(
      `${this.taskKey(taskId)}:claim:${key}`,
      new Date().toISOString(),
      'EX',
      this.ttlSeconds,
      'NX',
    );
    return claimed === 'OK';
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
      await this.redis.publish(
        this.cancelChannel(),
        JSON.stringify({
          taskId,
          ...(message.reason === undefined ? {} : { reason: message.reason }),
        }),
      );
    }
    const sent = this.redis.publish(this.channel(taskId), JSON.stringify(message));
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
    const channel = this.channel(taskId);
    let listeners = this.listeners.get(channel);
    if (listeners === undefined) {
      listeners = new Set();
      this.listeners.set(channel, listeners);
    }
    listeners.add(listener);
    try {
      await this.subscriberConnection().subscribe(channel);
    } catch (error) {
      this.removeListener(channel, listener);
      throw error;
    }
    let active = true;
    return async () => {
      if (!active) return;
      active = false;
      if (this.removeListener(channel, listener)) {
        await this.subscriber?.unsubscribe(channel).catch(() => undefined);
      }
    };
  }

  async listenForCancels(
    listener: (taskId: string, reason?: string) => void,
  ): Promise<Unsubscribe> {
    this.cancelListeners.add(listener);
    try {
      if (this.cancelListeners.size === 1) {
        await this.subscriberConnection().subscribe(this.cancelChannel());
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
        await this.subscriber?.unsubscribe(this.cancelChannel()).catch(() => undefined);
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

  private subscriberConnection(): Redis {
    if (this.subscriber) return this.subscriber;
    const subscriber = this.redis.duplicate();
    subscriber.on('message', (channel: string, text: string) => {
      if (channel === this.cancelChannel()) {
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
    });
    // Errors surface on the commands; without a listener ioredis would log them as unhandled.
    subscriber.on('error', () => undefined);
    this.subscriber = subscriber;
    return subscriber;
  }

  private async loadTasks(index: string, ids: readonly string[]): Promise<Task[]> {
    const tasks: Task[] = [];
    for (let start = 0; start < ids.length; start += LOAD_BATCH) {
      const batch = ids.slice(start, start + LOAD_BATCH);
      const pipeline = this.redis.pipeline();
      for (const id of batch) pipeline.hmget(this.taskKey(id), 'task', 'version');
      const results = (await pipeline.exec()) ?? [];
      const expired: string[] = [];
      results.forEach(([error, value], position) => {
        const values = error ? undefined : (value as (string | null)[]);
        const record = values ? this.decodeRecord(values[0] ?? null, values[1] ?? null) : undefined;
        if (record) tasks.push(record.task);
        else if (!error) expired.push(batch[position] ?? '');
      });
      if (expired.length > 0) await this.redis.zrem(index, ...expired);
    }
    return tasks;
  }

  private decodeRecord(task: string | null, version: string | null): TaskRecord | undefined {
    if (task === null) return undefined;
    const parsed = safeParseJson({ text: task, schema: taskSchema, subject: 'A stored task' });
    if (!parsed.success) return undefined;
    return { task: parsed.value, version: Number(version ?? 0) };
  }

  private taskKey(taskId: string): string {
    return `${this.keyPrefix}:task:${taskId}`;
  }

  private allKey(): string {
    return `${this.keyPrefix}:tasks`;
  }

  private contextKey(contextId: string): string {
    return `${this.keyPrefix}:context:${contextId}`;
  }

  private channel(taskId: string): string {
    return `${this.keyPrefix}:events:${taskId}`;
  }

  /** The one channel cancel requests of every task of this store go on. */
  private cancelChannel(): string {
    return `${this.keyPrefix}:cancels`;
  }
}
