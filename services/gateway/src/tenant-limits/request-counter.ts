import type { Cluster, Redis } from 'ioredis';
import type { LimitState } from './rate-limit-headers';
import { tenantKey } from './tenant-key';

/** One counted request: its bucket's state for the headers, and whether it was refused. */
export interface CountedRequest {
  state: LimitState;
  limited: boolean;
}

/** Options for {@link createRequestCounter}. */
export interface RequestCounterOptions {
  redis: Pick<Redis, 'eval' | 'status'> | Pick<Cluster, 'eval' | 'status'>;
  /** A tenant's bucket's count lives at `${keyPrefix}:{tenant:${tenant}}:requests:${bucket}` ({@link tenantKey}). */
  keyPrefix: string;
  /** The window, in milliseconds. */
  windowMs: number;
  /**
   * How often this replica sends what it counted to Redis and reads what every replica counted
   * (the limiter's background sync). It sets each replica's local share per interval, and so the
   * overshoot bound (docs/limits.md).
   */
  syncIntervalMs: number;
  /** @default Date.now */
  now?: () => number;
}

/** Requests per fixed window, counted on this replica and reconciled with Redis in the background. */
export interface RequestCounter {
  /**
   * Counts one request in the tenant's `bucket` against `limit`. Far from the limit it answers at once, from
   * memory; near it (or past this replica's share for the sync interval) it asks Redis, which
   * decides atomically. Rejects when Redis fails on that path (the caller lets the request through).
   */
  count(tenant: string, bucket: string, limit: number): CountedRequest | Promise<CountedRequest>;
  /**
   * Sends every active bucket's unsent count to Redis and reads back the shared counts (the
   * commands leave together: one round trip). Forgets buckets whose window has ended.
   */
  sync(): Promise<void>;
}

/**
 * KEYS: the bucket's count. ARGV: requests to add (counted here already), 1 to ask for one more
 * (admitted only if it fits the limit), the limit, the window in ms. Answers the count after,
 * whether the one more was admitted, and the window's milliseconds left (-2: no window yet).
 * The key expires with its window, which starts with the first count that reaches Redis; a count
 * that would pass the limit is not added, so a refused request costs the tenant nothing.
 */
const COUNT_LUA = `local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local add = tonumber(ARGV[1])
local admitted = 0
if ARGV[2] == '1' and count + add + 1 <= tonumber(ARGV[3]) then
  add = add + 1
  admitted = 1
end
if add > 0 then count = redis.call('INCRBY', KEYS[1], add) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  ttl = tonumber(ARGV[4])
end
return {count, admitted, ttl}`;

/** What this replica knows of one bucket in the current window. */
interface Bucket {
  key: string;
  /** The count in Redis when it last answered (every replica's requests that reached it). */
  shared: number;
  /** Requests admitted here whose count is on its way to Redis. */
  sending: number;
  /** Requests admitted here since, not sent yet. */
  unsent: number;
  /** When the window ends, on this replica's clock; undefined until Redis has said. */
  endsAt: number | undefined;
  /** Bumped when the window ends, so that a late answer about the previous window is ignored. */
  epoch: number;
  /** Counted since the last background sync. */
  active: boolean;
}

type CountReply = [count: number, admitted: number, ttl: number];

/** One counter's settings and buckets, which its module-level helpers share. */
interface CounterState {
  redis: RequestCounterOptions['redis'];
  keyPrefix: string;
  windowMs: number;
  now: () => number;
  /** What this replica knows of each bucket, by name. */
  buckets: Map<string, Bucket>;
}

/** The tenant's bucket at `time`: created when new, started over when its window has ended. */
function bucketOf(
  { keyPrefix, buckets }: CounterState,
  { tenant, name }: { tenant: string; name: string },
  time: number,
): Bucket {
  const key = tenantKey(keyPrefix, tenant, 'requests', name);
  let bucket = buckets.get(key);
  if (bucket === undefined) {
    bucket = {
      key,
      shared: 0,
      sending: 0,
      unsent: 0,
      endsAt: undefined,
      epoch: 0,
      active: false,
    };
    buckets.set(key, bucket);
  } else if (bucket.endsAt !== undefined && time >= bucket.endsAt) {
    // The window is over (Redis's key has expired with it): start over.
    bucket.shared = 0;
    bucket.sending = 0;
    bucket.unsent = 0;
    bucket.endsAt = undefined;
    bucket.epoch += 1;
  }
  return bucket;
}

/** Sends the bucket's unsent count; with `limit`, asks Redis to admit one more request. */
async function sendCount(
  { redis, windowMs, now }: CounterState,
  bucket: Bucket,
  limit?: number,
): Promise<boolean> {
  const sent = bucket.unsent;
  const { epoch } = bucket;
  bucket.unsent = 0;
  bucket.sending += sent;
  let reply: CountReply;
  try {
    reply = (await redis.eval(
      COUNT_LUA,
      1,
      bucket.key,
      sent,
      limit === undefined ? 0 : 1,
      limit ?? 0,
      windowMs,
    )) as CountReply;
  } catch (error) {
    // Not counted in Redis (or not known to be): counted again next time.
    if (bucket.epoch === epoch) {
      bucket.sending -= sent;
      bucket.unsent += sent;
    }
    throw error;
  }
  const [count, admitted, ttl] = reply;
  if (bucket.epoch === epoch) {
    bucket.sending -= sent;
    // Answers on one connection arrive in order; the larger count is the later one.
    bucket.shared = Math.max(bucket.shared, count);
    // Measured from the answer, so this replica never reopens a window before Redis does.
    if (ttl >= 0) bucket.endsAt = now() + ttl;
  }
  return admitted === 1;
}

/**
 * Builds a request counter that keeps each bucket's count on this replica and reconciles it with
 * Redis every `syncIntervalMs` (`sync`), so a request far from its limit costs no round trip.
 *
 * A replica admits from memory while the count it knows (Redis's at the last answer, plus its own
 * admissions since) stays within the limit **and** its admissions not yet answered by Redis stay
 * within its share `q = ⌈limit × syncIntervalMs / windowMs⌉`. Otherwise the request goes to Redis,
 * which adds this replica's unsent count and admits the request only if the total fits. Every
 * replica's unconfirmed admissions are thus at most `q` at any time, and a window admits at most
 * `limit + (replicas − 1) × q` requests (docs/limits.md). With one replica the count is exact.
 *
 * Once Redis answers that a bucket is spent, it is refused from memory until its window ends.
 *
 * @example
 * const counter = createRequestCounter({ redis, keyPrefix: 'fleet:limits', windowMs: 60_000, syncIntervalMs: 1000 });
 * const { state, limited } = await counter.count('acme', 'chat', 600);
 */
export function createRequestCounter({
  redis,
  keyPrefix,
  windowMs,
  syncIntervalMs,
  now = Date.now,
}: RequestCounterOptions): RequestCounter {
  const buckets = new Map<string, Bucket>();
  const counter: CounterState = { redis, keyPrefix, windowMs, now, buckets };

  const stateOf = (bucket: Bucket, limit: number, time: number): LimitState => ({
    limit,
    remaining: limit - bucket.shared - bucket.sending - bucket.unsent,
    resetMs: bucket.endsAt === undefined ? windowMs : bucket.endsAt - time,
  });

  return {
    count(tenant, name, limit) {
      const time = now();
      const bucket = bucketOf(counter, { tenant, name }, time);
      bucket.active = true;
      if (bucket.endsAt !== undefined && bucket.shared >= limit) {
        return { state: stateOf(bucket, limit, time), limited: true };
      }
      const share = Math.max(1, Math.ceil((limit * syncIntervalMs) / windowMs));
      const unconfirmed = bucket.sending + bucket.unsent;
      if (bucket.shared + unconfirmed < limit && unconfirmed < share) {
        bucket.unsent += 1;
        return { state: stateOf(bucket, limit, time), limited: false };
      }
      return sendCount(counter, bucket, limit).then((admitted) => ({
        state: stateOf(bucket, limit, now()),
        limited: !admitted,
      }));
    },
    async sync() {
      const time = now();
      const due: Bucket[] = [];
      for (const [name, bucket] of buckets) {
        if (bucket.endsAt !== undefined && time >= bucket.endsAt) {
          // A window that ended: whatever was not sent belonged to it.
          buckets.delete(name);
        } else if (bucket.unsent > 0 || bucket.active) {
          bucket.active = false;
          due.push(bucket);
        }
      }
      if (due.length === 0 || redis.status !== 'ready') return;
      const failures = await Promise.allSettled(due.map((bucket) => sendCount(counter, bucket)));
      const failure = failures.find((result) => result.status === 'rejected');
      if (failure !== undefined) throw failure.reason;
    },
  };
}
