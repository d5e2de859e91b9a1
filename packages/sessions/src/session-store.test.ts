import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BadRequestError, ConflictError, InternalError, NotFoundError } from '@fleet/errors';
import { Redis } from 'ioredis';
import Redlock from 'redlock';
import { createSessionStore, type SessionStore, type SessionStoreOptions } from './session-store';
import { sessionKeys } from './internal/session-keys';

const REDIS_URL = 'redis://127.0.0.1:6379';
const root = `test:sessions:store:${randomUUID()}`;

/** Key prefixes of their own for one test, all under this file's root. */
function prefixes(name: string): Omit<SessionStoreOptions, 'redis'> {
  return {
    keyPrefix: `${root}:${name}`,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('createSessionStore', () => {
  let redis: Redis;
  let other: Redis;
  const stores: SessionStore[] = [];
  const storeOn = (connection: Redis, options: Omit<SessionStoreOptions, 'redis'>) => {
    const store = createSessionStore({ redis: connection, ...options });
    stores.push(store);
    return store;
  };

  beforeAll(() => {
    redis = new Redis(REDIS_URL);
    other = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    const keys = await redis.keys(`${root}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await Promise.all([redis.quit(), other.quit()]);
  });

  describe('create and get', () => {
    it('stores a running session with defaults and reads it back parsed', async () => {
      const options = prefixes('create');
      const sessions = storeOn(redis, options);
      const created = await sessions.create({ tenant: 'acme', request: 'Plan my trip' });
      expect(created).toMatchObject({
        tenant: 'acme',
        request: 'Plan my trip',
        status: 'running',
        history: [],
        planApproval: false,
        nodes: {},
        approvals: {},
      });
      expect(created.createdAt).toBe(created.updatedAt);
      expect(await sessions.get(created.id)).toEqual(created);
      const raw = await redis.get(sessionKeys(options.keyPrefix).session(created.id));
      expect(raw).not.toBeNull();
    });

    it('keeps the given id, history, plan-approval flag and tool policy', async () => {
      const sessions = storeOn(redis, prefixes('create-given'));
      const created = await sessions.create({
        id: 'session-1',
        tenant: 'acme',
        request: 'Send the report',
        history: [{ role: 'user', content: 'hello' }],
        planApproval: true,
        toolPolicy: { deny: ['memory/delete_*'] },
      });
      expect(created).toMatchObject({
        id: 'session-1',
        history: [{ role: 'user', content: 'hello' }],
        planApproval: true,
        toolPolicy: { deny: ['memory/delete_*'] },
      });
      expect(await sessions.get('session-1')).toEqual(created);
    });

    it('refuses a second session with the same id', async () => {
      const sessions = storeOn(redis, prefixes('create-twice'));
      await sessions.create({ id: 'twice', tenant: 'acme', request: 'one' });
      await expect(
        sessions.create({ id: 'twice', tenant: 'acme', request: 'two' }),
      ).rejects.toBeInstanceOf(ConflictError);
      expect((await sessions.get('twice'))?.request).toBe('one');
    });

    it('refuses an id with a brace, which would split its keys across Redis Cluster slots', async () => {
      const sessions = storeOn(redis, prefixes('create-brace'));
      for (const id of ['}leading', 'a{b', 'a}b']) {
        await expect(sessions.create({ id, tenant: 'acme', request: 'r' })).rejects.toBeInstanceOf(
          BadRequestError,
        );
        expect(await sessions.get(id)).toBeUndefined();
      }
    });

    it('answers undefined for an unknown session', async () => {
      const sessions = storeOn(redis, prefixes('unknown'));
      expect(await sessions.get('no-such-session')).toBeUndefined();
    });

    it('reads sessions written before history, planApproval and approvals existed', async () => {
      const options = prefixes('legacy');
      const sessions = storeOn(redis, options);
      const legacy = {
        id: 'legacy',
        tenant: 'acme',
        status: 'completed',
        createdAt: '2026-01-01T00:00:00.000Z',
        updatedAt: '2026-01-01T00:00:00.000Z',
        request: 'old',
        nodes: {},
      };
      await redis.set(
        sessionKeys(options.keyPrefix).session('legacy'),
        JSON.stringify(legacy),
        'EX',
        60,
      );
      expect(await sessions.get('legacy')).toEqual({
        ...legacy,
        history: [],
        planApproval: false,
        approvals: {},
      });
    });

    it('throws InternalError for a stored session that does not match the schema', async () => {
      const options = prefixes('corrupt');
      const sessions = storeOn(redis, options);
      await redis.set(sessionKeys(options.keyPrefix).session('bad-json'), '{not json', 'EX', 60);
      await redis.set(
        sessionKeys(options.keyPrefix).session('bad-shape'),
        JSON.stringify({ id: 'x' }),
        'EX',
        60,
      );
      await expect(sessions.get('bad-json')).rejects.toBeInstanceOf(InternalError);
      await expect(sessions.get('bad-shape')).rejects.toBeInstanceOf(InternalError);
    });
  });

  describe('createWithRunner', () => {
    it('stores the session with its task and runner lease in one script, indexed before and after it', async () => {
      const options = prefixes('create-runner');
      const sessions = storeOn(redis, options);
      const sent = countCommands(redis);
      const { session, lease } = await sessions.createWithRunner(
        { tenant: 'acme', request: 'Plan my trip', taskId: 'task-1' },
        { owner: 'replica-a', ttlMs: 5000 },
      );
      // The tenant's and the fleet-wide index scripts, the session's script, the index scripts.
      expect(sent.names).toEqual(Array(5).fill('evalsha'));
      sent.stop();
      expect(session).toMatchObject({ tenant: 'acme', status: 'running', taskId: 'task-1' });
      expect(await sessions.get(session.id)).toEqual(session);
      expect(await sessions.list('acme')).toEqual([session]);
      expect(await sessions.listActive()).toContain(session.id);
      const leaseKey = sessionKeys(options.keyPrefix).lease('runner', session.id);
      expect(await redis.get(leaseKey)).toBe('replica-a');
      expect(await redis.pttl(leaseKey)).toBeGreaterThan(4000);
      // The lease is the owner's: nobody else takes it until it is released.
      expect(await sessions.acquireRunner(session.id, 'replica-b')).toBeUndefined();
      await redis.pexpire(leaseKey, 1000);
      expect(await lease.renew()).toBe(true);
      expect(await redis.pttl(leaseKey)).toBeGreaterThan(1000);
      await lease.release();
      expect(await redis.exists(leaseKey)).toBe(0);
    });

    it('refuses a taken id without touching the session or its lease', async () => {
      const options = prefixes('create-runner-twice');
      const sessions = storeOn(redis, options);
      const first = await sessions.createWithRunner(
        { id: 'twice', tenant: 'acme', request: 'one' },
        { owner: 'replica-a' },
      );
      await expect(
        sessions.createWithRunner(
          { id: 'twice', tenant: 'acme', request: 'two' },
          { owner: 'replica-b' },
        ),
      ).rejects.toBeInstanceOf(ConflictError);
      expect(await sessions.get('twice')).toEqual(first.session);
      expect(await redis.get(sessionKeys(options.keyPrefix).lease('runner', 'twice'))).toBe(
        'replica-a',
      );
    });

    it('stores nothing while the runner lease of that id is held', async () => {
      const options = prefixes('create-runner-held');
      const sessions = storeOn(redis, options);
      const held = await sessions.acquireRunner('held', 'replica-a');
      expect(held).toBeDefined();
      await expect(
        sessions.createWithRunner({ id: 'held', tenant: 'acme', request: 'r' }, { owner: 'b' }),
      ).rejects.toBeInstanceOf(ConflictError);
      expect(await sessions.get('held')).toBeUndefined();
      expect(await sessions.list('acme')).toEqual([]);
      expect(await redis.get(sessionKeys(options.keyPrefix).lease('runner', 'held'))).toBe(
        'replica-a',
      );
    });
  });

  describe('getForTenant', () => {
    it("answers another tenant's session exactly like a missing one", async () => {
      const options = prefixes('tenant');
      const sessions = storeOn(redis, options);
      const { id } = await sessions.create({ tenant: 'acme', request: 'x' });
      await expect(sessions.getForTenant(id, 'acme')).resolves.toMatchObject({ id });

      const foreign = await sessions.getForTenant(id, 'globex').catch((error: unknown) => error);
      expect(foreign).toBeInstanceOf(NotFoundError);

      await redis.del(sessionKeys(options.keyPrefix).session(id));
      const missing = await sessions.getForTenant(id, 'acme').catch((error: unknown) => error);
      expect(missing).toBeInstanceOf(NotFoundError);
      expect((foreign as NotFoundError).message).toBe((missing as NotFoundError).message);
      expect((foreign as NotFoundError).status).toBe(404);
    });
  });

  describe('list', () => {
    it("lists only the tenant's sessions, newest first, up to the limit", async () => {
      const sessions = storeOn(redis, prefixes('list'));
      const ids: string[] = [];
      for (let index = 0; index < 5; index += 1) {
        ids.push((await sessions.create({ tenant: 'acme', request: `r${index}` })).id);
        await sessions.create({ tenant: 'globex', request: `g${index}` });
        await sleep(3); // distinct createdAt milliseconds, so the order is defined
      }
      const all = await sessions.list('acme');
      expect(all.map((session) => session.id)).toEqual([...ids].reverse());
      expect(all.every((session) => session.tenant === 'acme')).toBe(true);
      const two = await sessions.list('acme', { limit: 2 });
      expect(two.map((session) => session.id)).toEqual([ids[4], ids[3]]);
      expect(await sessions.list('nobody')).toEqual([]);
    });

    it('drops expired sessions from the index and still fills the limit', async () => {
      const options = prefixes('list-stale');
      const sessions = storeOn(redis, options);
      const ids: string[] = [];
      for (let index = 0; index < 6; index += 1) {
        ids.push((await sessions.create({ tenant: 'acme', request: `r${index}` })).id);
        await sleep(3);
      }
      // The three newest are gone, as if their TTL had run out.
      await redis.del(...ids.slice(3).map((id) => sessionKeys(options.keyPrefix).session(id)));
      const listed = await sessions.list('acme', { limit: 2 });
      expect(listed.map((session) => session.id)).toEqual([ids[2], ids[1]]);
      const index = sessionKeys(options.keyPrefix).tenantIndex('acme');
      expect(await redis.zrevrange(index, 0, -1)).toEqual([ids[2], ids[1], ids[0]]);
    });
  });

  describe('update', () => {
    it('applies the change, returns the mutate value and sets updatedAt', async () => {
      const sessions = storeOn(redis, prefixes('update'));
      const created = await sessions.create({ tenant: 'acme', request: 'x' });
      await sleep(2);
      const { session, value } = await sessions.update(created.id, (draft) => {
        draft.status = 'completed';
        draft.nodes['n1'] = { agent: 'web-agent', state: 'completed', attempts: 1 };
        return 'done';
      });
      expect(value).toBe('done');
      expect(session.status).toBe('completed');
      expect(session.updatedAt > created.updatedAt).toBe(true);
      expect(await sessions.get(created.id)).toEqual(session);
    });

    it('writes nothing when mutate throws or breaks the schema', async () => {
      const sessions = storeOn(redis, prefixes('update-invalid'));
      const created = await sessions.create({ tenant: 'acme', request: 'x' });
      await expect(
        sessions.update(created.id, (draft) => {
          draft.status = 'failed';
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      await expect(
        sessions.update(created.id, (draft) => {
          (draft as { status: string }).status = 'exploded';
        }),
      ).rejects.toBeInstanceOf(InternalError);
      await expect(
        sessions.update(created.id, (draft) => {
          draft.tenant = 'globex';
        }),
      ).rejects.toBeInstanceOf(InternalError);
      expect(await sessions.get(created.id)).toEqual(created);
    });

    it('throws NotFoundError for an unknown session', async () => {
      const sessions = storeOn(redis, prefixes('update-unknown'));
      await expect(sessions.update('no-such-session', () => undefined)).rejects.toBeInstanceOf(
        NotFoundError,
      );
    });

    it('loses no change when two replicas update the same session at once', async () => {
      // Two stores on two connections: two orchestrator replicas.
      const options = prefixes('update-race');
      const first = storeOn(redis, options);
      const second = storeOn(other, options);
      const { id } = await first.create({ tenant: 'acme', request: 'x' });
      for (let round = 0; round < 20; round += 1) {
        await Promise.all([
          first.update(id, (draft) => {
            draft.nodes[`first-${round}`] = { agent: 'a', state: 'completed', attempts: round };
          }),
          second.update(id, (draft) => {
            draft.nodes[`second-${round}`] = { agent: 'b', state: 'completed', attempts: round };
          }),
        ]);
      }
      const stored = await first.get(id);
      const expected = Array.from({ length: 20 }, (_, round) => [
        `first-${round}`,
        `second-${round}`,
      ]).flat();
      expect(Object.keys(stored?.nodes ?? {}).sort()).toEqual(expected.sort());
    });

    it('fails with ConflictError while another holder keeps the lock', async () => {
      const options = prefixes('update-locked');
      const sessions = storeOn(redis, { ...options, lockRetryCount: 2, lockRetryDelayMs: 10 });
      const { id } = await sessions.create({ tenant: 'acme', request: 'x' });
      const holder = new Redlock([other], { retryCount: 0 });
      const lock = await holder.acquire([sessionKeys(options.keyPrefix).lock(id)], 10_000);
      try {
        const error = await sessions
          .update(id, (draft) => {
            draft.status = 'failed';
          })
          .catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(ConflictError);
        expect((error as ConflictError).status).toBe(409);
      } finally {
        await lock.release();
      }
      expect((await sessions.get(id))?.status).toBe('running');
      await expect(
        sessions.update(id, (draft) => {
          draft.status = 'failed';
        }),
      ).resolves.toMatchObject({ session: { status: 'failed' } });
    });

    it('refuses to write once its lock has been lost', async () => {
      const options = prefixes('update-fenced');
      const sessions = storeOn(redis, options);
      const { id } = await sessions.create({ tenant: 'acme', request: 'x' });
      await expect(
        sessions.update(id, (draft) => {
          // Another holder takes the lock after ours ran out; sent on the store's own connection,
          // so it reaches Redis before the store's write does.
          void redis.set(sessionKeys(options.keyPrefix).lock(id), 'someone-else', 'PX', 5000);
          draft.status = 'failed';
        }),
      ).rejects.toBeInstanceOf(ConflictError);
      expect((await sessions.get(id))?.status).toBe('running');
    });
  });

  describe('TTL', () => {
    it('sets the TTL on create and refreshes it on update', async () => {
      const options = prefixes('ttl');
      const sessions = storeOn(redis, { ...options, ttlSeconds: 60 });
      const { id } = await sessions.create({ tenant: 'acme', request: 'x' });
      const key = sessionKeys(options.keyPrefix).session(id);
      const ttl = await redis.ttl(key);
      expect(ttl).toBeGreaterThan(50);
      expect(ttl).toBeLessThanOrEqual(60);

      await redis.pexpire(key, 5000);
      await sessions.update(id, (draft) => {
        draft.status = 'completed';
      });
      expect(await redis.pttl(key)).toBeGreaterThan(50_000);
    });

    it('forgets a session once its TTL has run out', async () => {
      const options = prefixes('ttl-expiry');
      const sessions = storeOn(redis, { ...options, ttlSeconds: 1 });
      const { id } = await sessions.create({ tenant: 'acme', request: 'x' });
      expect(await sessions.get(id)).toBeDefined();
      await sleep(1500);
      expect(await sessions.get(id)).toBeUndefined();
      await expect(sessions.getForTenant(id, 'acme')).rejects.toBeInstanceOf(NotFoundError);
      await expect(sessions.update(id, () => undefined)).rejects.toBeInstanceOf(NotFoundError);
      expect(await sessions.list('acme')).toEqual([]);
    });
  });
});

describe('listActive', () => {
  it('lists running and waiting sessions, not ended or expired ones', async () => {
    const redis = new Redis({ host: '127.0.0.1', port: 6379 });
    const keyPrefix = `test:sessions:active:${randomUUID()}`;
    const store = createSessionStore({ redis, keyPrefix, ttlSeconds: 60 });
    try {
      const running = await store.create({ tenant: 't', request: 'a' });
      const waiting = await store.create({ tenant: 't', request: 'b' });
      const done = await store.create({ tenant: 't', request: 'c' });
      await store.update(waiting.id, (draft) => {
        draft.status = 'waiting_approval';
      });
      await store.update(done.id, (draft) => {
        draft.status = 'completed';
      });
      await redis.del(sessionKeys(keyPrefix).session(running.id));
      const gone = await store.create({ tenant: 't', request: 'd' });
      await redis.del(sessionKeys(keyPrefix).session(gone.id));
      expect(await store.listActive()).toEqual([waiting.id]);
      expect(await redis.smembers(sessionKeys(keyPrefix).active())).toEqual([waiting.id]);
    } finally {
      await store.close();
      const keys = await redis.keys(`${keyPrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    }
  });
});

describe('countAwaitingApprovalForTenant', () => {
  it("counts the tenant's sessions with something pending, up to the limit", async () => {
    const redis = new Redis({ host: '127.0.0.1', port: 6379 });
    const keyPrefix = `test:sessions:awaiting:${randomUUID()}`;
    const store = createSessionStore({ redis, keyPrefix, ttlSeconds: 60 });
    const pending = (id: string) => ({
      id,
      kind: 'node' as const,
      nodeId: 'n1',
      agent: 'mail-agent',
      action: 'send-mail',
      summary: 'Send it?',
      preview: 'To: bob@example.com',
      risk: 'high' as const,
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    });
    try {
      const waiting = [];
      for (let index = 0; index < 3; index += 1) {
        const session = await store.create({ tenant: 'acme', request: `r${index}` });
        await store.addApproval(session.id, pending('a1'));
        waiting.push(session);
      }
      await store.create({ tenant: 'acme', request: 'running' });
      const other = await store.create({ tenant: 'globex', request: 'r' });
      await store.addApproval(other.id, pending('a1'));
      expect(await store.countAwaitingApprovalForTenant('acme')).toBe(3);
      expect(await store.countAwaitingApprovalForTenant('acme', 2)).toBe(2);
      expect(await store.countAwaitingApprovalForTenant('globex')).toBe(1);
      expect(await store.countAwaitingApprovalForTenant('nobody')).toBe(0);
      const first = waiting[0];
      if (first === undefined) throw new Error('no session');
      await store.decideApproval({
        sessionId: first.id,
        approvalId: 'a1',
        tenant: 'acme',
        decision: 'approve',
      });
      expect(await store.countAwaitingApprovalForTenant('acme')).toBe(2);
    } finally {
      await store.close();
      const keys = await redis.keys(`${keyPrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    }
  });
});

/**
 * The names of the commands a connection sends, in order (one round trip each when awaited),
 * until `stop()`.
 */
function countCommands(redis: Redis): { names: string[]; stop(): void } {
  const original = redis.sendCommand.bind(redis);
  const sent = {
    names: [] as string[],
    stop() {
      redis.sendCommand = original;
    },
  };
  redis.sendCommand = (command, stream) => {
    sent.names.push(command.name);
    return original(command, stream);
  };
  return sent;
}

describe('update with expected', () => {
  const keyPrefix = `test:sessions:expected:${randomUUID()}`;
  let redis: Redis;
  let other: Redis;
  let store: SessionStore;
  let gateway: SessionStore;

  beforeAll(() => {
    redis = new Redis(REDIS_URL);
    other = new Redis(REDIS_URL);
    store = createSessionStore({ redis, keyPrefix, lockRetryCount: 2 });
    gateway = createSessionStore({ redis: other, keyPrefix, lockRetryCount: 2 });
  });
  afterAll(async () => {
    await Promise.all([store.close(), gateway.close()]);
    const keys = await redis.keys(`${keyPrefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await Promise.all([redis.quit(), other.quit()]);
  });

  it('writes in one round trip, without the lock, while the session is as expected', async () => {
    const created = await store.create({ tenant: 'acme', request: 'r' });
    const sent = countCommands(redis);
    const first = await store.update(created.id, (draft) => void (draft.taskId = 't1'), {
      expected: created,
    });
    const second = await store.update(created.id, (draft) => void (draft.status = 'completed'), {
      expected: first.session,
    });
    sent.stop();
    // The first write changes no index: one script. The second ends the session: its script, then
    // the tenant's and the fleet-wide index scripts (it leaves the active set).
    expect(sent.names).toEqual(Array(4).fill('evalsha'));
    expect(await store.get(created.id)).toEqual(second.session);
    expect(second.session).toMatchObject({ taskId: 't1', status: 'completed' });
    // The indexes follow as with a locked write: an ended session leaves the active set.
    expect(await redis.sismember(sessionKeys(keyPrefix).active(), created.id)).toBe(0);
  });

  it('writes in one round trip from a session it read, even one stored before fields had defaults', async () => {
    const created = await store.create({ tenant: 'acme', request: 'r' });
    // As stored by an older version: without history, planApproval and approvals.
    const {
      history: _history,
      planApproval: _planApproval,
      approvals: _approvals,
      ...older
    } = created;
    await redis.set(sessionKeys(keyPrefix).session(created.id), JSON.stringify(older), 'EX', 60);
    const read = await store.get(created.id);
    expect(read?.approvals).toEqual({});
    const sent = countCommands(redis);
    const { session } = await store.update(created.id, (draft) => void (draft.taskId = 't3'), {
      expected: read,
    });
    sent.stop();
    expect(sent.names).toEqual(['evalsha']);
    expect(await store.get(created.id)).toEqual(session);
    expect(session).toMatchObject({ taskId: 't3', approvals: {}, history: [] });
  });

  it('starts from the session as stored, not from changes made to the object since', async () => {
    const created = await store.create({ tenant: 'acme', request: 'r' });
    created.request = 'changed in memory only';
    const { session } = await store.update(created.id, (draft) => void (draft.taskId = 't4'), {
      expected: created,
    });
    expect(session).toMatchObject({ request: 'r', taskId: 't4' });
    expect(await store.get(created.id)).toEqual(session);
  });

  it('releases the runner lease in the write that ends the session, for its owner only', async () => {
    const leaseKey = (id: string) => sessionKeys(keyPrefix).lease('runner', id);
    const { session, lease } = await store.createWithRunner(
      { tenant: 'acme', request: 'r' },
      { owner: 'run-a' },
    );
    const first = await store.update(session.id, (draft) => void (draft.taskId = 't5'), {
      expected: session,
      releaseRunner: 'run-a',
    });
    // Still running: the lease stays.
    expect(await redis.get(leaseKey(session.id))).toBe('run-a');
    const sent = countCommands(redis);
    await store.update(session.id, (draft) => void (draft.status = 'completed'), {
      expected: first.session,
      releaseRunner: 'run-a',
    });
    sent.stop();
    // The session's script, then its indexes (it leaves the active set).
    expect(sent.names).toEqual(Array(3).fill('evalsha'));
    expect(await redis.exists(leaseKey(session.id))).toBe(0);
    expect(await lease.renew()).toBe(false);

    // Another owner's lease is kept, on the locked path too.
    const other = await store.createWithRunner(
      { tenant: 'acme', request: 'r' },
      { owner: 'run-b' },
    );
    await store.update(other.session.id, (draft) => void (draft.status = 'failed'), {
      releaseRunner: 'run-a',
    });
    expect(await redis.get(leaseKey(other.session.id))).toBe('run-b');
    await other.lease.release();
  });

  it('keeps a change made elsewhere: a stale expected session falls back to the locked update', async () => {
    const created = await store.create({ tenant: 'acme', request: 'r' });
    const approval = await gateway.addApproval(created.id, {
      id: 'a1',
      kind: 'node',
      nodeId: 'n1',
      agent: 'mail-agent',
      action: 'send-mail',
      summary: 'Send it?',
      preview: 'To: bob@example.com',
      risk: 'high',
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    });
    const calls: string[] = [];
    const { session } = await store.update(
      created.id,
      (draft) => {
        calls.push(Object.keys(draft.approvals).join(','));
        draft.taskId = 't2';
      },
      { expected: created },
    );
    // First on the stale copy (not written), then on the stored session under the lock.
    expect(calls).toEqual(['', 'a1']);
    expect(session.approvals['a1']).toEqual(approval);
    expect(await store.get(created.id)).toMatchObject({
      taskId: 't2',
      approvals: { a1: approval },
    });
  });

  it('does not write while another writer holds the lock', async () => {
    const created = await store.create({ tenant: 'acme', request: 'r' });
    const redlock = new Redlock([other], { retryCount: 0 });
    const lock = await redlock.acquire([sessionKeys(keyPrefix).lock(created.id)], 5000);
    try {
      await expect(
        store.update(created.id, (draft) => void (draft.taskId = 'mine'), { expected: created }),
      ).rejects.toBeInstanceOf(ConflictError);
      expect(await store.get(created.id)).toEqual(created);
    } finally {
      await redlock.release(lock);
    }
  });

  it('answers 404 for a session gone since', async () => {
    const created = await store.create({ tenant: 'acme', request: 'r' });
    await redis.del(sessionKeys(keyPrefix).session(created.id));
    await expect(
      store.update(created.id, (draft) => void (draft.taskId = 'x'), { expected: created }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });
});
