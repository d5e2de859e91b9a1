import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';

/** A `redis-server` a test owns: it can kill it and start it again on the same port. */
export interface TestRedisServer {
  port: number;
  url: string;
  /** Kills the server at once (SIGKILL), as a crash would; resolves when the process is gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port (no data: nothing is persisted). */
  restart(): Promise<void>;
  /** Kills it if it runs. */
  close(): Promise<void>;
}

async function waitUntilServing(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const probe = new Redis(url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      enableOfflineQueue: false,
    });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      await probe.quit();
      return;
    } catch (error) {
      // Refused and never retried: the client has already ended (a disconnect() now would leave
      // a timer behind for a socket that is closed).
      if (probe.status !== 'end') probe.disconnect();
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/**
 * Starts `redis-server` on `port` (loopback, nothing persisted) and waits until it answers PING.
 *
 * @example
 * const server = await startRedisServer(await getFreePort());
 * await server.kill(); … await server.restart();
 */
export async function startRedisServer(port: number): Promise<TestRedisServer> {
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;

  async function start(): Promise<void> {
    const started = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    child = started;
    const failed = new Promise<never>((_resolve, reject) => {
      started.once('error', reject);
      started.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
    });
    failed.catch(() => undefined);
    await Promise.race([waitUntilServing(url, 10_000), failed]);
  }

  async function kill(): Promise<void> {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGKILL');
    await exited;
  }

  await start();
  return { port, url, kill, restart: start, close: kill };
}
