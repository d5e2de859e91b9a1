import type { Cluster, Redis } from 'ioredis';
import { defineRedisScript } from './internal/redis-script';

/**
 * A key held by one owner for a while (`SET key owner NX PX ttl`); its holder renews it, and it
 * dies with its holder when the holder stops renewing.
 */
export interface Lease {
  /** Extends the lease by its TTL; false when it was lost (expired, or taken by another owner). */
  renew(): Promise<boolean>;
  /** Gives the lease up, if this owner still holds it. */
  release(): Promise<void>;
  /** Who holds it. */
  readonly owner: string;
  /** The TTL each acquire and renew sets, in milliseconds. */
  readonly ttlMs: number;
}

const renewScript = defineRedisScript(
  `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`,
);
const releaseScript = defineRedisScript(
  `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`,
);

/** Takes the lease at `key` for `owner`, or answers undefined when someone holds it. */
export async function acquireLease({
  redis,
  key,
  owner,
  ttlMs,
}: {
  redis: Redis | Cluster;
  key: string;
  owner: string;
  ttlMs: number;
}): Promise<Lease | undefined> {
  if (!Number.isInteger(ttlMs) || ttlMs <= 0) {
    throw new RangeError(`A lease TTL must be a positive integer of milliseconds, not ${ttlMs}.`);
  }
  if (owner === '') throw new RangeError('A lease owner must not be empty.');
  const taken = await redis.set(key, owner, 'PX', ttlMs, 'NX');
  if (taken === null) return undefined;
  return heldLease({ redis, key, owner, ttlMs });
}

/**
 * The lease at `key` that `owner` has just taken (by {@link acquireLease}, or in a script that
 * set it with `PX ttlMs`): renewed and released by its owner only.
 */
export function heldLease({
  redis,
  key,
  owner,
  ttlMs,
}: {
  redis: Redis | Cluster;
  key: string;
  owner: string;
  ttlMs: number;
}): Lease {
  return {
    owner,
    ttlMs,
    async renew() {
      const renewed = await renewScript.run({ redis, keys: [key], args: [owner, ttlMs] });
      return renewed === 1;
    },
    async release() {
      await releaseScript.run({ redis, keys: [key], args: [owner] });
    },
  };
}
