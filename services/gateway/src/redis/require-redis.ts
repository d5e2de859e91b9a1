import type { NextFunction, Request, Response } from 'express';
import type { FleetRedis } from '@fleet/a2a/server';
import { redisUnavailableError } from '@fleet/errors';

/**
 * What the gate watches: the client's connection state and its events (a single server's client,
 * or a cluster's, which says `ready`, `close` and `end` for the cluster as a whole).
 */
export type RedisConnection = Pick<FleetRedis, 'status' | 'on'>;

/** Whether the gateway's Redis connection is up, as routes that need Redis ask it. */
export interface RedisGate {
  /** @throws ServiceUnavailableError (503, `Retry-After`) while the connection is down. */
  assertConnected(): void;
  /** {@link RedisGate.assertConnected} as express middleware. */
  middleware(): (req: Request, res: Response, next: NextFunction) => void;
}

/** ioredis states in which nothing can be served: lost and retrying, or given up. */
const DISCONNECTED = new Set(['reconnecting', 'close', 'end']);

/**
 * Answers 503 with `Retry-After` at once while the gateway's Redis connection is down, before any
 * work starts: for routes that keep their state in Redis (sessions, memory), and for those whose
 * services do (orchestration and its sessions, the agents' task stores, documents). The fleet
 * shares one Redis (REDIS_URL), the one `/readyz` checks; without it these routes cannot succeed.
 *
 * "Down" runs from a lost connection (`close`) to the next `ready`, reconnection attempts included
 * (ioredis passes through `connecting` on each). A client that never connected yet (`wait`,
 * `connecting` at boot) is let through: its first command connects it or fails, and errors a Redis
 * command raises are mapped to the same 503 by `toFleetError`.
 *
 * @example
 * const gate = createRedisGate(redis);
 * v1.use('/sessions', gate.middleware());
 */
export function createRedisGate(redis: RedisConnection): RedisGate {
  let lost = DISCONNECTED.has(redis.status);
  redis.on('close', () => {
    lost = true;
  });
  redis.on('ready', () => {
    lost = false;
  });
  const assertConnected = (): void => {
    if (lost || DISCONNECTED.has(redis.status)) throw redisUnavailableError();
  };
  return {
    assertConnected,
    middleware() {
      return function redisConnected(_req: Request, _res: Response, next: NextFunction): void {
        assertConnected();
        next();
      };
    },
  };
}
