import { mkdir } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { ServiceUnavailableError } from '@fleet/errors';
import { findFreePort } from './ports';
import { startDetached, stopProcessGroup } from './processes';
import { pingRedis } from './redis-ping';
import type { RedisState } from './state-file';
import { redactUrl } from './terminal';

/** Options for {@link resolveRedis}. */
export interface ResolveRedisOptions {
  /** `REDIS_URL` as the caller set it: used as it is, or the run fails. */
  redisUrl: string | undefined;
  /** A local Redis to reuse when it answers PING. */
  localRedisUrl: string;
  /** The redis-server executable to start otherwise. */
  redisServerBinary: string;
  /** Working directory for a started redis-server. */
  dataDir: string;
  /** Its log file. */
  logFile: string;
  /** How long a started redis-server may take to answer PING. @default 10000 */
  startTimeoutMs?: number;
  /** Environment for a started redis-server. */
  env: Record<string, string>;
}

const INSTALL_HINT = [
  'Install Redis (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis),',
  'or point the fleet at one you have: REDIS_URL=redis://host:6379 pnpm fleet up',
].join('\n');

/**
 * Finds the fleet's Redis: `REDIS_URL` if set (it must answer PING), else a local Redis that
 * answers, else a `redis-server` it starts on a free port with persistence off. Throws a
 * `ServiceUnavailableError` whose message says what to do.
 *
 * @example
 * const redis = await resolveRedis({ redisUrl: undefined, localRedisUrl: 'redis://127.0.0.1:6379', ... });
 */
export async function resolveRedis({
  redisUrl,
  localRedisUrl,
  redisServerBinary,
  dataDir,
  logFile,
  startTimeoutMs = 10_000,
  env,
}: ResolveRedisOptions): Promise<RedisState> {
  if (redisUrl !== undefined) {
    const result = await pingRedis({ url: redisUrl, timeoutMs: 3000 });
    if (!result.ok) {
      throw new ServiceUnavailableError(
        `REDIS_URL=${redactUrl(redisUrl)} does not answer PING (${result.reason}). ` +
          'Start that Redis, fix REDIS_URL, or unset it to let the runner find or start one.',
      );
    }
    return { url: redisUrl, source: 'env' };
  }
  if ((await pingRedis({ url: localRedisUrl })).ok) return { url: localRedisUrl, source: 'local' };

  await mkdir(dataDir, { recursive: true });
  const port = await findFreePort();
  let started;
  try {
    started = await startDetached({
      command: redisServerBinary,
      args: [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dataDir,
        '--daemonize',
        'no',
      ],
      cwd: dataDir,
      env,
      logFile,
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new ServiceUnavailableError(
        `No Redis answers at ${redactUrl(localRedisUrl)} and ${redisServerBinary} is not installed.\n${INSTALL_HINT}`,
        { cause: error },
      );
    }
    throw error;
  }
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + startTimeoutMs;
  let reason = 'it did not answer';
  while (Date.now() < deadline) {
    const exit = started.exitInfo();
    if (exit !== undefined) {
      throw new ServiceUnavailableError(
        `${redisServerBinary} exited (code ${String(exit.code)}) before answering; see ${logFile}.\n${INSTALL_HINT}`,
      );
    }
    const result = await pingRedis({ url, timeoutMs: 500 });
    if (result.ok) {
      return { url, source: 'started', pid: started.pid, port, logFile };
    }
    reason = result.reason;
    await sleep(100);
  }
  await stopProcessGroup({ pid: started.pid, graceMs: 2000 });
  throw new ServiceUnavailableError(
    `${redisServerBinary} did not answer PING within ${startTimeoutMs} ms (${reason}); see ${logFile}.`,
  );
}
