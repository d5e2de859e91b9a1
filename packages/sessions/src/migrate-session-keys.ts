import type { Redis } from 'ioredis';
import { setIndexes } from './internal/session-indexes';
import { sessionKeys } from './internal/session-keys';
import { isActiveStatus, sessionSchema, type Session } from './session-schema';

/**
 * The key layout before Redis Cluster support (a single Redis only), by its prefixes:
 *
 * | old (defaults)                              | new (./internal/session-keys.ts)          |
 * | ------------------------------------------- | ----------------------------------------- |
 * | `fleet:session:<id>` (JSON)                 | `fleet:{<id>}:session`                    |
 * | `fleet:lock:session:<id>`                   | `fleet:{<id>}:lock`                       |
 * | `fleet:lease:session:runner:<id>`           | `fleet:{<id>}:lease:runner`               |
 * | `fleet:lease:session:attach:<id>`           | `fleet:{<id>}:lease:attach`               |
 * | channel `fleet:session:<id>:events`         | channel `fleet:{<id>}:events`             |
 * | `fleet:sessions:tenant:<tenant>` (zset)     | `fleet:{tenant:<tenant>}:sessions`        |
 * | —                                           | `fleet:{tenant:<tenant>}:pending-approvals` (set) |
 * | `fleet:sessions:pending-approvals` (set)    | `fleet:{sessions}:pending-approvals` (hash id → tenant) |
 * | `fleet:sessions:active` (set)               | `fleet:{sessions}:active`                 |
 */
export interface OldSessionLayout {
  /** @default 'fleet:session' (indexes at `${keyPrefix}s:…`) */
  keyPrefix?: string;
  /** @default 'fleet:lock:session' */
  lockPrefix?: string;
  /** @default 'fleet:lease:session' */
  leasePrefix?: string;
}

/** How far {@link migrateSessionKeys} is: the keys of `phase` handled so far. */
export interface MigrationProgress {
  phase: 'sessions' | 'leases' | 'locks' | 'indexes' | 'old-indexes';
  done: number;
}

/** Options for {@link migrateSessionKeys}. */
export interface MigrateSessionKeysOptions {
  /** The old layout's prefixes (as the store was configured). @default the old defaults */
  from?: OldSessionLayout;
  /** The new layout's `keyPrefix` (as the store is configured). @default 'fleet' */
  keyPrefix?: string;
  /**
   * The TTL of a rebuilt tenant index when its session has none (the store's `ttlSeconds`);
   * otherwise an index lives as long as its longest-lived session. @default 604800
   */
  ttlSeconds?: number;
  /** Keys per SCAN step. @default 500 */
  scanCount?: number;
  onProgress?: (progress: MigrationProgress) => void;
}

/** What {@link migrateSessionKeys} did. */
export interface MigrationResult {
  /** Sessions renamed to the new layout (an old copy of a session already moved is deleted). */
  sessions: number;
  leases: number;
  /** Old lock keys deleted (a lock lives seconds; none is held while the fleet is stopped). */
  locks: number;
  /** Sessions of the new layout whose index entries were set. */
  indexed: number;
  /** Sessions that could not be read (left as they are, not indexed). */
  unreadable: number;
  /** Old index keys deleted. */
  oldIndexes: number;
}

/**
 * Moves a single Redis's session keys from the layout before Redis Cluster support to the
 * current one ({@link OldSessionLayout} lists both), for a deployment that is stopped (no store
 * writing meanwhile):
 *
 * 1. renames each old session JSON and lease (`RENAMENX`, keeping its TTL; an old key whose new
 *    name already exists is deleted — the new one is newer), and deletes old locks;
 * 2. rebuilds every index from the sessions of the new layout (the tenant indexes keep creation
 *    time as the score, the pending-approvals indexes gain the tenant), as the store keeps them;
 * 3. deletes the old indexes.
 *
 * Idempotent, and safe to run again after it stopped half-way: step 2 reads the sessions, not
 * the old indexes, and step 3 runs only after it. Run it on the single Redis, before moving the
 * data to a Redis Cluster (it renames across slots).
 *
 * @example
 * const result = await migrateSessionKeys(redis, {
 *   onProgress: ({ phase, done }) => console.log(`${phase}: ${done}`),
 * });
 */
export async function migrateSessionKeys(
  redis: Redis,
  {
    from = {},
    keyPrefix,
    ttlSeconds = 604_800,
    scanCount = 500,
    onProgress,
  }: MigrateSessionKeysOptions = {},
): Promise<MigrationResult> {
  const keys = sessionKeys(keyPrefix);
  const old = {
    keyPrefix: from.keyPrefix ?? 'fleet:session',
    lockPrefix: from.lockPrefix ?? 'fleet:lock:session',
    leasePrefix: from.leasePrefix ?? 'fleet:lease:session',
  };
  const result: MigrationResult = {
    sessions: 0,
    leases: 0,
    locks: 0,
    indexed: 0,
    unreadable: 0,
    oldIndexes: 0,
  };
  /** A key of the new layout (which an old pattern may match when the prefixes overlap). */
  const isNew = (key: string) => key.startsWith(`${keys.prefix}:{`);
  const scan = async (
    pattern: string,
    phase: MigrationProgress['phase'],
    each: (key: string) => Promise<void>,
  ) => {
    let cursor = '0';
    let done = 0;
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', scanCount);
      cursor = next;
      for (const key of found) {
        if (isNew(key)) continue;
        await each(key);
        done += 1;
      }
      onProgress?.({ phase, done });
    } while (cursor !== '0');
  };
  const move = async (from: string, to: string): Promise<void> => {
    if ((await redis.renamenx(from, to)) === 0) await redis.del(from);
  };

  // 1. Sessions, leases, locks.
  await scan(`${glob(old.keyPrefix)}:*`, 'sessions', async (key) => {
    if ((await redis.type(key)) !== 'string') return;
    await move(key, keys.session(key.slice(old.keyPrefix.length + 1)));
    result.sessions += 1;
  });
  await scan(`${glob(old.leasePrefix)}:*`, 'leases', async (key) => {
    const rest = key.slice(old.leasePrefix.length + 1);
    const kind = rest.startsWith('runner:') ? 'runner' : rest.startsWith('attach:') ? 'attach' : '';
    if (kind === '') return;
    await move(key, keys.lease(kind, rest.slice(kind.length + 1)));
    result.leases += 1;
  });
  await scan(`${glob(old.lockPrefix)}:*`, 'locks', async (key) => {
    result.locks += await redis.del(key);
  });

  // 2. Every index, from the sessions themselves.
  let cursor = '0';
  let done = 0;
  const head = `${keys.prefix}:{`;
  const tail = '}:session';
  do {
    const [next, found] = await redis.scan(
      cursor,
      'MATCH',
      keys.sessionPattern(),
      'COUNT',
      scanCount,
    );
    cursor = next;
    for (const key of found) {
      const id = key.slice(head.length, key.length - tail.length);
      if (keys.session(id) !== key) continue;
      const [text, pttl] = await Promise.all([redis.get(key), redis.pttl(key)]);
      if (text === null) continue;
      const session = readSession(text);
      if (session === undefined) {
        result.unreadable += 1;
        continue;
      }
      await setIndexes(
        { redis, keys },
        {
          id,
          tenant: session.tenant,
          createdAtMs: Date.parse(session.createdAt) || 0,
          ttlMs: pttl > 0 ? pttl : ttlSeconds * 1000,
          pending: Object.values(session.approvals).some((a) => a.status === 'pending'),
          active: isActiveStatus(session.status),
        },
      );
      result.indexed += 1;
      done += 1;
    }
    onProgress?.({ phase: 'indexes', done });
  } while (cursor !== '0');

  // 3. The old indexes.
  result.oldIndexes += await redis.del(
    `${old.keyPrefix}s:pending-approvals`,
    `${old.keyPrefix}s:active`,
  );
  await scan(`${glob(old.keyPrefix)}s:tenant:*`, 'old-indexes', async (key) => {
    result.oldIndexes += await redis.del(key);
  });
  return result;
}

/** A stored session, or undefined when it is not one. */
function readSession(text: string): Session | undefined {
  try {
    const parsed = sessionSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** `text` with glob characters escaped, for SCAN MATCH. */
function glob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}
