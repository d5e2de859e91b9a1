import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  loopbackAddress,
  makeTempDir,
  pollFor,
  redisCommand,
  removeTempDir,
  type RedisAddress,
} from '../internal/redis-cli';
import { getFreePort } from './get-free-port';
import { startProcess, type RunningProcess } from './start-process';

/** Options for {@link startRedisSentinel}. */
export interface StartRedisSentinelOptions {
  /** The name the sentinels monitor the primary under. @default 'mymaster' */
  name?: string;
  /** Sentinels (the quorum is a majority of them). @default 3 */
  sentinels?: number;
  /** How long the primary may be unreachable before it counts as down. @default 1000 */
  downAfterMs?: number;
  /** `failover-timeout`. @default 5000 */
  failoverTimeoutMs?: number;
  /** How long to wait for the set-up to settle, or for a fail-over. @default 30000 */
  timeoutMs?: number;
  /** @default 'redis-server' (FLEET_REDIS_SERVER when set) */
  binary?: string;
  /** @default 'redis-cli' (FLEET_REDIS_CLI when set) */
  cliBinary?: string;
}

/** A primary, its replica and the sentinels that watch them, for one test. */
export interface TestRedisSentinel {
  /** The name the primary is monitored under (what a client asks the sentinels for). */
  name: string;
  /** The sentinels, as `127.0.0.1:<port>`. */
  sentinels: RedisAddress[];
  /** The primary as last known: the first one, then what {@link waitForNewPrimary} found. */
  readonly primary: RedisAddress;
  /** The replica the harness started (it becomes the primary after a fail-over). */
  replica: RedisAddress;
  /** SIGKILLs the current primary (a crash), resolving once it has exited. It stays down. */
  killPrimary(): Promise<void>;
  /**
   * Waits until every sentinel names a primary other than the killed one and that server says it
   * is a master; resolves with it (and {@link TestRedisSentinel.primary} becomes it).
   */
  waitForNewPrimary(): Promise<RedisAddress>;
  /** Kills every process and removes their data. */
  stop(): Promise<void>;
}

function serverArgs(port: number, dir: string): string[] {
  return [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--appendonly',
    'no',
    '--save',
    '',
  ];
}

/**
 * Starts Redis Sentinel for one test: a primary, one replica of it and three sentinels
 * (`redis-server <conf> --sentinel`, quorum 2, `down-after-milliseconds` 1000), each on a free
 * loopback port in a temporary directory. Resolves once the replica is in sync and every sentinel
 * knows the replica and the other sentinels (`SENTINEL CKQUORUM` is OK), so a fail-over can happen.
 * The processes are killed and the directories removed by `stop()`, or when the test process
 * exits.
 *
 * @example
 * const sentinel = await startRedisSentinel();
 * const redis = new Redis({ sentinels: sentinel.sentinels.map(…), name: sentinel.name });
 * await sentinel.killPrimary();
 * const primary = await sentinel.waitForNewPrimary(); // the former replica
 * await sentinel.stop();
 */
export async function startRedisSentinel({
  name = 'mymaster',
  sentinels: sentinelCount = 3,
  downAfterMs = 1000,
  failoverTimeoutMs = 5000,
  timeoutMs = 30_000,
  binary = process.env['FLEET_REDIS_SERVER'] ?? 'redis-server',
  cliBinary = process.env['FLEET_REDIS_CLI'] ?? 'redis-cli',
}: StartRedisSentinelOptions = {}): Promise<TestRedisSentinel> {
  const dir = makeTempDir('fleet-test-redis-sentinel-');
  const processes = new Map<RedisAddress, RunningProcess>();
  const killed = new Set<RedisAddress>();
  const command = (address: RedisAddress, ...args: string[]): Promise<string> =>
    redisCommand(cliBinary, address, args);
  const stop = async (): Promise<void> => {
    await Promise.all([...processes.values()].map((each) => each.stop('SIGKILL')));
    removeTempDir(dir);
  };

  const startServer = async (
    role: string,
    args: (port: number, dir: string) => string[],
    port: number,
  ): Promise<RedisAddress> => {
    const serverDir = path.join(dir, `${role}-${port}`);
    mkdirSync(serverDir);
    const running = await startProcess({
      name: `redis-server:${port} (${role})`,
      command: binary,
      args: args(port, serverDir),
      readyLine: role === 'sentinel' ? /\+monitor master/ : /Ready to accept connections/,
      timeoutMs: 10_000,
    });
    const address = loopbackAddress(port);
    processes.set(address, running);
    return address;
  };

  try {
    const primaryPort = await getFreePort();
    const firstPrimary = await startServer('primary', serverArgs, primaryPort);
    const replica = await startServer(
      'replica',
      (port, serverDir) => [
        ...serverArgs(port, serverDir),
        '--replicaof',
        '127.0.0.1',
        String(primaryPort),
      ],
      await getFreePort(),
    );
    await pollFor(
      'the replica to be in sync',
      async () =>
        (await command(replica, 'INFO', 'replication')).includes('master_link_status:up')
          ? true
          : undefined,
      { timeoutMs },
    );

    const quorum = Math.floor(sentinelCount / 2) + 1;
    const sentinels = await Promise.all(
      Array.from({ length: sentinelCount }, async () =>
        startServer(
          'sentinel',
          (port, serverDir) => {
            // Sentinel rewrites its configuration file (what it learns): one per sentinel.
            const conf = path.join(serverDir, 'sentinel.conf');
            writeFileSync(
              conf,
              [
                `port ${port}`,
                'bind 127.0.0.1',
                `dir ${serverDir}`,
                `sentinel monitor ${name} 127.0.0.1 ${primaryPort} ${quorum}`,
                `sentinel down-after-milliseconds ${name} ${downAfterMs}`,
                `sentinel failover-timeout ${name} ${failoverTimeoutMs}`,
                `sentinel parallel-syncs ${name} 1`,
                '',
              ].join('\n'),
            );
            return [conf, '--sentinel'];
          },
          await getFreePort(),
        ),
      ),
    );
    await pollFor(
      'every sentinel to know the replica and the other sentinels',
      async () => {
        for (const sentinel of sentinels) {
          const check = await command(sentinel, 'SENTINEL', 'CKQUORUM', name);
          if (!check.startsWith('OK')) return undefined;
          const known = await command(sentinel, 'SENTINEL', 'SENTINELS', name);
          if ((known.match(/^name$/gm) ?? []).length < sentinelCount - 1) return undefined;
          const replicas = await command(sentinel, 'SENTINEL', 'REPLICAS', name);
          if (!replicas.includes(replica.slice(replica.lastIndexOf(':') + 1))) return undefined;
        }
        return true;
      },
      { timeoutMs },
    );

    let primary = firstPrimary;
    return {
      name,
      sentinels,
      get primary() {
        return primary;
      },
      replica,
      async killPrimary() {
        killed.add(primary);
        await processes.get(primary)?.stop('SIGKILL');
      },
      async waitForNewPrimary() {
        primary = await pollFor(
          `the sentinels to promote a new primary for ${name}`,
          async () => {
            let agreed: RedisAddress | undefined;
            for (const sentinel of sentinels) {
              const [host, port] = (
                await command(sentinel, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name)
              ).split('\n');
              const address = `${host}:${port}`;
              if (killed.has(address)) return undefined;
              if (agreed !== undefined && agreed !== address) return undefined;
              agreed = address;
            }
            if (agreed === undefined) return undefined;
            const role = await command(agreed, 'ROLE');
            return role.startsWith('master') ? agreed : undefined;
          },
          { timeoutMs },
        );
        return primary;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
