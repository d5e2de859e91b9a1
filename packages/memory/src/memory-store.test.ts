import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { createMemoryStore, type MemoryStore } from './memory-store';
import { MAX_PROJECTS } from './memory-schema';

const prefix = `test:memory-store:${randomUUID()}`;

describe('createMemoryStore', () => {
  let redis: Redis;
  let store: MemoryStore;

  beforeAll(() => {
    redis = new Redis('redis://127.0.0.1:6379');
    store = createMemoryStore({ redis, keyPrefix: prefix });
  });

  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('answers an empty memory for a user it knows nothing about', async () => {
    expect(await store.get({ tenant: 'acme', user: 'nobody' })).toEqual({
      facts: {},
      preferences: {},
    });
  });

  it('merges updates into what is stored, newer winning per key', async () => {
    const owner = { tenant: 'acme', user: 'ada@example.com' };
    await store.merge(owner, {
      update: { facts: { name: 'Ada', company: 'Kestrel' }, preferences: { tone: 'formal' } },
      source: 'rules',
    });
    await store.merge(owner, {
      update: { facts: { company: 'Osprey' }, preferences: { language: 'French' } },
      source: 'llm',
    });
    const memory = await store.get(owner);
    expect(memory.facts.name?.value).toBe('Ada');
    expect(memory.facts.company).toMatchObject({ value: 'Osprey', source: 'llm' });
    expect(memory.preferences.tone?.value).toBe('formal');
    expect(memory.preferences.language?.value).toBe('French');
    expect(memory.updatedAt).toEqual(expect.any(String));
    // Stored as one JSON value at fleet:memory:{tenant}:{user} (user URI-encoded).
    expect(await redis.exists(`${prefix}:acme:ada%40example.com`)).toBe(1);
  });

  it('loses no update when merges for one user run at the same time', async () => {
    const owner = { tenant: 'acme', user: 'busy' };
    await Promise.all(
      ['P1', 'P2', 'P3', 'P4'].map((project) =>
        store.merge(owner, {
          update: { facts: { projects: [project] }, preferences: {} },
          source: 'rules',
        }),
      ),
    );
    const projects = (await store.get(owner)).facts.projects?.value ?? [];
    expect([...projects].sort()).toEqual(['P1', 'P2', 'P3', 'P4']);
  });

  it('stays bounded: at most MAX_PROJECTS projects', async () => {
    const owner = { tenant: 'acme', user: 'many-projects' };
    for (let index = 0; index < 12; index += 1) {
      await store.merge(owner, {
        update: { facts: { projects: [`Project ${index}`] }, preferences: {} },
        source: 'rules',
      });
    }
    const memory = await store.get(owner);
    expect(memory.facts.projects?.value).toHaveLength(MAX_PROJECTS);
    expect(memory.facts.projects?.value[0]).toBe('Project 11');
  });

  it('keeps tenants apart: the same user id under another tenant is someone else', async () => {
    const user = 'shared-id';
    await store.merge(
      { tenant: 'acme', user },
      { update: { facts: { name: 'Ada' }, preferences: {} }, source: 'rules' },
    );
    expect((await store.get({ tenant: 'globex', user })).facts).toEqual({});
  });

  it('erases a user’s memory and says whether there was any', async () => {
    const owner = { tenant: 'acme', user: 'to-erase' };
    await store.merge(owner, {
      update: { facts: { name: 'Ada' }, preferences: {} },
      source: 'rules',
    });
    expect(await store.delete(owner)).toBe(true);
    expect(await store.get(owner)).toEqual({ facts: {}, preferences: {} });
    expect(await store.delete(owner)).toBe(false);
  });

  it('reads an unreadable stored value as empty, and a merge replaces it', async () => {
    const owner = { tenant: 'acme', user: 'corrupt' };
    await redis.set(`${prefix}:acme:corrupt`, '{"facts": {"name": {"value": 42}}}');
    expect(await store.get(owner)).toEqual({ facts: {}, preferences: {} });
    await store.merge(owner, {
      update: { facts: { name: 'Ada' }, preferences: {} },
      source: 'rules',
    });
    expect((await store.get(owner)).facts.name?.value).toBe('Ada');
  });

  it('sets the TTL when one is configured', async () => {
    const expiring = createMemoryStore({ redis, keyPrefix: prefix, ttlSeconds: 3600 });
    await expiring.merge(
      { tenant: 'acme', user: 'expiring' },
      { update: { facts: { name: 'Ada' }, preferences: {} }, source: 'rules' },
    );
    const ttl = await redis.ttl(`${prefix}:acme:expiring`);
    expect(ttl).toBeGreaterThan(3500);
    expect(ttl).toBeLessThanOrEqual(3600);
  });
});
