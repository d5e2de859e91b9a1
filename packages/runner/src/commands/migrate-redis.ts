import { Redis } from 'ioredis';
import { migrateRedisTaskKeys } from '@fleet/a2a/server';
import { migrateSessionKeys, type MigrationProgress } from '@fleet/sessions';
import { redactUrl } from '../terminal';
import { UsageError } from '../usage-error';
import { parseCommandArgs, type Command, type CommandContext } from './command';

const HELP = `Usage: pnpm fleet migrate-redis [--redis-url <url>]

Moves what an earlier version of the fleet kept in Redis to the key layout this version reads,
where every key of one session or one A2A task carries the same hash tag ({id}), so each lives in
one slot of a Redis Cluster:

  sessions, their leases and indexes   fleet:session:<id>  ->  fleet:{<id>}:session, ...
  every agent's A2A tasks              fleet:a2a[:<agent>]:task:<id>  ->  …:{<id>}:task, ...

Run it once, with the fleet stopped (nothing may write the earlier layout meanwhile), against the
single Redis the earlier version used, before starting this version (or before moving the data
to a Redis Cluster). It is idempotent: a second run, or one after a run that was cut short,
finishes the work and changes nothing else. Rate-limit counters are not moved: they start over.
Without it, this version does not see the sessions in flight: their approvals cannot be decided.

  --redis-url <url>  the Redis to migrate (default: REDIS_URL, else FLEET_LOCAL_REDIS_URL,
                     redis://127.0.0.1:6379)
  -h, --help         show this help

Examples:
  pnpm fleet down && pnpm fleet migrate-redis && pnpm fleet up
  pnpm fleet migrate-redis --redis-url redis://:secret@redis.internal:6379`;

/** An old-layout task key's store prefix: `fleet:a2a` (the orchestrator) or `fleet:a2a:<agent>`. */
const OLD_TASK_KEY = /^(fleet:a2a(?::[^:{}]+)?):(?:task:|tasks$|context:)/;

/** The task stores that still have keys of the earlier layout, found by their keys. */
async function oldTaskPrefixes(redis: Redis): Promise<string[]> {
  const prefixes = new Set<string>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', 'fleet:a2a*', 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const prefix = OLD_TASK_KEY.exec(key)?.[1];
      if (prefix !== undefined) prefixes.add(prefix);
    }
  } while (cursor !== '0');
  return [...prefixes].sort();
}

async function run(context: CommandContext): Promise<number> {
  const { io, palette, config } = context;
  const { values } = parseCommandArgs({
    command: 'migrate-redis',
    args: context.args,
    options: { 'redis-url': { type: 'string' } },
  });
  const url = values['redis-url'] ?? config.redisUrl ?? config.localRedisUrl;
  if (!/^rediss?:\/\//.test(url)) {
    throw new UsageError(
      `--redis-url must be a redis:// or rediss:// URL, got ${url}`,
      'migrate-redis',
    );
  }
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 3000,
  });
  const live = io.stderr.isTTY === true;
  const show = ({ phase, done }: MigrationProgress): void => {
    if (live) io.stderr.write(`\r\x1b[2K  sessions: ${phase} ${done}`);
  };
  try {
    try {
      await redis.connect();
    } catch (error) {
      io.stderr.write(
        `${palette.red('✖')} Redis at ${redactUrl(url)} does not answer: ${(error as Error).message}\n`,
      );
      return 1;
    }
    io.stdout.write(`Migrating ${redactUrl(url)} to the hash-tagged key layout\n`);
    const sessions = await migrateSessionKeys(redis, { onProgress: show });
    if (live) io.stderr.write('\r\x1b[2K');
    io.stdout.write(
      `${palette.green('✔')} sessions: ${sessions.sessions} moved, ${sessions.leases} leases, ${sessions.locks} stale locks dropped, ${sessions.indexed} indexed${sessions.unreadable > 0 ? `, ${palette.red(`${sessions.unreadable} unreadable (left as they are)`)}` : ''}, ${sessions.oldIndexes} old indexes removed\n`,
    );
    const prefixes = await oldTaskPrefixes(redis);
    for (const keyPrefix of prefixes) {
      const tasks = await migrateRedisTaskKeys({ redis, keyPrefix });
      io.stdout.write(
        `${palette.green('✔')} ${keyPrefix}: ${tasks.tasks} tasks moved, ${tasks.indexEntries} index entries\n`,
      );
    }
    if (prefixes.length === 0) io.stdout.write(`${palette.green('✔')} A2A tasks: none to move\n`);
    io.stdout.write('Done. Start this version of the fleet now.\n');
    return sessions.unreadable > 0 ? 1 : 0;
  } finally {
    redis.disconnect();
  }
}

/** `fleet migrate-redis`: move an earlier version's Redis keys to the hash-tagged layout. */
export const migrateRedisCommand: Command = {
  name: 'migrate-redis',
  summary: "Move an earlier version's Redis keys to this version's layout (fleet stopped)",
  help: HELP,
  handlesInterrupt: false,
  run,
};
