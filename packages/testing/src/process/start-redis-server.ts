import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { getFreePort } from './get-free-port';
import { startProcess, type RunningProcess } from './start-process';

/** Options for {@link startRedisServer}. */
export interface StartRedisServerOptions {
  /** @default a free port */
  port?: number;
  /**
   * Keep the data across a `restart()` (append-only file in a temporary directory), as a
   * production Redis with persistence would. @default true
   */
  persistent?: boolean;
  /** @default 'redis-server' (FLEET_REDIS_SERVER when set) */
  binary?: string;
}

/** A redis-server of a test's own, on a spare loopback port, that the test may kill and start again. */
export interface TestRedisServer {
  port: number;
  /** `redis://127.0.0.1:<port>` */
  url: string;
  /** SIGKILLs it (no shutdown, as a crash), resolving once it has exited. */
  kill(): Promise<void>;
  /** Starts it again on the same port with the same data directory. */
  restart(): Promise<void>;
  /** Stops it and removes its data. */
  stop(): Promise<void>;
}

/**
 * Starts a redis-server for one test: fault-injection tests kill it mid-run and start it again
 * (the fleet's own Redis on 6379 is never touched).
 *
 * @example
 * const redisServer = await startRedisServer();
 * await redisServer.kill();
 * await redisServer.restart();
 */
export async function startRedisServer({
  port: wanted,
  persistent = true,
  binary = process.env['FLEET_REDIS_SERVER'] ?? 'redis-server',
}: StartRedisServerOptions = {}): Promise<TestRedisServer> {
  const port = wanted ?? (await getFreePort());
  const dir = await mkdtemp(path.join(os.tmpdir(), 'fleet-test-redis-'));
  let current: RunningProcess | undefined;
  const launch = async (): Promise<void> => {
    current = await startProcess({
      name: `redis-server:${port}`,
      command: binary,
      args: [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        persistent ? 'yes' : 'no',
        '--appendfsync',
        'always',
      ],
      readyLine: /Ready to accept connections/,
      timeoutMs: 10_000,
    });
  };
  await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async kill() {
      await current?.stop('SIGKILL');
    },
    async restart() {
      await current?.stop('SIGKILL');
      await launch();
    },
    async stop() {
      await current?.stop('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
