import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { sessionKeys } from './internal/session-keys';
import { migrateSessionKeys, type MigrationProgress } from './migrate-session-keys';
import { sessionSchema, type Session } from './session-schema';
import { createSessionStore } from './session-store';

const root = `test:sessions:migrate:${randomUUID()}`;
/** The old layout, under this file's root (the old defaults with `fleet` replaced by it). */
const from = {
  keyPrefix: `${root}:session`,
  lockPrefix: `${root}:lock:session`,
  leasePrefix: `${root}:lease:session`,
};
const keyPrefix = `${root}:new`;
const keys = sessionKeys(keyPrefix);

/** A stored session as the store writes it. */
function session(
  id: string,
  { tenant, createdAt, ...changes }: Partial<Session> & { tenant: string; createdAt: string },
): string {
  return JSON.stringify(
    sessionSchema.parse({
      id,
      tenant,
      status: 'running',
      createdAt,
      updatedAt: createdAt,
      request: `request ${id}`,
      history: [],
      planApproval: false,
      resultReview: false,
      nodes: {},
      approvals: {},
      ...changes,
    }),
  );
}

const pendingApproval = {
  id: 'a1',
  kind: 'node' as const,
  nodeId: 'n1',
  agent: 'mail-agent',
  action: 'send-mail',
  summary: 'Send it?',
  preview: 'To: bob@example.com',
  risk: 'high' as const,
  status: 'pending' as const,
  createdAt: '2026-01-01T00:00:02.000Z',
  expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
};

describe('migrateSessionKeys', () => {
  let redis: Redis;

  beforeAll(async () => {
    redis = new Redis('redis://127.0.0.1:6379');
    // The old layout: three sessions, their indexes (with an entry whose session is gone), a
    // runner lease and a lock; and a session already in the new layout with a stale old copy.
    await redis.set(
      `${from.keyPrefix}:run`,
      session('run', { tenant: 'acme', createdAt: '2026-01-01T00:00:01.000Z' }),
      'EX',
      600,
    );
    await redis.set(
      `${from.keyPrefix}:wait`,
      session('wait', {
        tenant: 'acme',
        createdAt: '2026-01-01T00:00:02.000Z',
        status: 'waiting_approval',
        approvals: { a1: pendingApproval },
      }),
      'EX',
      600,
    );
    await redis.set(
      `${from.keyPrefix}:done`,
      session('done', {
        tenant: 'globex',
        createdAt: '2026-01-01T00:00:03.000Z',
        status: 'completed',
      }),
      'EX',
      600,
    );
    await redis.zadd(`${from.keyPrefix}s:tenant:acme`, 1, 'run', 2, 'wait', 0, 'gone');
    await redis.zadd(`${from.keyPrefix}s:tenant:globex`, 3, 'done');
    await redis.sadd(`${from.keyPrefix}s:pending-approvals`, 'wait', 'gone');
    await redis.sadd(`${from.keyPrefix}s:active`, 'run', 'wait', 'gone');
    await redis.set(`${from.leasePrefix}:runner:run`, 'replica-a', 'PX', 60_000);
    await redis.set(`${from.lockPrefix}:wait`, 'lock-value', 'PX', 60_000);
    await redis.set(
      `${from.keyPrefix}:moved`,
      session('moved', { tenant: 'acme', createdAt: '2026-01-01T00:00:00.000Z' }),
    );
    await redis.set(
      keys.session('moved'),
      session('moved', {
        tenant: 'acme',
        createdAt: '2026-01-01T00:00:00.000Z',
        status: 'completed',
      }),
      'EX',
      600,
    );
  });
  afterAll(async () => {
    const left = await redis.keys(`${root}:*`);
    if (left.length > 0) await redis.del(...left);
    await redis.quit();
  });

  it('moves sessions and leases to the new layout and rebuilds the indexes the store reads', async () => {
    const progress: MigrationProgress[] = [];
    const result = await migrateSessionKeys(redis, {
      from,
      keyPrefix,
      onProgress: (step) => progress.push(step),
    });
    expect(result).toEqual({
      sessions: 4,
      leases: 1,
      locks: 1,
      indexed: 4,
      unreadable: 0,
      oldIndexes: 4,
    });
    expect(new Set(progress.map((step) => step.phase))).toEqual(
      new Set(['sessions', 'leases', 'locks', 'indexes', 'old-indexes']),
    );

    // Nothing of the old layout is left; the moved keys keep their TTL.
    expect(await redis.keys(`${from.keyPrefix}*`)).toEqual([]);
    expect(await redis.keys(`${from.lockPrefix}*`)).toEqual([]);
    expect(await redis.keys(`${from.leasePrefix}*`)).toEqual([]);
    expect(await redis.ttl(keys.session('run'))).toBeGreaterThan(500);
    expect(await redis.get(keys.lease('runner', 'run'))).toBe('replica-a');
    expect(await redis.pttl(keys.lease('runner', 'run'))).toBeGreaterThan(50_000);
    // A session already moved keeps its newer copy.
    expect(JSON.parse((await redis.get(keys.session('moved'))) ?? '{}')).toMatchObject({
      status: 'completed',
    });

    const store = createSessionStore({ redis, keyPrefix });
    try {
      expect((await store.list('acme')).map(({ id }) => id)).toEqual(['wait', 'run', 'moved']);
      expect((await store.list('globex')).map(({ id }) => id)).toEqual(['done']);
      expect((await store.listActive()).sort()).toEqual(['run', 'wait']);
      expect(await store.countAwaitingApproval()).toBe(1);
      expect(await store.countAwaitingApprovalForTenant('acme')).toBe(1);
      expect(await redis.hgetall(keys.pending())).toEqual({ wait: 'acme' });
      expect(await redis.ttl(keys.tenantIndex('acme'))).toBeGreaterThan(500);
      // The moved lease is the store's: its owner renews it, another cannot take it.
      expect(await store.acquireRunner('run', 'replica-b')).toBeUndefined();
      const decided = await store.decideApproval({
        sessionId: 'wait',
        approvalId: 'a1',
        tenant: 'acme',
        decision: 'approve',
      });
      expect(decided.status).toBe('approved');
      expect(await store.countAwaitingApproval()).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('does nothing more when run again', async () => {
    const before = await redis.keys(`${root}:*`);
    const result = await migrateSessionKeys(redis, { from, keyPrefix });
    expect(result).toMatchObject({ sessions: 0, leases: 0, locks: 0, oldIndexes: 0 });
    expect((await redis.keys(`${root}:*`)).sort()).toEqual(before.sort());
    expect((await redis.zrange(keys.tenantIndex('acme'), 0, -1)).sort()).toEqual([
      'moved',
      'run',
      'wait',
    ]);
  });
});
