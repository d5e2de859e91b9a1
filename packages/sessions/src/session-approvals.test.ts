import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConflictError, NotFoundError } from '@fleet/errors';
import { Redis } from 'ioredis';
import Redlock from 'redlock';
import type { SessionEvent } from './session-schema';
import {
  createSessionStore,
  type NewApproval,
  type SessionStore,
  type SessionStoreOptions,
} from './session-store';
import { sessionKeys } from './internal/session-keys';

const REDIS_URL = 'redis://127.0.0.1:6379';
const root = `test:sessions:approvals:${randomUUID()}`;

/** Key prefixes of their own for one test, all under this file's root. */
function prefixes(name: string): Omit<SessionStoreOptions, 'redis'> {
  return {
    keyPrefix: `${root}:${name}`,
  };
}

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();
const aMinuteAgo = () => new Date(Date.now() - 60_000).toISOString();

function approval(id: string, overrides: Partial<NewApproval> = {}): NewApproval {
  return {
    id,
    kind: 'node',
    nodeId: 'n1',
    agent: 'mail-agent',
    action: 'send-mail',
    summary: 'Send the report to bob@example.com',
    preview: 'To: bob@example.com\n\nHere is the report.',
    risk: 'high',
    expiresAt: inAnHour(),
    ...overrides,
  };
}

/** The connections `connection.duplicate()` makes from now on, and the commands sent on them. */
function watchSubscriber(connection: Redis): { duplicates: Redis[]; commands: string[] } {
  const watched = { duplicates: [] as Redis[], commands: [] as string[] };
  const duplicate = connection.duplicate.bind(connection);
  connection.duplicate = (...args) => {
    const made = duplicate(...args);
    watched.duplicates.push(made);
    const send = made.sendCommand.bind(made);
    // Commands once connected (not the handshake, and a command queued before is counted once).
    made.sendCommand = (command, stream) => {
      if (made.status === 'ready') watched.commands.push(command.name);
      return send(command, stream);
    };
    return made;
  };
  return watched;
}

/** Resolves with the first `count` events the store delivers for the session. */
async function collectEvents(store: SessionStore, sessionId: string, count: number) {
  const events: SessionEvent[] = [];
  let done: (events: SessionEvent[]) => void = () => undefined;
  const received = new Promise<SessionEvent[]>((resolve) => {
    done = resolve;
  });
  const unsubscribe = await store.subscribe(sessionId, (event) => {
    events.push(event);
    if (events.length === count) done(events);
  });
  return { received, unsubscribe };
}

describe('SessionStore approvals', () => {
  let redis: Redis;
  let other: Redis;
  const connections: Redis[] = [];
  const stores: SessionStore[] = [];
  const storeOn = (connection: Redis, options: Omit<SessionStoreOptions, 'redis'>) => {
    const store = createSessionStore({ redis: connection, ...options });
    stores.push(store);
    return store;
  };

  beforeAll(() => {
    redis = new Redis(REDIS_URL);
    other = new Redis(REDIS_URL);
    connections.push(redis, other);
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    const keys = await redis.keys(`${root}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await Promise.all(connections.map((connection) => connection.quit()));
  });

  describe('addApproval', () => {
    it('adds a pending approval and indexes the session as having one', async () => {
      const options = prefixes('add');
      const sessions = storeOn(redis, options);
      const { id } = await sessions.create({ tenant: 'acme', request: 'x' });
      const added = await sessions.addApproval(id, approval('a1'));
      expect(added).toMatchObject({ id: 'a1', status: 'pending', risk: 'high' });
      expect(typeof added.createdAt).toBe('string');
      const stored = await sessions.get(id);
      expect(stored?.approvals['a1']).toEqual(added);
      expect(stored?.status).toBe('waiting_approval');
      expect(await redis.hexists(sessionKeys(options.keyPrefix).pending(), id)).toBe(1);
    });

    it('refuses a second approval with the same id', async () => {
      const sessions = storeOn(redis, prefixes('add-twice'));
      const { id } = await sessions.create({ tenant: 'acme', request: 'x' });
      await sessions.addApproval(id, approval('a1'));
      await expect(sessions.addApproval(id, approval('a1'))).rejects.toBeInstanceOf(ConflictError);
    });

    it('throws NotFoundError for an unknown session', async () => {
      const sessions = storeOn(redis, prefixes('add-unknown'));
      await expect(sessions.addApproval('nope', approval('a1'))).rejects.toBeInstanceOf(
        NotFoundError,
      );
    });
  });

  describe('decideApproval', () => {
    it('records an approval with instructions and clears the pending index', async () => {
      const options = prefixes('decide');
      const sessions = storeOn(redis, options);
      const { id } = await sessions.create({ tenant: 'acme', request: 'x' });
      await sessions.addApproval(id, approval('a1'));
      const decided = await sessions.decideApproval({
        sessionId: id,
        approvalId: 'a1',
        tenant: 'acme',
        decision: 'approve',
        instructions: 'Copy alice too',
      });
      expect(decided).toMatchObject({
        id: 'a1',
        status: 'approved',
        instructions: 'Copy alice too',
      });
      expect(typeof decided.decidedAt).toBe('string');
      expect((await sessions.get(id))?.approvals['a1']).toEqual(decided);
      expect(await redis.hexists(sessionKeys(options.keyPrefix).pending(), id)).toBe(0);
    });

    it('keeps the session indexed while another approval is still pending', async () => {
      const options = prefixes('decide-one-of-two');
      const sessions = storeOn(redis, options);
      const { id } = await sessions.create({ tenant: 'acme', request: 'x' });
      await sessions.addApproval(id, approval('a1'));
      await sessions.addApproval(id, approval('a2', { nodeId: 'n2' }));
      await sessions.decideApproval({
        sessionId: id,
        approvalId: 'a1',
        tenant: 'acme',
        decision: 'deny',
      });
      expect((await sessions.get(id))?.approvals['a1']?.status).toBe('denied');
      expect(await redis.hexists(sessionKeys(options.keyPrefix).pending(), id)).toBe(1);
    });

    it('answers 404 for an unknown session, another tenant, or an unknown approval', async () => {
      const sessions = storeOn(redis, prefixes('decide-404'));
      const { id } = await sessions.create({ tenant: 'acme', request: 'x' });
      await sessions.addApproval(id, approval('a1'));
      const decide = (sessionId: string, approvalId: string, tenant: string) =>
        sessions.decideApproval({ sessionId, approvalId, tenant, decision: 'approve' });
      await expect(decide('no-such-session', 'a1', 'acme')).rejects.toBeInstanceOf(NotFoundError);
      await expect(decide(id, 'a1', 'globex')).rejects.toBeInstanceOf(NotFoundError);
      await expect(decide(id, 'no-such-approval', 'acme')).rejects.toBeInstanceOf(NotFoundError);
      expect((await sessions.get(id))?.approvals['a1']?.status).toBe('pending');
    });

    it('answers 409 naming the status when the approval was already decided', async () => {
      const sessions = storeOn(redis, prefixes('decide-twice'));
      const { id } = await sessions.create({ tenant: 'acme', request: 'x' });
      await sessions.addApproval(id, approval('a1'));
      const first = await sessions.decideApproval({
        sessionId: id,
        approvalId: 'a1',
        tenant: 'acme',
        decision: 'deny',
      });
      const error = await sessions
        .decideApproval({ sessionId: id, approvalId: 'a1', tenant: 'acme', decision: 'approve' })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ConflictError);
      expect((error as ConflictError).message).toContain('denied');
      expect((error as ConflictError).details).toEqual({ status: 'denied' });
      expect((await sessions.get(id))?.approvals['a1']).toEqual(first);
    });

    it('marks an overdue approval expired, answers 409 and tells subscribers', async () => {
      const options = prefixes('decide-expired');
      const sessions = storeOn(redis, options);
      const listener = storeOn(other, options);
      const { id } = await sessions.create({ tenant: 'acme', request: 'x' });
      await sessions.addApproval(id, approval('a1', { expiresAt: aMinuteAgo() }));
      const { received, unsubscribe } = await collectEvents(listener, id, 1);

      const error = await sessions
        .decideApproval({ sessionId: id, approvalId: 'a1', tenant: 'acme', decision: 'approve' })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ConflictError);
      expect((error as ConflictError).message).toContain('expired');

      const stored = (await sessions.get(id))?.approvals['a1'];
      expect(stored?.status).toBe('expired');
      expect(stored?.instructions).toBeUndefined();
      expect(await redis.hexists(sessionKeys(options.keyPrefix).pending(), id)).toBe(0);
      expect(await received).toEqual([
        { type: 'approval-decided', approvalId: 'a1', status: 'expired' },
      ]);
      await unsubscribe();

      // And it stays expired: a later decision is a 409 too.
      await expect(
        sessions.decideApproval({
          sessionId: id,
          approvalId: 'a1',
          tenant: 'acme',
          decision: 'deny',
        }),
      ).rejects.toBeInstanceOf(ConflictError);
    });

    it('publishes approval-decided to a subscriber on another replica', async () => {
      const options = prefixes('decide-publish');
      const deciding = storeOn(redis, options);
      const listening = storeOn(other, options);
      const { id } = await deciding.create({ tenant: 'acme', request: 'x' });
      await deciding.addApproval(id, approval('a1'));
      const { received, unsubscribe } = await collectEvents(listening, id, 1);
      await deciding.decideApproval({
        sessionId: id,
        approvalId: 'a1',
        tenant: 'acme',
        decision: 'approve',
      });
      expect(await received).toEqual([
        { type: 'approval-decided', approvalId: 'a1', status: 'approved' },
      ]);
      await unsubscribe();
    });

    it('answers 409 while another holder keeps the session locked', async () => {
      const options = prefixes('decide-locked');
      const sessions = storeOn(redis, { ...options, lockRetryCount: 1, lockRetryDelayMs: 10 });
      const { id } = await sessions.create({ tenant: 'acme', request: 'x' });
      await sessions.addApproval(id, approval('a1'));
      const holder = new Redlock([other], { retryCount: 0 });
      const lock = await holder.acquire([sessionKeys(options.keyPrefix).lock(id)], 10_000);
      try {
        await expect(
          sessions.decideApproval({
            sessionId: id,
            approvalId: 'a1',
            tenant: 'acme',
            decision: 'approve',
          }),
        ).rejects.toBeInstanceOf(ConflictError);
      } finally {
        await lock.release();
      }
      expect((await sessions.get(id))?.approvals['a1']?.status).toBe('pending');
    });

    it('lets exactly one of 50 concurrent decisions from 5 replicas win', async () => {
      const options = prefixes('decide-race');
      const replicas = Array.from({ length: 5 }, () => {
        const connection = new Redis(REDIS_URL);
        connections.push(connection);
        return storeOn(connection, options);
      });
      const [first] = replicas;
      const { id } = await first!.create({ tenant: 'acme', request: 'x' });
      await first!.addApproval(id, approval('a1'));

      const calls = replicas.flatMap((replica, r) =>
        Array.from({ length: 10 }, (_, i) => {
          const caller = r * 10 + i;
          const decision = caller % 2 === 0 ? ('approve' as const) : ('deny' as const);
          return { caller, decision, replica };
        }),
      );
      const results = await Promise.allSettled(
        calls.map(({ caller, decision, replica }) =>
          replica.decideApproval({
            sessionId: id,
            approvalId: 'a1',
            tenant: 'acme',
            decision,
            instructions: `from caller ${caller}`,
          }),
        ),
      );

      const winners = results.flatMap((result) =>
        result.status === 'fulfilled' ? [result.value] : [],
      );
      const losers = results.flatMap((result) =>
        result.status === 'rejected' ? [result.reason as unknown] : [],
      );
      expect(winners).toHaveLength(1);
      expect(losers).toHaveLength(49);
      for (const loser of losers) expect(loser).toBeInstanceOf(ConflictError);

      const winner = winners[0]!;
      const winningCall = calls.find(
        (call) => winner.instructions === `from caller ${call.caller}`,
      );
      expect(winningCall).toBeDefined();
      expect(winner.status).toBe(winningCall!.decision === 'approve' ? 'approved' : 'denied');
      expect((await first!.get(id))?.approvals['a1']).toEqual(winner);
    });
  });

  describe('subscribe', () => {
    it('shares one subscriber connection and stops delivering after unsubscribe', async () => {
      const options = prefixes('subscribe');
      const publisher = storeOn(redis, options);
      const connection = new Redis(REDIS_URL);
      connections.push(connection);
      const watched = watchSubscriber(connection);
      const subscriber = storeOn(connection, options);
      const seenByA: SessionEvent[] = [];
      let firstForA: () => void = () => undefined;
      const aHeardOne = new Promise<void>((resolve) => {
        firstForA = resolve;
      });
      const unsubscribeA = await subscriber.subscribe('s1', (event) => {
        seenByA.push(event);
        firstForA();
      });
      const b = await collectEvents(subscriber, 's1', 2);
      const other = await collectEvents(subscriber, 's2', 1);

      await publisher.publish('s1', { type: 'session-updated' });
      await aHeardOne;
      await unsubscribeA();
      await publisher.publish('s1', { type: 'session-canceled' });
      await publisher.publish('s2', { type: 'session-canceled' });
      expect(await b.received).toEqual([{ type: 'session-updated' }, { type: 'session-canceled' }]);
      expect(await other.received).toEqual([{ type: 'session-canceled' }]);
      // B heard the second event, so A would have too had it still been subscribed.
      expect(seenByA).toEqual([{ type: 'session-updated' }]);
      await b.unsubscribe();
      await other.unsubscribe();

      // Three subscriptions to two sessions and their ends: one subscriber connection, and one
      // command on it (the pattern subscription the first one took).
      expect(watched.duplicates).toHaveLength(1);
      expect(watched.commands).toEqual(['psubscribe']);
    });

    it('ignores messages on the channel that are not session events', async () => {
      const options = prefixes('subscribe-garbage');
      const subscriber = storeOn(other, options);
      const { received, unsubscribe } = await collectEvents(subscriber, 's1', 1);
      await redis.publish(sessionKeys(options.keyPrefix).events('s1'), '{"type":"nonsense"}');
      await redis.publish(sessionKeys(options.keyPrefix).events('s1'), 'not json');
      await redis.publish(
        sessionKeys(options.keyPrefix).events('s1'),
        '{"type":"session-updated"}',
      );
      expect(await received).toEqual([{ type: 'session-updated' }]);
      await unsubscribe();
    });

    it('closes its subscriber connection on close()', async () => {
      const options = prefixes('subscribe-close');
      const connection = new Redis(REDIS_URL);
      connections.push(connection);
      const watched = watchSubscriber(connection);
      const subscriber = createSessionStore({ redis: connection, ...options });
      await subscriber.subscribe('s1', () => undefined);
      expect(watched.duplicates[0]?.status).toBe('ready');
      const ended = new Promise((resolve) => watched.duplicates[0]?.once('end', resolve));
      await subscriber.close();
      await ended;
      // The command connection is the caller's, and stays open.
      expect(await connection.ping()).toBe('PONG');
    });
  });

  describe('expireOverdueApprovals', () => {
    it('expires only overdue pending approvals, publishes each and updates the index', async () => {
      const options = prefixes('sweep');
      const sessions = storeOn(redis, options);
      const listener = storeOn(other, options);
      const index = sessionKeys(options.keyPrefix).pending();

      const mixed = await sessions.create({ tenant: 'acme', request: 'mixed' });
      await sessions.addApproval(mixed.id, approval('overdue', { expiresAt: aMinuteAgo() }));
      await sessions.addApproval(mixed.id, approval('current'));
      const overdueOnly = await sessions.create({ tenant: 'acme', request: 'overdue only' });
      await sessions.addApproval(overdueOnly.id, approval('late', { expiresAt: aMinuteAgo() }));
      await sessions.addApproval(overdueOnly.id, approval('done', { expiresAt: aMinuteAgo() }));
      await sessions
        .decideApproval({
          sessionId: overdueOnly.id,
          approvalId: 'done',
          tenant: 'acme',
          decision: 'approve',
        })
        .catch(() => undefined); // overdue, so this marks it expired
      await sessions.addApproval(overdueOnly.id, approval('decided'));
      await sessions.decideApproval({
        sessionId: overdueOnly.id,
        approvalId: 'decided',
        tenant: 'acme',
        decision: 'approve',
      });
      const current = await sessions.create({ tenant: 'acme', request: 'current' });
      await sessions.addApproval(current.id, approval('fresh'));
      const gone = await sessions.create({ tenant: 'acme', request: 'gone' });
      await sessions.addApproval(gone.id, approval('lost', { expiresAt: aMinuteAgo() }));
      await redis.del(sessionKeys(options.keyPrefix).session(gone.id));

      const { received, unsubscribe } = await collectEvents(listener, overdueOnly.id, 1);
      const expired = await sessions.expireOverdueApprovals();
      expect([...expired].sort((a, b) => a.approvalId.localeCompare(b.approvalId))).toEqual([
        { sessionId: overdueOnly.id, approvalId: 'late' },
        { sessionId: mixed.id, approvalId: 'overdue' },
      ]);

      const mixedNow = await sessions.get(mixed.id);
      expect(mixedNow?.approvals['overdue']?.status).toBe('expired');
      expect(mixedNow?.approvals['current']?.status).toBe('pending');
      const overdueNow = await sessions.get(overdueOnly.id);
      expect(overdueNow?.approvals['late']?.status).toBe('expired');
      expect(overdueNow?.approvals['decided']?.status).toBe('approved');
      expect((await sessions.get(current.id))?.approvals['fresh']?.status).toBe('pending');

      expect((await redis.hkeys(index)).sort()).toEqual([current.id, mixed.id].sort());
      expect(await received).toEqual([
        { type: 'approval-decided', approvalId: 'late', status: 'expired' },
      ]);
      await unsubscribe();

      // A second sweep finds nothing more to do.
      expect(await sessions.expireOverdueApprovals()).toEqual([]);
    });

    it('judges overdue by the given time', async () => {
      const sessions = storeOn(redis, prefixes('sweep-now'));
      const { id } = await sessions.create({ tenant: 'acme', request: 'x' });
      await sessions.addApproval(id, approval('a1', { expiresAt: '2030-01-01T00:00:00.000Z' }));
      expect(await sessions.expireOverdueApprovals(new Date('2029-12-31T23:59:59.000Z'))).toEqual(
        [],
      );
      expect(await sessions.expireOverdueApprovals(new Date('2030-01-01T00:00:01.000Z'))).toEqual([
        { sessionId: id, approvalId: 'a1' },
      ]);
      const stored = (await sessions.get(id))?.approvals['a1'];
      expect(stored).toMatchObject({ status: 'expired', decidedAt: '2030-01-01T00:00:01.000Z' });
    });
  });
});
