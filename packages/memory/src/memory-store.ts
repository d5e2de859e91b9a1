import type { Cluster, Redis } from 'ioredis';
import { ConflictError, safeParseJson } from '@fleet/errors';
import { compareAndSet } from './internal/compare-and-set';
import { mergeMemory } from './merge-memory';
import {
  emptyMemory,
  userMemorySchema,
  type MemoryOwner,
  type MemorySource,
  type MemoryUpdate,
  type UserMemory,
} from './memory-schema';

/** Long-term memory per tenant and user. */
export interface MemoryStore {
  /** What is known; an empty memory when nothing is (or the stored value is unreadable). */
  get(owner: MemoryOwner): Promise<UserMemory>;
  /**
   * Merges what was just learnt into what is known ({@link mergeMemory}: newer wins per key) and
   * stores the result atomically (concurrent merges for one user both land). Returns the memory
   * as stored. An update that changes nothing writes nothing.
   */
  merge(
    owner: MemoryOwner,
    change: { update: MemoryUpdate; source: MemorySource; now?: Date },
  ): Promise<UserMemory>;
  /** Erases everything known about the user. Resolves true when something was stored. */
  delete(owner: MemoryOwner): Promise<boolean>;
}

/** Logging the store needs. */
export interface MemoryStoreLogger {
  warn(object: object, message?: string): void;
}

/** Options for {@link createMemoryStore}. */
export interface CreateMemoryStoreOptions {
  /** One Redis or a Redis Cluster: every command touches one key. */
  redis: Redis | Cluster;
  /** Keys are `<prefix>:<tenant>:<user>`. @default 'fleet:memory' */
  keyPrefix?: string;
  /** A user's memory expires this long after its last change; 0 keeps it. @default 0 */
  ttlSeconds?: number;
  logger?: MemoryStoreLogger | undefined;
}

/** Attempts of one merge when other merges for the same user keep landing first. */
const MAX_MERGE_ATTEMPTS = 8;

/**
 * The memory store in Redis: one JSON value per user at `fleet:memory:{tenant}:{user}` (the user
 * id URI-encoded), parsed with zod on every read. Merges are read–merge–compare-and-set, retried
 * when another merge for the same user landed in between. The tenant always comes from the
 * caller's credentials, so one tenant's keys are never read for another.
 *
 * @example
 * const store = createMemoryStore({ redis });
 * await store.merge({ tenant: 'acme', user: 'u-1' }, { update: { facts: { name: 'Ada' }, preferences: {} }, source: 'rules' });
 * (await store.get({ tenant: 'acme', user: 'u-1' })).facts.name?.value; // 'Ada'
 */
export function createMemoryStore({
  redis,
  keyPrefix = 'fleet:memory',
  ttlSeconds = 0,
  logger,
}: CreateMemoryStoreOptions): MemoryStore {
  const keyOf = ({ tenant, user }: MemoryOwner): string =>
    `${keyPrefix}:${tenant}:${encodeURIComponent(user)}`;

  const parse = (owner: MemoryOwner, raw: string | null): UserMemory => {
    if (raw === null) return emptyMemory();
    const parsed = safeParseJson({ text: raw, schema: userMemorySchema, subject: 'Stored memory' });
    if (parsed.success) return parsed.value;
    logger?.warn(
      { tenant: owner.tenant, err: parsed.error },
      'stored memory is unreadable; treating it as empty',
    );
    return emptyMemory();
  };

  return {
    async get(owner) {
      return parse(owner, await redis.get(keyOf(owner)));
    },
    async merge(owner, { update, source, now }) {
      const key = keyOf(owner);
      for (let attempt = 0; attempt < MAX_MERGE_ATTEMPTS; attempt += 1) {
        const raw = await redis.get(key);
        const current = parse(owner, raw);
        const next = mergeMemory({
          current,
          update,
          source,
          ...(now === undefined ? {} : { now }),
        });
        if (next === current) return current;
        const stored = await compareAndSet({
          redis,
          key,
          expected: raw ?? undefined,
          value: JSON.stringify(next),
          ttlSeconds,
        });
        if (stored) return next;
      }
      throw new ConflictError('The memory changed too often to merge; try again.');
    },
    async delete(owner) {
      return (await redis.del(keyOf(owner))) > 0;
    },
  };
}
