import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { TEST_REDIS_URL } from '../test-support/build-gateway';
import { createRunSlots } from './run-slots';

describe('createRunSlots', () => {
  let redis: Redis;
  const keyPrefix = `test:gateway:run-slots:${randomUUID()}`;

  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    const keys = await redis.keys(`${keyPrefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('holds at most the limit, and a released slot is free again', async () => {
    const slots = createRunSlots({ redis, keyPrefix });
    const first = await slots.acquire('acme', 2);
    const second = await slots.acquire('acme', 2);
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    expect(await slots.acquire('acme', 2)).toBeUndefined();
    expect(await slots.acquire('globex', 2)).toBeDefined();
    first?.release();
    first?.release();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await slots.held('acme')).toBe(1);
    const third = await slots.acquire('acme', 2);
    expect(third).toBeDefined();
    second?.release();
    third?.release();
  });

  it('keeps a held slot past its lease by renewing it', async () => {
    const slots = createRunSlots({ redis, keyPrefix, leaseMs: 150 });
    const slot = await slots.acquire('renewed', 1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await slots.acquire('renewed', 1)).toBeUndefined();
    slot?.release();
  });

  it("frees a crashed gateway's slots once their lease ends", async () => {
    // A gateway that dies stops renewing: its Redis calls fail from then on.
    const crashed = { alive: true };
    const dying = createRunSlots({
      redis: {
        eval: (...args: unknown[]) =>
          crashed.alive
            ? (redis.eval.bind(redis) as (...rest: unknown[]) => Promise<unknown>)(...args)
            : Promise.reject(new Error('process gone')),
      },
      keyPrefix,
      leaseMs: 200,
    });
    const held = await dying.acquire('crashy', 1);
    expect(held).toBeDefined();
    crashed.alive = false;
    const healthy = createRunSlots({ redis, keyPrefix, leaseMs: 200 });
    expect(await healthy.acquire('crashy', 1)).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 350));
    const taken = await healthy.acquire('crashy', 1);
    expect(taken).toBeDefined();
    taken?.release();
    held?.release();
  });
});
