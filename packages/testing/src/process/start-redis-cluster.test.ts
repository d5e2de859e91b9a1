import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { redisCommand } from '../internal/redis-cli';
import { startRedisCluster, type TestRedisCluster } from './start-redis-cluster';

/** One command to the node at `address`, through redis-cli. */
const cli = (address: string, args: string[]): Promise<string> =>
  redisCommand('redis-cli', address, args);

describe('startRedisCluster', () => {
  let cluster: TestRedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, 60_000);
  afterAll(() => cluster?.stop());

  it('forms a cluster of three masters with a replica each, every node ok', async () => {
    expect(cluster.nodes).toHaveLength(6);
    for (const node of cluster.nodes) {
      const info = await cli(node, ['CLUSTER', 'INFO']);
      expect(info).toContain('cluster_state:ok');
      expect(info).toContain('cluster_size:3');
    }
  });

  it('names the master of a key, which serves it without redirection', async () => {
    const master = await cluster.masterFor('{tenant-a}:sessions');
    expect(cluster.nodes).toContain(master);
    expect(await cli(master, ['SET', '{tenant-a}:x', 'here'])).toBe('OK');
    expect(await cli(master, ['GET', '{tenant-a}:x'])).toBe('here');
  });

  it('fails a killed master over to its replica, which keeps the data', async () => {
    const master = await cluster.masterFor('{failover}:key');
    await cli(master, ['SET', '{failover}:key', 'kept']);
    await cli(master, ['WAIT', '1', '2000']);
    await cluster.kill(master);
    const promoted = await cluster.waitForFailover(master);
    expect(promoted).not.toBe(master);
    expect(await cluster.masterFor('{failover}:key')).toBe(promoted);
    expect(await cli(promoted, ['GET', '{failover}:key'])).toBe('kept');
  }, 60_000);
});
