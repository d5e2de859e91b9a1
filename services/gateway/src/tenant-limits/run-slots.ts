import { randomUUID } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { tenantKey } from './tenant-key';

/** One held run slot: a lease renewed while it is held. */
export interface RunSlot {
  /** Gives the slot back; safe to call more than once. */
  release(): void;
}

/** Counted run slots per tenant, shared by every gateway replica through Redis. */
export interface RunSlots {
  /** Takes one of `limit` slots for the tenant; undefined when all are held. */
  acquire(tenant: string, limit: number): Promise<RunSlot | undefined>;
  /** How many of the tenant's slots are held now (leases not yet expired). */
  held(tenant: string): Promise<number>;
}

/** Options for {@link createRunSlots}. */
export interface RunSlotsOptions {
  redis: Pick<Redis, 'eval'> | Pick<Cluster, 'eval'>;
  /** Key prefix; a tenant's slots are a sorted set at `${keyPrefix}:{tenant:${tenant}}:runs` ({@link tenantKey}). */
  keyPrefix: string;
  /**
   * How long a slot outlives the last renewal: a gateway that dies holding slots frees them after
   * this. Renewed every third of it. @default 30000
   */
  leaseMs?: number;
  /** Told when a renewal fails (Redis down) or finds its lease gone. */
  onRenewFailure?: (error: unknown) => void;
}

/** Redis's own clock, so replicas with skewed clocks agree on which leases expired. */
const NOW_MS_LUA = `local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
`;

/** KEYS: the slots. ARGV: limit, lease ms, slot id. Answers 1 when taken, 0 when all are held. */
const ACQUIRE_LUA = `${NOW_MS_LUA}redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

/** KEYS: the slots. ARGV: lease ms, slot id. Answers 1 when renewed, 0 when the lease was gone. */
const RENEW_LUA = `${NOW_MS_LUA}if not redis.call('ZSCORE', KEYS[1], ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`;

/** KEYS: the slots. Answers the leases not yet expired. */
const HELD_LUA = `${NOW_MS_LUA}return redis.call('ZCOUNT', KEYS[1], now, '+inf')`;

/**
 * Concurrent-run slots as expiring leases in one sorted set per tenant (member: slot id, score:
 * when its lease ends, by Redis's clock). Taking one drops expired leases and counts the rest in
 * one script, so replicas never over-admit; the holder renews its lease every third of `leaseMs`
 * and removes it on release. A gateway that crashes stops renewing, and its slots free themselves
 * within `leaseMs`.
 *
 * @example
 * const slots = createRunSlots({ redis, keyPrefix: 'fleet:limits' });
 * const slot = await slots.acquire('acme', 20);
 * try { await run(); } finally { slot?.release(); }
 */
export function createRunSlots({
  redis,
  keyPrefix,
  leaseMs = 30_000,
  onRenewFailure = () => undefined,
}: RunSlotsOptions): RunSlots {
  const keyOf = (tenant: string): string => tenantKey(keyPrefix, tenant, 'runs');
  return {
    async acquire(tenant, limit) {
      const key = keyOf(tenant);
      const id = randomUUID();
      const taken = await redis.eval(ACQUIRE_LUA, 1, key, limit, leaseMs, id);
      if (taken !== 1) return undefined;
      const renew = (): void => {
        redis.eval(RENEW_LUA, 1, key, leaseMs, id).then(
          (renewed) => {
            if (renewed !== 1) onRenewFailure(new Error(`run slot ${id} of ${tenant} expired`));
          },
          (error: unknown) => onRenewFailure(error),
        );
      };
      const timer = setInterval(renew, Math.max(1, Math.floor(leaseMs / 3)));
      timer.unref();
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          clearInterval(timer);
          // A failed removal costs nothing lasting: the lease expires within leaseMs.
          redis
            .eval(`return redis.call('ZREM', KEYS[1], ARGV[1])`, 1, key, id)
            .catch(onRenewFailure);
        },
      };
    },
    async held(tenant) {
      return Number(await redis.eval(HELD_LUA, 1, keyOf(tenant)));
    },
  };
}
