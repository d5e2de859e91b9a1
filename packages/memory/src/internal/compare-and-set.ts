import type { Cluster, Redis } from 'ioredis';

/**
 * Sets KEYS[1] to ARGV[2] only when it still holds ARGV[1] ('' for absent), with a TTL of ARGV[3]
 * seconds when that is above 0. Returns 1 when set, 0 when the value changed in between.
 */
const SOURCE = `
local current = redis.call('GET', KEYS[1]) or ''
if current ~= ARGV[1] then return 0 end
local ttl = tonumber(ARGV[3])
if ttl > 0 then
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ttl)
else
  redis.call('SET', KEYS[1], ARGV[2])
end
return 1
`;

/** The script as an ioredis command (`defineCommand`): EVALSHA, EVAL when the server lacks it. */
interface CompareAndSetCommand {
  fleetMemoryCompareAndSet(
    key: string,
    expected: string,
    value: string,
    ttlSeconds: string,
  ): Promise<unknown>;
}

/** The client with the command, defined once per client (which may be shared with other code). */
function withCommand(redis: Redis | Cluster): (Redis | Cluster) & CompareAndSetCommand {
  if (
    typeof (redis as (Redis | Cluster) & Partial<CompareAndSetCommand>).fleetMemoryCompareAndSet !==
    'function'
  ) {
    redis.defineCommand('fleetMemoryCompareAndSet', { numberOfKeys: 1, lua: SOURCE });
  }
  return redis as (Redis | Cluster) & CompareAndSetCommand;
}

/** Options for {@link compareAndSet}. */
export interface CompareAndSetOptions {
  redis: Redis | Cluster;
  key: string;
  /** The value read before; undefined when the key was absent. */
  expected: string | undefined;
  value: string;
  /** 0: no expiry. */
  ttlSeconds: number;
}

/** An atomic compare-and-set of one string key (a Lua script, sent in full only once per server). */
export async function compareAndSet({
  redis,
  key,
  expected,
  value,
  ttlSeconds,
}: CompareAndSetOptions): Promise<boolean> {
  const reply = await withCommand(redis).fleetMemoryCompareAndSet(
    key,
    expected ?? '',
    value,
    String(ttlSeconds),
  );
  return reply === 1;
}
