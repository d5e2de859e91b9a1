import { defineRedisScript } from './redis-script';

/** The index entries of a new session. KEYS[2..3]: tenant index, active index. ARGV: as below. */
const INDEX_NEW_SESSION_LUA = `redis.call('ZADD', KEYS[2], ARGV[4], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[2])
redis.call('SADD', KEYS[3], ARGV[3])
`;

/**
 * Creates a session atomically with its tenant-index and active-index entries. KEYS: session,
 * tenant index, active index.
 * ARGV: json, ttl seconds, id, createdAt ms.
 */
export const createScript = defineRedisScript(`
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'EX', ARGV[2]) then return 0 end
${INDEX_NEW_SESSION_LUA}return 1
`);

/**
 * {@link createScript} and the session's runner lease, together or not at all. KEYS: as
 * {@link createScript}, then the runner lease. ARGV: as {@link createScript}, then the lease's
 * owner and TTL in ms. Returns 1 when written, 0 when the id is taken, -1 when the lease is held.
 */
export const createWithRunnerScript = defineRedisScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if redis.call('EXISTS', KEYS[4]) == 1 then return -1 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
${INDEX_NEW_SESSION_LUA}redis.call('SET', KEYS[4], ARGV[5], 'PX', ARGV[6])
return 1
`);

/**
 * The write both session scripts end with: the session with its TTL and its three indexes, and —
 * once it is no longer active — its runner lease, when ARGV[8] names the owner holding it.
 * KEYS[2..6]: session, pending-approvals index, tenant index, active index, runner lease.
 * ARGV[2..8]: json, ttl seconds, id, has pending approvals ('1' | '0'), createdAt ms, still active
 * ('1' | '0'), the runner lease's owner to release ('' for none).
 */
const WRITE_SESSION_LUA = `redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3])
if ARGV[5] == '1' then
  redis.call('SADD', KEYS[3], ARGV[4])
else
  redis.call('SREM', KEYS[3], ARGV[4])
end
redis.call('ZADD', KEYS[4], 'NX', ARGV[6], ARGV[4])
redis.call('EXPIRE', KEYS[4], ARGV[3])
if ARGV[7] == '1' then
  redis.call('SADD', KEYS[5], ARGV[4])
else
  redis.call('SREM', KEYS[5], ARGV[4])
  if ARGV[8] ~= '' and redis.call('GET', KEYS[6]) == ARGV[8] then redis.call('DEL', KEYS[6]) end
end
return 1
`;

/**
 * Writes a session only while the writer still holds its lock (a fencing check, so a writer whose
 * lock expired mid-change cannot overwrite a newer write), and keeps both indexes in step.
 * KEYS: lock, session, pending-approvals index, tenant index, active index, runner lease.
 * ARGV: lock value, json, ttl seconds, id, has pending approvals ('1' | '0'), createdAt ms,
 * still active ('1' | '0'), runner lease owner to release once inactive ('' for none).
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
