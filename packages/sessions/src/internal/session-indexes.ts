import type { Cluster, Redis } from 'ioredis';
import { defineRedisScript } from './redis-script';
import type { SessionKeys } from './session-keys';

/*
 * The indexes of the sessions, kept outside the session's own slot (Redis Cluster: a script may
 * not span slots), each by a script of its own slot:
 *
 * - the tenant's slot: its sessions (sorted set, id → creation time in ms) and its sessions with
 *   an approval pending (set);
 * - the fleet-wide slot: every session with an approval pending (hash, id → tenant; the tenant
 *   lets the expiry sweep clear the tenant's entry of a session that is gone) and every session
 *   still running or waiting (set).
 *
 * Crash safety — an index may hold an entry too many for a while, never miss one:
 *
 * 1. Before a session is written, the entries its new state adds are added (a new session: its
 *    tenant's index and the active set; an approval pending: both pending indexes; a resumed
 *    session: the active set). A crash after that and before the write leaves an entry whose
 *    session is gone or not in that state.
 * 2. The session is written (one script in its own slot).
 * 3. After the write, whenever the change moved the session in or out of an index, the indexes
 *    are set to its new state (adds again, removes). A crash before that leaves an entry too many
 *    (a session no longer pending or active), never a missing one; and a reader that dropped an
 *    entry between 1 and 2 (it saw the session gone, or in its old state) has it back.
 *
 * A tenant's keys live at least as long as the session last moved in or out of its indexes
 * (creation, an approval asked or settled, the end of a run): their TTL is set to the session TTL
 * then, and only ever lengthened.
 *
 * Readers check each entry against its session: one whose session is gone is dropped (the tenant
 * listing, the recovery list, the expiry sweep), one whose session is no longer in that state is
 * skipped and dropped. A write that changes no index membership (most of a run's writes) touches
 * no index.
 */

/** Which indexes a session belongs in. */
export interface IndexState {
  /** An approval or a question is pending. */
  pending: boolean;
  /** Still running or waiting (`isActiveStatus`). */
  active: boolean;
}

/** One session's index entries to set; an omitted `pending` or `active` is left as it is. */
export interface IndexChange {
  id: string;
  tenant: string;
  /** The tenant index's score for it (creation time in ms); an existing score is kept. */
  createdAtMs: number;
  /** The tenant's index (and pending set, when added to) lives at least this long (ms). */
  ttlMs: number;
  pending?: boolean | undefined;
  active?: boolean | undefined;
}

/**
 * The tenant's slot. KEYS: tenant index, tenant pending set. ARGV: id, createdAt ms, TTL ms,
 * pending ('1' add, '0' remove, '' leave). A key's TTL is only ever lengthened.
 */
const tenantIndexScript = defineRedisScript(`
local ttl = tonumber(ARGV[3])
local function keep(key)
  if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ttl) end
end
redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[1])
keep(KEYS[1])
if ARGV[4] == '1' then
  redis.call('SADD', KEYS[2], ARGV[1])
  keep(KEYS[2])
elseif ARGV[4] == '0' then
  redis.call('SREM', KEYS[2], ARGV[1])
end
return 1
`);

/**
 * The fleet-wide slot. KEYS: pending hash, active set. ARGV: id, tenant, pending, active ('1' add,
 * '0' remove, '' leave).
 */
const fleetIndexScript = defineRedisScript(`
if ARGV[3] == '1' then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
elseif ARGV[3] == '0' then
  redis.call('HDEL', KEYS[1], ARGV[1])
end
if ARGV[4] == '1' then
  redis.call('SADD', KEYS[2], ARGV[1])
elseif ARGV[4] == '0' then
  redis.call('SREM', KEYS[2], ARGV[1])
end
return 1
`);

const flag = (value: boolean | undefined): string => (value === undefined ? '' : value ? '1' : '0');

/** The connection and names the indexes are kept with. */
export interface IndexTarget {
  redis: Redis | Cluster;
  keys: SessionKeys;
}

/** Sets one session's index entries: one script in the tenant's slot, one in the fleet-wide one. */
export async function setIndexes(
  { redis, keys }: IndexTarget,
  { id, tenant, createdAtMs, ttlMs, pending, active }: IndexChange,
): Promise<void> {
  const tenantWrite = tenantIndexScript.run({
    redis,
    keys: [keys.tenantIndex(tenant), keys.tenantPending(tenant)],
    args: [id, createdAtMs, ttlMs, flag(pending)],
  });
  const fleetWrite =
    pending === undefined && active === undefined
      ? Promise.resolve()
      : fleetIndexScript.run({
          redis,
          keys: [keys.pending(), keys.active()],
          args: [id, tenant, flag(pending), flag(active)],
        });
  await Promise.all([tenantWrite, fleetWrite]);
}

/**
 * Writes a session with its indexes kept as described above: the entries `next` adds to
 * `previous` (undefined for a new session) before `write`, and — when membership changed and
 * `write` answered true — all of `next` after it.
 */
export async function writeIndexed(
  target: IndexTarget,
  {
    id,
    tenant,
    createdAtMs,
    ttlMs,
    previous,
    next,
  }: Omit<IndexChange, 'pending' | 'active'> & {
    previous: IndexState | undefined;
    next: IndexState;
  },
  write: () => Promise<boolean>,
): Promise<boolean> {
  const entry = { id, tenant, createdAtMs, ttlMs };
  const adds = {
    tenant: previous === undefined,
    pending: next.pending && previous?.pending !== true,
    active: next.active && previous?.active !== true,
  };
  const removes =
    previous !== undefined &&
    ((previous.pending && !next.pending) || (previous.active && !next.active));
  const adding = adds.tenant || adds.pending || adds.active;
  if (adding) {
    await setIndexes(target, {
      ...entry,
      pending: adds.pending ? true : undefined,
      active: adds.active ? true : undefined,
    });
  }
  const written = await write();
  if (written && (adding || removes)) {
    await setIndexes(target, { ...entry, pending: next.pending, active: next.active });
  }
  return written;
}

/** Drops ids whose sessions are gone or not the tenant's from the tenant's index and pending set. */
export async function dropFromTenant(
  { redis, keys }: IndexTarget,
  tenant: string,
  ids: readonly string[],
): Promise<void> {
  if (ids.length === 0) return;
  await Promise.all([
    redis.zrem(keys.tenantIndex(tenant), ...ids),
    redis.srem(keys.tenantPending(tenant), ...ids),
  ]);
}

/** Drops a session from both pending indexes (it is gone, or has nothing pending). */
export async function dropPending(
  { redis, keys }: IndexTarget,
  { id, tenant }: { id: string; tenant: string },
): Promise<void> {
  await Promise.all([redis.hdel(keys.pending(), id), redis.srem(keys.tenantPending(tenant), id)]);
}
