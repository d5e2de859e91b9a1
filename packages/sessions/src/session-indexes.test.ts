import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConflictError } from '@fleet/errors';
import { Redis } from 'ioredis';
import { writeIndexed } from './internal/session-indexes';
import { sessionKeys } from './internal/session-keys';
import { newSession } from './internal/new-session';
import type { NewApproval } from './session-store-types';
import { createSessionStore, type SessionStore } from './session-store';

const root = `test:sessions:indexes:${randomUUID()}`;

const approval = (id: string): NewApproval => ({
  id,
  kind: 'node',
  nodeId: 'n1',
  agent: 'mail-agent',
  action: 'send-mail',
  summary: 'Send it?',
  preview: 'To: bob@example.com',
  risk: 'high',
  expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
});

/**
 * The indexes live in other slots than the session (Redis Cluster), so a crash can come between
 * a session's write and its index update: an index may then hold an entry too many, never miss
 * one, and readers drop what they find stale.
 */
describe('session indexes around a crash', () => {
  let redis: Redis;
  let store: SessionStore;
  const keys = sessionKeys(root);
  const target = () => ({ redis, keys });

  beforeAll(() => {
    redis = new Redis('redis://127.0.0.1:6379');
    store = createSessionStore({ redis, keyPrefix: root, ttlSeconds: 60 });
  });
  afterAll(async () => {
    await store.close();
    const left = await redis.keys(`${root}:*`);
    if (left.length > 0) await redis.del(...left);
    await redis.quit();
  });

  it('indexes a new session before its write: a crash right after the write loses nothing', async () => {
    const { session, json, createdAtMs } = newSession({ tenant: 'acme', request: 'r' });
    const crash = writeIndexed(
      target(),
      {
        id: session.id,
        tenant: 'acme',
        createdAtMs,
        ttlMs: 60_000,
        previous: undefined,
        next: { pending: false, active: true },
      },
      async () => {
        await redis.set(keys.session(session.id), json, 'EX', 60);
        throw new Error('the process died here');
      },
    );
    await expect(crash).rejects.toThrow('the process died here');
    expect((await store.list('acme')).map(({ id }) => id)).toEqual([session.id]);
    expect(await store.listActive()).toContain(session.id);
  });

  it('drops the entries of a session whose write never happened', async () => {
    const { session, createdAtMs } = newSession({ tenant: 'globex', request: 'r' });
    const crash = writeIndexed(
      target(),
      {
        id: session.id,
        tenant: 'globex',
        createdAtMs,
        ttlMs: 60_000,
        previous: undefined,
        next: { pending: false, active: true },
      },
      () => Promise.reject(new Error('the process died here')),
    );
    await expect(crash).rejects.toThrow('the process died here');
    expect(await redis.zscore(keys.tenantIndex('globex'), session.id)).not.toBeNull();
    expect(await store.list('globex')).toEqual([]);
    expect(await store.listActive()).not.toContain(session.id);
    expect(await redis.zscore(keys.tenantIndex('globex'), session.id)).toBeNull();
    expect(await redis.sismember(keys.active(), session.id)).toBe(0);
  });

  it('leaves a pending entry too many when the write is refused, which the sweep drops', async () => {
    const created = await store.create({ tenant: 'initech', request: 'r' });
    // The lock is lost while the change is made: the fenced write refuses it.
    const refused = store.update(created.id, (draft) => {
      void redis.set(keys.lock(created.id), 'someone-else', 'PX', 5000);
      draft.approvals['a1'] = { ...approval('a1'), status: 'pending', createdAt: draft.createdAt };
      draft.status = 'waiting_approval';
    });
    await expect(refused).rejects.toBeInstanceOf(ConflictError);
    await redis.del(keys.lock(created.id));
    expect((await store.get(created.id))?.status).toBe('running');
    // Added before the write, not removed after a refused one.
    expect(await redis.hget(keys.pending(), created.id)).toBe('initech');
    expect(await store.countAwaitingApprovalForTenant('initech')).toBe(1);

    expect(await store.expireOverdueApprovals()).toEqual([]);
    expect(await redis.hexists(keys.pending(), created.id)).toBe(0);
    expect(await store.countAwaitingApprovalForTenant('initech')).toBe(0);
  });

  it('drops an active entry of an ended session from the recovery list', async () => {
    const created = await store.create({ tenant: 'acme', request: 'ended' });
    await store.update(created.id, (draft) => void (draft.status = 'completed'));
    // As a crash between the write and its index update would leave it.
    await redis.sadd(keys.active(), created.id);
    expect(await store.listActive()).not.toContain(created.id);
    expect(await redis.sismember(keys.active(), created.id)).toBe(0);
  });

  it('moves a session in and out of the indexes as its state changes', async () => {
    const created = await store.create({ tenant: 'hooli', request: 'r' });
    await store.addApproval(created.id, approval('a1'));
    expect(await redis.hget(keys.pending(), created.id)).toBe('hooli');
    expect(await redis.sismember(keys.tenantPending('hooli'), created.id)).toBe(1);
    await store.decideApproval({
      sessionId: created.id,
      approvalId: 'a1',
      tenant: 'hooli',
      decision: 'deny',
    });
    expect(await redis.hexists(keys.pending(), created.id)).toBe(0);
    expect(await redis.sismember(keys.tenantPending('hooli'), created.id)).toBe(0);
    await store.update(created.id, (draft) => void (draft.status = 'failed'));
    expect(await redis.sismember(keys.active(), created.id)).toBe(0);
    await store.update(created.id, (draft) => void (draft.status = 'running'));
    expect(await redis.sismember(keys.active(), created.id)).toBe(1);
    expect(await redis.pttl(keys.tenantIndex('hooli'))).toBeGreaterThan(50_000);
  });
});
