/** The gateway's Redis connection settings and the gate for routes that need Redis. */
export { FLEET_REDIS_OPTIONS as GATEWAY_REDIS_OPTIONS } from '@fleet/a2a/server';
export { createRedisGate } from './require-redis';
export type { RedisConnection, RedisGate } from './require-redis';
