import type { Redis } from 'ioredis';
import { setIndexes } from './internal/session-indexes';
import { sessionKeys, type SessionKeys } from './internal/session-keys';
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
  const migration: Migration = {
    redis,
    keys: sessionKeys(keyPrefix),
    old: {
      keyPrefix: from.keyPrefix ?? 'fleet:session',
      lockPrefix: from.lockPrefix ?? 'fleet:lock:session',
      leasePrefix: from.leasePrefix ?? 'fleet:lease:session',
    },
    ttlSeconds,
    scanCount,
    onProgress,
    result: { sessions: 0, leases: 0, locks: 0, indexed: 0, unreadable: 0, oldIndexes: 0 },
  };
  await moveOldKeys(migration);
  await rebuildIndexes(migration);
  await dropOldIndexes(migration);
  return migration.result;
}

/** One migration's settings and what it has done so far. */
interface Migration {
  redis: Redis;
  keys: SessionKeys;
  old: Required<OldSessionLayout>;
  ttlSeconds: number;
  scanCount: number;
  onProgress: ((progress: MigrationProgress) => void) | undefined;
  result: MigrationResult;
}

/**
 * Calls `each` for every key SCAN finds for `pattern`, reporting progress as `phase`; keys of the
 * new layout (which an old pattern may match when the prefixes overlap) are skipped unless
 * `newLayout` is set.
 */
async function scanEach(
  migration: Migration,
  {
    pattern,
    phase,
    newLayout = false,
  }: { pattern: string; phase: MigrationProgress['phase']; newLayout?: boolean },
  each: (key: string) => Promise<void>,
): Promise<void> {
  const { redis, keys, scanCount, onProgress } = migration;
  let cursor = '0';
  let done = 0;
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', scanCount);
    cursor = next;
    for (const key of found) {
      if (!newLayout && key.startsWith(`${keys.prefix}:{`)) continue;
      await each(key);
      done += 1;
    }
    onProgress?.({ phase, done });
  } while (cursor !== '0');
}

/** Renames `from` to `to`, or drops `from` when `to` exists already (it is newer). */
async function move(redis: Redis, from: string, to: string): Promise<void> {
  if ((await redis.renamenx(from, to)) === 0) await redis.del(from);
}

/** Step 1: sessions and leases to their new names; old locks deleted. */
async function moveOldKeys(migration: Migration): Promise<void> {
  const { redis, keys, old, result } = migration;
  await scanEach(
    migration,
    { pattern: `${glob(old.keyPrefix)}:*`, phase: 'sessions' },
    async (key) => {
      if ((await redis.type(key)) !== 'string') return;
      await move(redis, key, keys.session(key.slice(old.keyPrefix.length + 1)));
      result.sessions += 1;
    },
  );
  await scanEach(
    migration,
    { pattern: `${glob(old.leasePrefix)}:*`, phase: 'leases' },
    async (key) => {
      const rest = key.slice(old.leasePrefix.length + 1);
      const kind = rest.startsWith('runner:')
        ? 'runner'
        : rest.startsWith('attach:')
          ? 'attach'
          : '';
      if (kind === '') return;
      await move(redis, key, keys.lease(kind, rest.slice(kind.length + 1)));
      result.leases += 1;
    },
  );
  await scanEach(
    migration,
    { pattern: `${glob(old.lockPrefix)}:*`, phase: 'locks' },
    async (key) => {
      result.locks += await redis.del(key);
    },
  );
}

/** Step 2: every index, from the sessions of the new layout themselves. */
async function rebuildIndexes(migration: Migration): Promise<void> {
  const { redis, keys, ttlSeconds, result } = migration;
  const head = `${keys.prefix}:{`;
  const tail = '}:session';
  await scanEach(
    migration,
    { pattern: keys.sessionPattern(), phase: 'indexes', newLayout: true },
    async (key) => {
      const id = key.slice(head.length, key.length - tail.length);
      if (keys.session(id) !== key) return;
      const [text, pttl] = await Promise.all([redis.get(key), redis.pttl(key)]);
      if (text === null) return;
      const session = readSession(text);
      if (session === undefined) {
        result.unreadable += 1;
        return;
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
    },
  );
}

/** Step 3: the old indexes, once the new ones are built. */
async function dropOldIndexes(migration: Migration): Promise<void> {
  const { redis, old, result } = migration;
  result.oldIndexes += await redis.del(
    `${old.keyPrefix}s:pending-approvals`,
    `${old.keyPrefix}s:active`,
  );
  await scanEach(
    migration,
    { pattern: `${glob(old.keyPrefix)}s:tenant:*`, phase: 'old-indexes' },
    async (key) => {
      result.oldIndexes += await redis.del(key);
    },
  );
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
