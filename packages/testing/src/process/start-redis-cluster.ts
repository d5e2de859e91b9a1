import { mkdirSync } from 'node:fs';
import path from 'node:path';
import {
  loopbackAddress,
  makeTempDir,
  pollFor,
  redisCli,
  redisCommand,
  removeTempDir,
  type RedisAddress,
} from '../internal/redis-cli';
import { getFreePort } from './get-free-port';
import { startProcess, type RunningProcess } from './start-process';

/** Options for {@link startRedisCluster}. */
export interface StartRedisClusterOptions {
  /** Masters the 16384 slots are split across. @default 3 */
  masters?: number;
  /** Replicas of each master (a killed master's replica takes over). @default 1 */
  replicasPerMaster?: number;
  /**
   * `cluster-node-timeout`: how long a node may be unreachable before it is failed over.
   * @default 1000
   */
  nodeTimeoutMs?: number;
  /** How long to wait for the cluster to form, or to fail over. @default 30000 */
  timeoutMs?: number;
  /** @default 'redis-server' (FLEET_REDIS_SERVER when set) */
  binary?: string;
  /** @default 'redis-cli' (FLEET_REDIS_CLI when set) */
  cliBinary?: string;
}

/** A Redis Cluster of a test's own: real redis-server processes on spare loopback ports. */
export interface TestRedisCluster {
  /** Every node, masters first, as `127.0.0.1:<port>` (what a cluster client is given). */
  nodes: RedisAddress[];
  /** The master currently serving `key`'s slot (its hash tag counts), as `host:port`. */
  masterFor(key: string): Promise<RedisAddress>;
  /** SIGKILLs `node` (a crash), resolving once it has exited. It stays down. */
  kill(node: RedisAddress): Promise<void>;
  /**
   * Waits until the slots `oldMaster` served (before {@link TestRedisCluster.kill}) are served by
   * another master and every live node says `cluster_state:ok`; resolves with the new master.
   */
  waitForFailover(oldMaster: RedisAddress): Promise<RedisAddress>;
  /** Kills every node and removes their data. */
  stop(): Promise<void>;
}

/** One line of `CLUSTER NODES`. */
interface ClusterNodeLine {
  id: string;
  address: RedisAddress;
  flags: string[];
  /** Slot ranges, inclusive (`[start, end]`). */
  slots: [number, number][];
}

/** Parses `CLUSTER NODES` (`<id> <ip:port@cport[,hostname]> <flags> <master> … <slots…>`). */
function parseClusterNodes(text: string): ClusterNodeLine[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      const fields = line.split(' ');
      const address = (fields[1] ?? '').split('@')[0] ?? '';
      const slots: [number, number][] = [];
      for (const field of fields.slice(8)) {
        if (field.startsWith('[')) continue; // a slot being migrated
        const [start, end = start] = field.split('-').map(Number);
        if (start !== undefined && end !== undefined) slots.push([start, end]);
      }
      return { id: fields[0] ?? '', address, flags: (fields[2] ?? '').split(','), slots };
    });
}

/** Whether a node of `CLUSTER NODES` is a master that is up. */
function isLiveMaster(node: ClusterNodeLine): boolean {
  return (
    node.flags.includes('master') && !node.flags.includes('fail') && !node.flags.includes('fail?')
  );
}

function owns(node: ClusterNodeLine, slot: number): boolean {
  return node.slots.some(([start, end]) => slot >= start && slot <= end);
}

/**
 * Starts a Redis Cluster for one test (`--cluster-enabled yes`, no persistence, every node in its
 * own temporary directory): `masters × (1 + replicasPerMaster)` redis-server processes on free
 * loopback ports (and free cluster-bus ports), joined by `redis-cli --cluster create`, resolved
 * once every node says `cluster_state:ok` and every replica is in sync. The processes are killed
 * and the directories removed by `stop()`, or when the test process exits.
 *
 * @example
 * const cluster = await startRedisCluster();
 * const redis = new Cluster(cluster.nodes); // ioredis takes `host:port` strings
 * const master = await cluster.masterFor('{run-1}:events');
 * await cluster.kill(master);
 * await cluster.waitForFailover(master); // its replica now serves the slot
 * await cluster.stop();
 */
export async function startRedisCluster({
  masters = 3,
  replicasPerMaster = 1,
  nodeTimeoutMs = 1000,
  timeoutMs = 30_000,
  binary = process.env['FLEET_REDIS_SERVER'] ?? 'redis-server',
  cliBinary = process.env['FLEET_REDIS_CLI'] ?? 'redis-cli',
}: StartRedisClusterOptions = {}): Promise<TestRedisCluster> {
  if (masters < 1) throw new Error('startRedisCluster: masters must be at least 1');
  const dir = makeTempDir('fleet-test-redis-cluster-');
  const processes = new Map<RedisAddress, RunningProcess>();
  const killed = new Set<RedisAddress>();
  const command = (address: RedisAddress, ...args: string[]): Promise<string> =>
    redisCommand(cliBinary, address, args);
  const live = (): RedisAddress[] => [...processes.keys()].filter((node) => !killed.has(node));

  const stop = async (): Promise<void> => {
    await Promise.all([...processes.values()].map((each) => each.stop('SIGKILL')));
    removeTempDir(dir);
  };

  try {
    const count = masters * (1 + replicasPerMaster);
    const started = await Promise.all(
      Array.from({ length: count }, async () => {
        const port = await getFreePort();
        const busPort = await getFreePort();
        const nodeDir = path.join(dir, String(port));
        mkdirSync(nodeDir);
        const running = await startProcess({
          name: `redis-server:${port} (cluster)`,
          command: binary,
          args: [
            '--port',
            String(port),
            '--bind',
            '127.0.0.1',
            '--dir',
            nodeDir,
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            `nodes-${port}.conf`,
            '--cluster-port',
            String(busPort),
            '--cluster-node-timeout',
            String(nodeTimeoutMs),
            '--appendonly',
            'no',
            '--save',
            '',
          ],
          readyLine: /Ready to accept connections/,
          timeoutMs: 10_000,
        });
        return { address: loopbackAddress(port), running };
      }),
    );
    for (const { address, running } of started) processes.set(address, running);
    const nodes = started.map(({ address }) => address);

    // redis-cli makes the first `masters` nodes masters and the rest their replicas.
    await redisCli(
      cliBinary,
      [
        '--cluster',
        'create',
        ...nodes,
        '--cluster-replicas',
        String(replicasPerMaster),
        '--cluster-yes',
      ],
      { timeoutMs },
    );
    await pollFor(
      'the cluster to form (cluster_state:ok, every replica in sync)',
      async () => {
        for (const node of nodes) {
          const info = await command(node, 'CLUSTER', 'INFO');
          if (!info.includes('cluster_state:ok')) return undefined;
          if (!info.includes(`cluster_known_nodes:${count}`)) return undefined;
          const replication = await command(node, 'INFO', 'replication');
          if (replication.includes('role:slave') && !replication.includes('master_link_status:up'))
            return undefined;
        }
        return true;
      },
      { timeoutMs },
    );

    /** The cluster as a live node sees it. */
    const view = async (): Promise<ClusterNodeLine[]> => {
      let lastError: unknown;
      for (const node of live()) {
        try {
          return parseClusterNodes(await command(node, 'CLUSTER', 'NODES'));
        } catch (error) {
          lastError = error;
        }
      }
      throw lastError instanceof Error ? lastError : new Error('no node of the cluster is up');
    };
    /** A slot each master served when last asked: what waitForFailover looks for. */
    const slotOf = new Map<RedisAddress, number>();
    const rememberSlots = async (): Promise<void> => {
      for (const node of await view()) {
        const first = node.slots[0];
        if (isLiveMaster(node) && first !== undefined) slotOf.set(node.address, first[0]);
      }
    };
    await rememberSlots();

    return {
      nodes,
      async masterFor(key) {
        const slot = Number(await command(live()[0] ?? '', 'CLUSTER', 'KEYSLOT', key));
        const master = (await view()).find((node) => isLiveMaster(node) && owns(node, slot));
        if (master === undefined) throw new Error(`no live master serves slot ${slot} (${key})`);
        return master.address;
      },
      async kill(node) {
        const running = processes.get(node);
        if (running === undefined) throw new Error(`${node} is not a node of this cluster`);
        await rememberSlots().catch(() => undefined);
        killed.add(node);
        await running.stop('SIGKILL');
      },
      async waitForFailover(oldMaster) {
        const slot = slotOf.get(oldMaster);
        if (slot === undefined) throw new Error(`${oldMaster} served no slots`);
        const promoted = await pollFor(
          `a replica of ${oldMaster} to take over slot ${slot}`,
          async () => {
            let master: RedisAddress | undefined;
            for (const node of live()) {
              if (!(await command(node, 'CLUSTER', 'INFO')).includes('cluster_state:ok'))
                return undefined;
              const serving = parseClusterNodes(await command(node, 'CLUSTER', 'NODES')).find(
                (each) => isLiveMaster(each) && owns(each, slot),
              );
              if (serving === undefined || serving.address === oldMaster) return undefined;
              if (master !== undefined && master !== serving.address) return undefined;
              master = serving.address;
            }
            return master;
          },
          { timeoutMs },
        );
        slotOf.delete(oldMaster);
        slotOf.set(promoted, slot);
        return promoted;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
