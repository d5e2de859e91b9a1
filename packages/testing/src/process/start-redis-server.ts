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
  /**
   * When the append-only file is flushed to disk: `always` (every write; nothing is lost even by a
   * SIGKILL), `everysec` (what compose and Kubernetes run: a crash may lose the last second),
   * `no` (the kernel decides). Only with `persistent`. @default 'always'
   */
  appendfsync?: 'always' | 'everysec' | 'no';
  /** @default 'redis-server' (FLEET_REDIS_SERVER when set) */
  binary?: string;
}

/** How {@link TestRedisServer.restart} stops the server before starting it again. */
export type RedisStop =
  /** A crash: no shutdown, the append-only file keeps what was flushed (see `appendfsync`). */
  | 'SIGKILL'
  /** A graceful shutdown (as `docker stop` or a Kubernetes rollout): the file is flushed first. */
  | 'SIGTERM';

/** A redis-server of a test's own, on a spare loopback port, that the test may kill and start again. */
export interface TestRedisServer {
  port: number;
  /** `redis://127.0.0.1:<port>` */
  url: string;
  /** Its data directory (the append-only files are under it). */
  dir: string;
  /** The server's output so far (of the current process). */
  output(): string;
  /** SIGKILLs it (no shutdown, as a crash), resolving once it has exited. */
  kill(): Promise<void>;
  /** Stops it gracefully (SIGTERM: Redis flushes its append-only file and exits). */
  shutdown(): Promise<void>;
  /** Starts it again on the same port and data directory, stopping it first (SIGKILL by default). */
  restart(stop?: RedisStop): Promise<void>;
  /** Stops it and removes its data. */
  stop(): Promise<void>;
}

/**
 * Starts a redis-server for one test: fault-injection tests kill it mid-run and start it again
 * (the fleet's own Redis on 6379 is never touched).
 *
 * @example
 * const redisServer = await startRedisServer({ appendfsync: 'everysec' });
 * await redisServer.restart('SIGTERM'); // a graceful restart
 * await redisServer.kill(); // a crash …
 * await redisServer.restart(); // … and a start on the same port and data
 */
export async function startRedisServer({
  port: wanted,
  persistent = true,
  appendfsync = 'always',
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
        appendfsync,
      ],
      readyLine: /Ready to accept connections/,
      timeoutMs: 10_000,
    });
  };
  // Redis flushes its append-only file on SIGTERM; give it time before the SIGKILL fallback.
  const stopWith = async (signal: RedisStop): Promise<void> => {
    await current?.stop(signal, 10_000);
  };
  await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    output: () => current?.output() ?? '',
    kill: () => stopWith('SIGKILL'),
    shutdown: () => stopWith('SIGTERM'),
    async restart(stop: RedisStop = 'SIGKILL') {
      await stopWith(stop);
      await launch();
    },
    async stop() {
      await stopWith('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
