import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/** A Lua script run with EVALSHA, falling back to EVAL the first time a server has not seen it. */
export interface RedisScript {
  run(options: {
    redis: Redis;
    keys: readonly string[];
    args: readonly (string | number)[];
  }): Promise<unknown>;
}

/** Wraps a Lua script so it is sent in full only when the server does not know its hash. */
export function defineRedisScript(source: string): RedisScript {
  const sha = createHash('sha1').update(source).digest('hex');
  return {
    async run({ redis, keys, args }) {
      try {
        return await redis.evalsha(sha, keys.length, ...keys, ...args);
      } catch (error) {
        if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
        return await redis.eval(source, keys.length, ...keys, ...args);
      }
    },
  };
}
