import type { RedisOptions } from 'ioredis';

/** Longest pause between reconnection attempts: Redis is used again within a second of its return. */
const MAX_RECONNECT_DELAY_MS = 1000;

/**
 * The pause before reconnection attempt `times`: 100 ms, 200 ms, … up to
 * {@link MAX_RECONNECT_DELAY_MS}, without end (a server's, a cluster's, the sentinels').
 */
export function fleetReconnectDelay(times: number): number {
  return Math.min(times * 100, MAX_RECONNECT_DELAY_MS);
}

/**
 * How every fleet service connects to Redis (sessions, approvals, memory, task stores, card
 * caches): a command fails fast while Redis is unreachable instead of hanging — so a request gets
 * a 503 and a run's stream ends within seconds — and the client reconnects by itself forever.
 *
 * - `maxRetriesPerRequest: 1`: a command queued while disconnected fails after the second failed
 *   reconnection attempt (well under two seconds), as a `MaxRetriesPerRequestError`.
 * - `connectTimeout`: an unreachable host (no refusal, just silence) counts as a failed attempt
 *   after 2 s, not the default 10 s.
 * - `commandTimeout`: a Redis that accepted the connection but does not answer fails the command
 *   after 5 s. The fleet sends no blocking commands (pub/sub uses its own connection).
 * - reconnection every 100 ms, 200 ms, … up to {@link MAX_RECONNECT_DELAY_MS}, without end.
 *
 * The errors these raise become `503` with `Retry-After` (`toFleetError` in `@fleet/errors`).
 * Services open their connection with `createFleetRedis`, which applies these in every mode
 * (one server, Sentinel, Cluster).
 */
export const FLEET_REDIS_OPTIONS = {
  maxRetriesPerRequest: 1,
  connectTimeout: 2000,
  commandTimeout: 5000,
  retryStrategy: fleetReconnectDelay,
} as const satisfies RedisOptions;
