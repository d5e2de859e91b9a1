import { defineRedisScript } from './redis-script';

/*
 * Every script here touches the keys of one session only — its JSON, lock and runner lease, all
 * tagged with the session id (./session-keys.ts) — so each runs in one slot of a Redis Cluster.
 * The indexes (tenant, pending approvals, active) live in other slots and are kept by
 * ./session-indexes.ts around these writes.
 */

/**
 * Creates a session if its id is free. KEYS: session. ARGV: json, ttl seconds.
 * Returns 1 when written, 0 when the id is taken.
 */
export const createScript = defineRedisScript(`
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'EX', ARGV[2]) then return 0 end
return 1
`);

/**
 * {@link createScript} and the session's runner lease, together or not at all. KEYS: session,
 * runner lease. ARGV: json, ttl seconds, the lease's owner, its TTL in ms. Returns 1 when written,
 * 0 when the id is taken, -1 when the lease is held.
 */
export const createWithRunnerScript = defineRedisScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if redis.call('EXISTS', KEYS[2]) == 1 then return -1 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4])
return 1
`);

/**
 * The write both update scripts end with: the session with its TTL and — once it is no longer
 * active — its runner lease released, when ARGV[5] names the owner holding it.
 * KEYS[2..3]: session, runner lease.
 * ARGV[2..5]: json, ttl seconds, still active ('1' | '0'), the runner lease's owner to release
 * ('' for none).
 */
const WRITE_SESSION_LUA = `redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3])
if ARGV[4] == '0' and ARGV[5] ~= '' and redis.call('GET', KEYS[3]) == ARGV[5] then
  redis.call('DEL', KEYS[3])
end
return 1
`;

/**
 * Writes a session only while the writer still holds its lock (a fencing check, so a writer whose
 * lock expired mid-change cannot overwrite a newer write).
 * KEYS: lock, session, runner lease.
 * ARGV: lock value, json, ttl seconds, still active ('1' | '0'), runner lease owner to release
 * once inactive ('' for none).
 */
export const fencedWriteScript = defineRedisScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
${WRITE_SESSION_LUA}`);

/**
 * Writes a session without taking its lock, only when nobody holds the lock and the stored session
 * is still exactly the one the writer started from (its SHA-1): a compare-and-set that no locked
 * read-modify-write can interleave with (that one holds the lock from its read to its write).
 * KEYS: as {@link fencedWriteScript}.
 * ARGV: SHA-1 of the expected JSON, then as {@link fencedWriteScript}.
 * Returns 1 when written, 0 when the lock is held or the session changed, -1 when it is gone.
 */
export const compareAndSetScript = defineRedisScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local current = redis.call('GET', KEYS[2])
if not current then return -1 end
if redis.sha1hex(current) ~= ARGV[1] then return 0 end
${WRITE_SESSION_LUA}`);
