import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Cluster } from 'ioredis';
import { silentLogger } from '@fleet/http';
import { startRedisCluster, type TestRedisCluster } from '@fleet/testing';
import { tenantKey } from './tenant-key';
import type { RunSlot } from './run-slots';
import { createTenantLimiter, type TenantLimiter } from './tenant-limiter';

function response(): ServerResponse {
  return new ServerResponse(new IncomingMessage(new Socket()));
}

describe('createTenantLimiter on a Redis Cluster of three masters (ioredis Cluster)', () => {
  let cluster: TestRedisCluster;
  const connections: Cluster[] = [];
  const keyPrefix = 'fleet:limits:test';

  /** A gateway replica: its own Cluster connection and limiter. */
  async function replica(): Promise<TenantLimiter> {
    const connection = new Cluster(
      cluster.nodes.map((node) => {
        const [host = '', port = ''] = node.split(':');
        return { host, port: Number(port) };
      }),
    );
    connections.push(connection);
    await connection.ping();
    return createTenantLimiter({
      redis: connection,
      sessions: { countAwaitingApprovalForTenant: () => Promise.resolve(0) },
      defaults: { rpm: 4, runs: 2, waiting: null, tokens_per_day: 100 },
      keyPrefix,
      // A replica's share of the window between two syncs: ⌈4 × 1 s / 60 s⌉ = 1 request.
      syncIntervalMs: 1000,
      logger: silentLogger,
    });
  }

  /** Tenants whose keys live on at least two masters. */
  async function tenantsOnTwoMasters(): Promise<string[]> {
    const tenants: string[] = [];
    const masters = new Set<string>();
    for (let index = 0; masters.size < 2 || tenants.length < 2; index += 1) {
      const tenant = `tenant-${index}`;
      const master = await cluster.masterFor(tenantKey(keyPrefix, tenant, 'runs'));
      if (tenants.length === 0 || !masters.has(master)) {
        tenants.push(tenant);
        masters.add(master);
      }
    }
    return tenants;
  }

  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 0 });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(connections.map((connection) => connection.quit().catch(() => undefined)));
    await cluster?.stop();
  });

  it("counts each tenant's requests, tokens and runs across replicas, each tenant on its own master", async () => {
    const [one, two] = [await replica(), await replica()];
    for (const tenant of await tenantsOnTwoMasters()) {
      // Requests: 4 per window for the tenant, whichever replica admits them, give or take the
      // other replica's share (1) that was not synced yet (docs/limits.md).
      const outcomes: boolean[] = [];
      for (let index = 0; index < 8; index += 1) {
        const limiter = index % 2 === 0 ? one : two;
        outcomes.push(
          await limiter.admit({ tenant, route: 'chat', res: response() }).then(
            () => true,
            () => false,
          ),
        );
        await limiter.sync();
      }
      const admitted = outcomes.filter(Boolean).length;
      expect(admitted).toBeGreaterThanOrEqual(4);
      expect(admitted).toBeLessThanOrEqual(5);
      expect(outcomes.slice(-2)).toEqual([false, false]);

      // Tokens: one replica records, the other refuses once the day's budget is spent.
      one.recordTokens(tenant, 150);
      await one.sync();
      await two.sync();
      await expect(two.admit({ tenant, route: 'embeddings', res: response() })).rejects.toThrow(
        'tokens',
      );

      // Runs: 2 at once across replicas; a released slot is free again.
      const first = await one.acquireRun({ tenant, res: response() });
      await two.acquireRun({ tenant, res: response() });
      await expect(one.acquireRun({ tenant, res: response() })).rejects.toThrow('concurrent');
      first.release();
      // The release is sent without waiting for it: the slot frees once Redis has it.
      let again: RunSlot | undefined;
      for (let attempt = 0; again === undefined && attempt < 100; attempt += 1) {
        again = await two.acquireRun({ tenant, res: response() }).catch(async () => {
          await new Promise((resolve) => setTimeout(resolve, 20));
          return undefined;
        });
      }
      expect(again).toBeDefined();
    }
  });
});
