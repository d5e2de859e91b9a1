import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { ConflictError, NotFoundError } from '@fleet/errors';
import { createSessionStore, sessionKeys, type SessionStore } from '@fleet/sessions';
import { updateWithRetry } from './update-with-retry';

const root = `test:orchestrator:update-with-retry:${randomUUID()}`;
const lockKey = (id: string) => sessionKeys(`${root}:session`).lock(id);

describe('updateWithRetry', () => {
  let redis: Redis;
  let sessions: SessionStore;
  let updates = 0;
  /** The real store, counting its `update` calls. */
  let counted: SessionStore;

  beforeAll(() => {
    redis = new Redis('redis://127.0.0.1:6379');
    // No retries of its own: every busy lock is a ConflictError at once.
    sessions = createSessionStore({
      redis,
      keyPrefix: `${root}:session`,
      lockRetryCount: 0,
    });
    counted = Object.assign(Object.create(sessions) as SessionStore, {
      update: (...args: Parameters<SessionStore['update']>) => {
        updates += 1;
        return sessions.update(...args);
      },
    });
  });

  afterAll(async () => {
    await sessions.close();
    const keys = await redis.keys(`${root}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('tries again while the lock is busy and writes once it is free', async () => {
    const { id } = await sessions.create({ tenant: 'acme', request: 'x' });
    await redis.set(lockKey(id), 'someone-else', 'PX', 120);
    updates = 0;
    const value = await updateWithRetry(counted, {
      id,
      mutate: (draft) => {
        draft.status = 'failed';
        return 'written';
      },
    });
    expect(value).toBe('written');
    expect(updates).toBeGreaterThan(1);
    expect((await sessions.get(id))?.status).toBe('failed');
  });

  it('gives up with the ConflictError after four more tries', async () => {
    const { id } = await sessions.create({ tenant: 'acme', request: 'x' });
    await redis.set(lockKey(id), 'someone-else', 'PX', 10_000);
    updates = 0;
    await expect(updateWithRetry(counted, { id, mutate: () => undefined })).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect(updates).toBe(5);
    expect((await sessions.get(id))?.status).toBe('running');
  });

  it('does not try again after any other failure', async () => {
    updates = 0;
    await expect(
      updateWithRetry(counted, { id: `missing-${randomUUID()}`, mutate: () => undefined }),
    ).rejects.toBeInstanceOf(NotFoundError);
    expect(updates).toBe(1);
  });
});
