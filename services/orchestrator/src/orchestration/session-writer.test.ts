import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createSessionStore, sessionKeys, type SessionStore } from '@fleet/sessions';
import { Redis } from 'ioredis';
import { createSessionWriter } from './session-writer';

const keyPrefix = `test:orchestrator:writer:${randomUUID()}`;
const logger = { warn: () => undefined };

/** The names of the commands a connection sends, in order. */
function countCommands(redis: Redis): string[] {
  const names: string[] = [];
  const original = redis.sendCommand.bind(redis);
  redis.sendCommand = (command, stream) => {
    names.push(command.name);
    return original(command, stream);
  };
  return names;
}

describe('createSessionWriter', () => {
  let redis: Redis;
  let other: Redis;
  let sessions: SessionStore;
  let gateway: SessionStore;

  beforeAll(() => {
    redis = new Redis({ host: '127.0.0.1', port: 6379 });
    other = new Redis({ host: '127.0.0.1', port: 6379 });
    sessions = createSessionStore({ redis, keyPrefix });
    gateway = createSessionStore({ redis: other, keyPrefix });
  });
  afterAll(async () => {
    await Promise.all([sessions.close(), gateway.close()]);
    const keys = await redis.keys(`${keyPrefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await Promise.all([redis.quit(), other.quit()]);
  });

  it('writes a change recorded at any moment as a flush ends (written() covers it)', async () => {
    // The change comes a few microtasks after the batch's write resolved: at some depth, right
    // after the flush saw nothing left to write and before it was marked over.
    for (let hops = 0; hops < 12; hops += 1) {
      const session = await sessions.create({ tenant: 'acme', request: 'r' });
      const late: { writer?: ReturnType<typeof createSessionWriter> } = {};
      let calls = 0;
      const racing: SessionStore = {
        ...sessions,
        update: async (id, mutate, options) => {
          const written = await sessions.update(id, mutate, options);
          calls += 1;
          if (calls === 1) {
            let chain = Promise.resolve();
            for (let hop = 0; hop < hops; hop += 1) chain = chain.then(() => undefined);
            void chain.then(() =>
              late.writer?.record((draft) => void (draft.error = `late ${hops}`)),
            );
          }
          return written;
        },
      };
      const writer = createSessionWriter({
        sessions: racing,
        sessionId: session.id,
        logger,
        session,
      });
      late.writer = writer;
      writer.record((draft) => void (draft.taskId = 'task'));
      await writer.written();
      // The late change was recorded by now; written() must not resolve before it is stored.
      await new Promise((resolve) => setImmediate(resolve));
      await writer.written();
      expect(await sessions.get(session.id)).toMatchObject({
        taskId: 'task',
        error: `late ${hops}`,
      });
    }
  });

  it('writes each batch of a run in one Redis round trip, no lock taken', async () => {
    const session = await sessions.create({ tenant: 'acme', request: 'r' });
    const sent = countCommands(redis);
    const writer = createSessionWriter({ sessions, sessionId: session.id, logger, session });
    writer.record((draft) => void (draft.taskId = 'task'));
    await writer.written();
    writer.record((draft) => void (draft.planSource = 'request'));
    writer.record((draft) => void (draft.error = 'none yet'));
    await writer.written();
    writer.record((draft) => void (draft.status = 'completed'));
    await writer.written();
    // Three batches: three scripts, no lock acquire, GET or release; the last, ending the session,
    // is followed by its index scripts (tenant's and fleet-wide: it leaves the active set).
    expect(sent).toEqual(Array(5).fill('evalsha'));
    expect(await sessions.get(session.id)).toMatchObject({
      taskId: 'task',
      planSource: 'request',
      error: 'none yet',
      status: 'completed',
    });
  });

  it('keeps a decision made by another writer between two batches', async () => {
    const session = await sessions.create({ tenant: 'acme', request: 'r' });
    const writer = createSessionWriter({ sessions, sessionId: session.id, logger, session });
    writer.record((draft) => void (draft.taskId = 'task'));
    await writer.written();
    await gateway.update(session.id, (draft) => void (draft.error = 'set elsewhere'));
    writer.record((draft) => void (draft.status = 'completed'));
    await writer.written();
    expect(await sessions.get(session.id)).toMatchObject({
      taskId: 'task',
      error: 'set elsewhere',
      status: 'completed',
    });
  });

  it('releases the runner lease in the write that ends the session, and says so once', async () => {
    const { session } = await sessions.createWithRunner(
      { tenant: 'acme', request: 'r' },
      { owner: 'run-1' },
    );
    const leaseKey = sessionKeys(keyPrefix).lease('runner', session.id);
    let released = 0;
    const writer = createSessionWriter({
      sessions,
      sessionId: session.id,
      logger,
      session,
      runner: { owner: 'run-1', onReleased: () => void (released += 1) },
    });
    writer.record((draft) => void (draft.planSource = 'request'));
    await writer.written();
    expect(released).toBe(0);
    expect(await redis.get(leaseKey)).toBe('run-1');

    const sent = countCommands(redis);
    writer.record((draft) => void (draft.status = 'completed'));
    await writer.written();
    // The session's script (the lease goes in it), then its index scripts.
    expect(sent).toEqual(Array(3).fill('evalsha'));
    expect(released).toBe(1);
    expect(await redis.exists(leaseKey)).toBe(0);
    writer.record((draft) => void (draft.error = 'after the end'));
    await writer.written();
    expect(released).toBe(1);
  });
});
