import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startRedisCluster, type TestRedisCluster } from '@fleet/testing';
import { Cluster, Redis } from 'ioredis';
import { sessionKeys } from './internal/session-keys';
import type { NewApproval, SessionEvent } from './index';
import { createSessionStore, type SessionStore } from './session-store';

/**
 * The store's main flows on a real Redis Cluster of three masters, through ioredis `Cluster`
 * connections: a script spanning slots would fail there with CROSSSLOT. Once with classic pub/sub
 * (one PSUBSCRIBE), once with sharded pub/sub (`shardedSubscribers: true`: SSUBSCRIBE per session).
 */
describe.each([
  { pubsub: 'classic', shardedSubscribers: false },
  { pubsub: 'sharded', shardedSubscribers: true },
])('session store on a Redis Cluster ($pubsub pub/sub)', ({ shardedSubscribers }) => {
  const keyPrefix = 'fleet';
  const keys = sessionKeys(keyPrefix);
  let cluster: TestRedisCluster;
  let redis: Cluster;
  let other: Cluster;
  /** The orchestrator's store and, on a connection of its own, the gateway's. */
  let orchestrator: SessionStore;
  let gateway: SessionStore;

  const connect = () => new Cluster(cluster.nodes, { shardedSubscribers });

  /**
   * A session id whose slot is served by another master than its tenant's index and the
   * fleet-wide indexes: every write of it spans three nodes.
   */
  async function spreadId(tenant: string, seed: string): Promise<string> {
    const avoid = new Set([
      await cluster.masterFor(keys.tenantIndex(tenant)),
      await cluster.masterFor(keys.pending()),
    ]);
    for (let attempt = 0; ; attempt += 1) {
      const id = `${seed}-${attempt}`;
      if (!avoid.has(await cluster.masterFor(keys.session(id)))) return id;
    }
  }

  /** `PUBSUB SHARDNUMSUB` of `channel` on the master of its slot. */
  async function shardSubscribers(channel: string): Promise<number> {
    const [host, port] = (await cluster.masterFor(channel)).split(':');
    const node = new Redis({ host, port: Number(port) });
    try {
      const reply = (await node.call('PUBSUB', 'SHARDNUMSUB', channel)) as [string, number];
      return Number(reply[1]);
    } finally {
      await node.quit();
    }
  }

  const approval = (id: string, expiresAt: string): NewApproval => ({
    id,
    kind: 'node',
    nodeId: 'n1',
    agent: 'mail-agent',
    action: 'send-mail',
    summary: 'Send it?',
    preview: 'To: bob@example.com',
    risk: 'high',
    expiresAt,
  });
  const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 0 });
    redis = connect();
    other = connect();
    orchestrator = createSessionStore({ redis, keyPrefix, lockRetryCount: 5 });
    gateway = createSessionStore({ redis: other, keyPrefix, lockRetryCount: 5 });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([orchestrator?.close(), gateway?.close()]);
    await Promise.all([redis?.quit(), other?.quit()]);
    await cluster?.stop();
  });

  it('keeps every key of one session on one master, and its indexes elsewhere', async () => {
    const id = await spreadId('acme', 'layout');
    const master = await cluster.masterFor(keys.session(id));
    for (const key of [keys.lock(id), keys.lease('runner', id), keys.events(id)]) {
      expect(await cluster.masterFor(key)).toBe(master);
    }
    expect(await cluster.masterFor(keys.tenantIndex('acme'))).not.toBe(master);
    expect(await cluster.masterFor(keys.tenantPending('acme'))).toBe(
      await cluster.masterFor(keys.tenantIndex('acme')),
    );
  });

  it('runs a session: created with its runner, approval pending, decided, event heard, ended', async () => {
    const id = await spreadId('acme', 'run');
    const { session, lease } = await orchestrator.createWithRunner(
      { id, tenant: 'acme', request: 'Plan my trip' },
      { owner: 'run-1' },
    );
    expect(await gateway.get(id)).toEqual(session);
    expect(await orchestrator.acquireRunner(id, 'run-2')).toBeUndefined();
    expect(await lease.renew()).toBe(true);
    expect(await orchestrator.listActive()).toContain(id);

    // A run's own write from the session it holds (the compare-and-set path).
    const planned = await orchestrator.update(id, (draft) => void (draft.planSource = 'request'), {
      expected: session,
    });
    expect(planned.session.planSource).toBe('request');

    await orchestrator.addApproval(id, approval('a1', inAnHour()));
    expect((await gateway.get(id))?.status).toBe('waiting_approval');
    expect(await gateway.countAwaitingApproval()).toBeGreaterThanOrEqual(1);
    expect(await gateway.countAwaitingApprovalForTenant('acme')).toBe(1);

    const heard: SessionEvent[] = [];
    const unsubscribe = await orchestrator.subscribe(id, (event) => heard.push(event));
    // Sharded: the session's channel is subscribed on the master of its slot, and only there.
    expect(await shardSubscribers(keys.events(id))).toBe(shardedSubscribers ? 1 : 0);
    const decided = await gateway.decideApproval({
      sessionId: id,
      approvalId: 'a1',
      tenant: 'acme',
      decision: 'approve',
    });
    expect(decided.status).toBe('approved');
    await waitFor(() => heard.length > 0);
    expect(heard).toEqual([{ type: 'approval-decided', approvalId: 'a1', status: 'approved' }]);
    await unsubscribe();
    expect(await shardSubscribers(keys.events(id))).toBe(0);
    expect(await gateway.countAwaitingApprovalForTenant('acme')).toBe(0);

    // The run's last write ends the session and releases its lease.
    const ended = await orchestrator.update(id, (draft) => void (draft.status = 'completed'), {
      releaseRunner: 'run-1',
    });
    expect(ended.session.status).toBe('completed');
    expect(await lease.renew()).toBe(false);
    expect(await orchestrator.listActive()).not.toContain(id);
    const attach = await gateway.acquireAttach(id, 'gateway-1');
    expect(attach).toBeDefined();
    expect(await gateway.acquireAttach(id, 'gateway-2')).toBeUndefined();
    await attach?.release();
  });

  it("lists a tenant's sessions from its index, newest first, only its own", async () => {
    const first = await orchestrator.create({
      id: await spreadId('globex', 'g1'),
      tenant: 'globex',
      request: 'a',
    });
    const second = await orchestrator.create({
      id: await spreadId('globex', 'g2'),
      tenant: 'globex',
      request: 'b',
    });
    await orchestrator.create({ tenant: 'initech', request: 'c' });
    const listed = await gateway.list('globex');
    expect(listed.map(({ id }) => id)).toEqual([second.id, first.id]);
    // A session gone from Redis leaves the index as it is found.
    await redis.del(keys.session(first.id));
    expect((await gateway.list('globex')).map(({ id }) => id)).toEqual([second.id]);
    expect(await redis.zrange(keys.tenantIndex('globex'), 0, -1)).toEqual([second.id]);
  });

  it('expires overdue approvals in a sweep and announces each', async () => {
    const id = await spreadId('acme', 'sweep');
    await orchestrator.create({ id, tenant: 'acme', request: 'r' });
    await orchestrator.addApproval(
      id,
      approval('late', new Date(Date.now() - 60_000).toISOString()),
    );
    const heard: SessionEvent[] = [];
    const unsubscribe = await gateway.subscribe(id, (event) => heard.push(event));
    const expired = await orchestrator.expireOverdueApprovals();
    expect(expired).toContainEqual({ sessionId: id, approvalId: 'late' });
    expect((await gateway.get(id))?.approvals['late']?.status).toBe('expired');
    await waitFor(() => heard.length > 0);
    expect(heard).toEqual([{ type: 'approval-decided', approvalId: 'late', status: 'expired' }]);
    await unsubscribe();
    expect(await redis.hexists(keys.pending(), id)).toBe(0);
    expect(await orchestrator.expireOverdueApprovals()).toEqual([]);
  });
});

/** Polls `done` until it holds (the test's own timeout bounds it). */
async function waitFor(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 10));
}
