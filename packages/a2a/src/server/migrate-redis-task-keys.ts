import type { Cluster, Redis } from 'ioredis';
import { redisTaskKeys } from './redis-task-store';

/** What {@link migrateRedisTaskKeys} moved. */
export interface TaskKeyMigration {
  /** Task hashes moved (their turn leases and claims move with them, uncounted). */
  tasks: number;
  /** Index entries carried into the new indexes. */
  indexEntries: number;
}

/** Escapes the glob characters of a literal for SCAN's MATCH. */
function globLiteral(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

/** Every key SCAN finds for a pattern: on each master of a Cluster, or on the one Redis. */
async function scanKeys(redis: Redis | Cluster, pattern: string): Promise<string[]> {
  const nodes = (redis as { isCluster?: boolean }).isCluster
    ? (redis as Cluster).nodes('master')
    : [redis as Redis];
  const found: string[] = [];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      found.push(...keys);
      cursor = next;
    } while (cursor !== '0');
  }
  return found;
}

/**
 * Copies `oldKey` to `newKey` with its TTL (DUMP/RESTORE: the two may live in different slots),
 * unless `newKey` exists (written by the new layout: newer); then drops `oldKey`. A move cut short
 * is finished by the next run. Returns true when copied.
 */
async function moveKey(redis: Redis | Cluster, oldKey: string, newKey: string): Promise<boolean> {
  let copied = false;
  if ((await redis.exists(newKey)) === 0) {
    const [dump, pttl] = await Promise.all([redis.dumpBuffer(oldKey), redis.pttl(oldKey)]);
    if (dump === null) return false;
    try {
      await redis.restore(newKey, Math.max(0, pttl), dump);
      copied = true;
    } catch (error) {
      // Written by the new layout meanwhile: newer, kept.
      if (!(error instanceof Error && error.message.startsWith('BUSYKEY'))) throw error;
    }
  }
  await redis.del(oldKey);
  return copied;
}

const MERGE_BATCH = 500;

/**
 * Adds the entries of index `oldKey` to `newKey` (an entry already there keeps the higher score:
 * ZADD GT), keeps the longer TTL, and drops `oldKey`. Returns how many entries were read.
 */
async function mergeIndex(redis: Redis | Cluster, oldKey: string, newKey: string): Promise<number> {
  const [entries, ttl] = await Promise.all([
    redis.zrange(oldKey, 0, -1, 'WITHSCORES'),
    redis.ttl(oldKey),
  ]);
  for (let start = 0; start < entries.length; start += MERGE_BATCH * 2) {
    const pairs: string[] = [];
    for (let at = start; at < Math.min(entries.length, start + MERGE_BATCH * 2); at += 2) {
      pairs.push(entries[at + 1] ?? '0', entries[at] ?? '');
    }
    await redis.zadd(newKey, 'GT', ...pairs);
  }
  if (ttl > 0 && (await redis.ttl(newKey)) < ttl) await redis.expire(newKey, ttl);
  await redis.del(oldKey);
  return entries.length / 2;
}

/** The key of the current layout for a key under `<prefix>:task:` (a task, its turn, a claim). */
async function newTaskKey(
  redis: Redis | Cluster,
  keyPrefix: string,
  oldKey: string,
): Promise<{ key: string; isTask: boolean }> {
  const keys = redisTaskKeys(keyPrefix);
  const rest = oldKey.slice(`${keyPrefix}:task:`.length);
  const claim = /^(.+?):claim:(.*)$/s.exec(rest);
  if (claim?.[1] !== undefined && claim[2] !== undefined) {
    return { key: keys.claim(claim[1], claim[2]), isTask: false };
  }
  const turn = /^(.+):turn$/s.exec(rest);
  if (turn?.[1] !== undefined && (await redis.type(oldKey)) === 'string') {
    return { key: keys.turn(turn[1]), isTask: false };
  }
  return { key: keys.task(rest), isTask: true };
}

/**
 * Moves the keys of a `RedisTaskStore` written before its Redis Cluster layout
 * (`<prefix>:task:<id>`, `<prefix>:task:<id>:turn`, `<prefix>:task:<id>:claim:<key>`,
 * `<prefix>:tasks`, `<prefix>:context:<contextId>`) to the current one (`<prefix>:{<id>}:task`, …;
 * {@link redisTaskKeys}), keeping their TTLs. Idempotent: a key already in the new layout is kept
 * (it is newer) and the old one dropped; a run cut short is finished by the next, and a second
 * run finds nothing to do.
 *
 * Run it once no replica of the earlier version writes, on the one Redis or on the Cluster the
 * data was moved to (every master is scanned; the new keys may live in other slots, so keys are
 * copied with DUMP/RESTORE, not renamed). Tasks not migrated are not corrupted: they expire after
 * the store's TTL, but the new layout does not see them.
 *
 * @example
 * await migrateRedisTaskKeys({ redis, keyPrefix: 'fleet:a2a:planner' });
 */
export async function migrateRedisTaskKeys({
  redis,
  keyPrefix = 'fleet:a2a',
}: {
  /** One Redis, or a Cluster (every master is scanned). */
  redis: Redis | Cluster;
  keyPrefix?: string;
}): Promise<TaskKeyMigration> {
  const keys = redisTaskKeys(keyPrefix);
  const migration: TaskKeyMigration = { tasks: 0, indexEntries: 0 };
  for (const oldKey of await scanKeys(redis, `${globLiteral(`${keyPrefix}:task:`)}*`)) {
    const { key, isTask } = await newTaskKey(redis, keyPrefix, oldKey);
    if ((await moveKey(redis, oldKey, key)) && isTask) migration.tasks += 1;
  }
  const indexes: [string, string][] = [[`${keyPrefix}:tasks`, keys.all()]];
  const contextPrefix = `${keyPrefix}:context:`;
  for (const oldKey of await scanKeys(redis, `${globLiteral(contextPrefix)}*`)) {
    indexes.push([oldKey, keys.context(oldKey.slice(contextPrefix.length))]);
  }
  for (const [oldKey, newKey] of indexes) {
    migration.indexEntries += await mergeIndex(redis, oldKey, newKey);
  }
  return migration;
}
