import type { Redis } from 'ioredis';
import { redisTaskKeys } from './redis-task-store';

/** What {@link migrateRedisTaskKeys} moved. */
export interface TaskKeyMigration {
  /** Task hashes renamed (with their turn leases and claims). */
  tasks: number;
  /** Index entries carried into the new indexes. */
  indexEntries: number;
}

/** Escapes the glob characters of a literal for SCAN's MATCH. */
function globLiteral(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

/** Every key SCAN finds for a pattern. */
async function scanKeys(redis: Redis, pattern: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
    found.push(...keys);
    cursor = next;
  } while (cursor !== '0');
  return found;
}

// Moves KEYS[1] to KEYS[2] unless KEYS[2] exists (written by the new layout: newer); drops KEYS[1]
// either way. RENAME keeps the TTL. Returns 1 when moved.
const MOVE_LUA = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('DEL', KEYS[1]) return 0 end
redis.call('RENAME', KEYS[1], KEYS[2])
return 1`;

// Adds the entries of index KEYS[1] to index KEYS[2] (an entry already there keeps the higher
// score), keeps the longer TTL, and drops KEYS[1]. Returns how many entries were read.
const MERGE_INDEX_LUA = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local count = redis.call('ZCARD', KEYS[1])
local ttl = redis.call('TTL', KEYS[1])
redis.call('ZUNIONSTORE', KEYS[2], 2, KEYS[1], KEYS[2], 'AGGREGATE', 'MAX')
if ttl > 0 and redis.call('TTL', KEYS[2]) < ttl then redis.call('EXPIRE', KEYS[2], ttl) end
redis.call('DEL', KEYS[1])
return count`;

/**
 * Renames the keys of a {@link RedisTaskStore} written before its Redis Cluster layout
 * (`<prefix>:task:<id>`, `<prefix>:task:<id>:turn`, `<prefix>:task:<id>:claim:<key>`,
 * `<prefix>:tasks`, `<prefix>:context:<contextId>`) to the current one (`<prefix>:{<id>}:task`, …;
 * {@link redisTaskKeys}), keeping their TTLs. Idempotent: a key already in the new layout is kept
 * (it is newer) and the old one dropped, and a second run finds nothing to do.
 *
 * It runs on one Redis (SCAN, RENAME across slots): run it before moving the data to a cluster,
 * while no replica of the old version writes. Tasks not migrated are not lost data: they expire
 * after the store's TTL, but the new layout does not see them.
 */
export async function migrateRedisTaskKeys({
  redis,
  keyPrefix = 'fleet:a2a',
}: {
  redis: Redis;
  keyPrefix?: string;
}): Promise<TaskKeyMigration> {
  const keys = redisTaskKeys(keyPrefix);
  const taskPrefix = `${keyPrefix}:task:`;
  const migration: TaskKeyMigration = { tasks: 0, indexEntries: 0 };
  for (const oldKey of await scanKeys(redis, `${globLiteral(taskPrefix)}*`)) {
    const rest = oldKey.slice(taskPrefix.length);
    const claim = /^(.+?):claim:(.*)$/s.exec(rest);
    const turn = /^(.+):turn$/s.exec(rest);
    const newKey =
      claim?.[1] !== undefined && claim[2] !== undefined
        ? keys.claim(claim[1], claim[2])
        : turn?.[1] !== undefined && (await redis.type(oldKey)) === 'string'
          ? keys.turn(turn[1])
          : keys.task(rest);
    const moved = await redis.eval(MOVE_LUA, 2, oldKey, newKey);
    if (moved === 1 && newKey === keys.task(rest)) migration.tasks += 1;
  }
  const indexes: [string, string][] = [[`${keyPrefix}:tasks`, keys.all()]];
  const contextPrefix = `${keyPrefix}:context:`;
  for (const oldKey of await scanKeys(redis, `${globLiteral(contextPrefix)}*`)) {
    indexes.push([oldKey, keys.context(oldKey.slice(contextPrefix.length))]);
  }
  for (const [oldKey, newKey] of indexes) {
    migration.indexEntries += Number(await redis.eval(MERGE_INDEX_LUA, 2, oldKey, newKey));
  }
  return migration;
}
