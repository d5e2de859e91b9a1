import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';

/** A Lua script run as an ioredis custom command (EVALSHA, EVAL when the server lacks it). */
export interface RedisScript {
  run(options: {
    redis: Redis | Cluster;
    keys: readonly string[];
    args: readonly (string | number)[];
  }): Promise<unknown>;
}

/** A script's command, called with the number of keys first (defined without `numberOfKeys`). */
type ScriptCommand = (
  numberOfKeys: number,
  ...keysAndArgs: readonly (string | number)[]
) => Promise<unknown>;

/** The commands {@link defineRedisScript} adds to a client, one per script source. */
type ScriptCommands = Record<`fleetSessionsScript${string}`, ScriptCommand | undefined>;

/**
 * Wraps a Lua script as an ioredis command (`defineCommand`), which sends it in full only when the
 * server does not know its hash (NOSCRIPT), and works in pipelines too. On a Redis Cluster the
 * command goes to the node of its keys' slot: every key of one call must share a hash tag. The command is defined
 * once per client, on first use, so a client shared with other code (or passed in by a caller)
 * is fine; `redis.duplicate()` gets its own on first use.
 */
export function defineRedisScript(source: string): RedisScript {
  const name = `fleetSessionsScript${createHash('sha1').update(source).digest('hex')}` as const;
  return {
    run({ redis, keys, args }) {
      const client = redis as (Redis | Cluster) & ScriptCommands;
      if (typeof client[name] !== 'function') redis.defineCommand(name, { lua: source });
      const command = client[name] as ScriptCommand;
      return command.call(redis, keys.length, ...keys, ...args);
    },
  };
}
