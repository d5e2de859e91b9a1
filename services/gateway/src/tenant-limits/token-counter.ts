import type { Cluster, Redis } from 'ioredis';
import { tenantKey } from './tenant-key';

/** A tenant's tokens of the current UTC day, as this replica knows them. */
export interface TokenDay {
  spent: number;
  /** Milliseconds until 00:00 UTC. */
  resetMs: number;
}

/** Options for {@link createTokenCounter}. */
export interface TokenCounterOptions {
  redis: Pick<Redis, 'eval' | 'get' | 'status'> | Pick<Cluster, 'eval' | 'get' | 'status'>;
  /** A tenant's day lives at `${keyPrefix}:{tenant:${tenant}}:tokens:${YYYY-MM-DD}` ({@link tenantKey}). */
  keyPrefix: string;
  /** The clock for the UTC day. @default Date.now */
  now?: () => number;
}

/** Tokens per tenant per UTC day, kept on this replica and reconciled with Redis in the background. */
export interface TokenCounter {
  /**
   * The tenant's tokens spent today: from memory, except the first time this replica asks about
   * the tenant's day, which reads Redis. Rejects when Redis fails on that read.
   */
  spent(tenant: string): TokenDay | Promise<TokenDay>;
  /** Adds an answer's tokens to the tenant's day; they reach Redis with the next sync. */
  add(tenant: string, tokens: number): void;
  /** Sends the tokens added since the last sync and reads back the day of every tenant seen today. */
  sync(): Promise<void>;
}

const DAY_MS = 86_400_000;
/** A day's key outlives the day, so a late sync still lands in it. */
const DAY_KEY_TTL_SECONDS = 2 * 86_400;

/** KEYS: the day. ARGV: tokens, the key's TTL in seconds. Answers the day's total. */
const ADD_LUA = `local total = redis.call('INCRBY', KEYS[1], ARGV[1])
if redis.call('TTL', KEYS[1]) == -1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return total`;

interface Day {
  tenant: string;
  day: string;
  key: string;
  /** The day's total in Redis when it last answered; undefined until then. */
  shared: number | undefined;
  sending: number;
  unsent: number;
  /** The first read of this day, while it is under way (concurrent requests share it). */
  reading: Promise<void> | undefined;
}

/**
 * Builds the token counter: each replica adds its answers' tokens locally and sends them with the
 * background sync; a request is checked against what the replica knows (Redis's total at the last
 * sync plus its own tokens since), so it costs no round trip after the tenant's first request of
 * the day on this replica. Keys are `${keyPrefix}:{tenant:${tenant}}:tokens:${YYYY-MM-DD}`, plain integers.
 *
 * @example
 * const tokens = createTokenCounter({ redis, keyPrefix: 'fleet:limits' });
 * const { spent } = await tokens.spent('acme');
 * tokens.add('acme', 420);
 */
export function createTokenCounter({
  redis,
  keyPrefix,
  now = Date.now,
}: TokenCounterOptions): TokenCounter {
  const days = new Map<string, Day>();
  /** Earlier days with tokens not sent yet (added just before 00:00 UTC). */
  const ended: Day[] = [];

  const dayOf = (tenant: string, time: number): Day => {
    const day = new Date(time).toISOString().slice(0, 10);
    let current = days.get(tenant);
    if (current?.day !== day) {
      if (current !== undefined && current.unsent + current.sending > 0) ended.push(current);
      current = {
        tenant,
        day,
        key: tenantKey(keyPrefix, tenant, 'tokens', day),
        shared: undefined,
        sending: 0,
        unsent: 0,
        reading: undefined,
      };
      days.set(tenant, current);
    }
    return current;
  };

  const read = async (day: Day): Promise<void> => {
    const value = await redis.get(day.key);
    day.shared = Math.max(day.shared ?? 0, Number(value ?? 0));
  };

  const send = async (day: Day): Promise<void> => {
    const sent = day.unsent;
    if (sent === 0) {
      await read(day);
      return;
    }
    day.unsent = 0;
    day.sending += sent;
    try {
      const total = Number(await redis.eval(ADD_LUA, 1, day.key, sent, DAY_KEY_TTL_SECONDS));
      day.shared = Math.max(day.shared ?? 0, total);
    } catch (error) {
      day.unsent += sent;
      throw error;
    } finally {
      day.sending -= sent;
    }
  };

  const known = (day: Day, time: number): TokenDay => ({
    spent: (day.shared ?? 0) + day.sending + day.unsent,
    resetMs: DAY_MS - (time % DAY_MS),
  });

  return {
    spent(tenant) {
      const time = now();
      const day = dayOf(tenant, time);
      if (day.shared !== undefined) return known(day, time);
      day.reading ??= read(day).finally(() => {
        day.reading = undefined;
      });
      return day.reading.then(() => known(day, now()));
    },
    add(tenant, tokens) {
      dayOf(tenant, now()).unsent += tokens;
    },
    async sync() {
      // Every tenant this replica has seen today: their days stay fresh whether or not they were
      // busy here (there are as many as configured tenants with a budget).
      const today = new Date(now()).toISOString().slice(0, 10);
      const due = ended.splice(0);
      for (const [tenant, day] of days) {
        if (day.day === today) due.push(day);
        else {
          days.delete(tenant);
          if (day.unsent + day.sending > 0) due.push(day);
        }
      }
      if (due.length === 0) return;
      // An earlier day whose tokens do not reach Redis now is tried again next time.
      const retry = (day: Day): void => {
        if (days.get(day.tenant) !== day && day.unsent > 0) ended.push(day);
      };
      if (redis.status !== 'ready') {
        due.forEach(retry);
        return;
      }
      const results = await Promise.allSettled(due.map((day) => send(day)));
      const failed = due.filter((_day, index) => results[index]?.status === 'rejected');
      failed.forEach(retry);
      const failure = results.find((result) => result.status === 'rejected');
      if (failure !== undefined) throw failure.reason;
    },
  };
}
