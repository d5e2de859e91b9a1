/**
 * Long-term memory end to end, on a running fleet (gateway, orchestrator and planner as their own
 * processes, real Redis, a scripted agent, offline mode: rule-based extraction and the offline
 * composer), driven by the official openai SDK: a fact stated in one request is used in the next,
 * erasing really erases, and another tenant never sees it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import { startFleet, type RunningFleet } from './support/start-fleet';
import { E2E_KEY } from './support/start-gateway';

/** A second tenant's key. */
const OTHER_KEY = 'sk-e2e-other-0123456789';

interface MemoryView {
  object: string;
  user: string;
  facts: Record<string, { value: unknown } | undefined>;
  preferences: Record<string, unknown>;
  updatedAt: string | null;
}

describe('long-term memory on a running fleet', () => {
  let fleet: RunningFleet;
  let redis: Redis;
  let acme: OpenAI;
  let other: OpenAI;
  /** One user id, used by both tenants: each tenant's user is someone else. */
  const user = `ada-${randomUUID()}`;

  async function ask(client: OpenAI, question: string): Promise<string> {
    const completion = await client.chat.completions.create(
      { model: 'fleet-orchestration', user, messages: [{ role: 'user', content: question }] },
      { headers: { 'X-Routing-Mode': 'orchestration' } },
    );
    return completion.choices[0]?.message.content ?? '';
  }

  /** The memory the web agent's last node input carried. */
  const lastNodeMemory = (): string[] | undefined =>
    fleet.agents['web']?.requests.at(-1)?.nodeInput?.memory;

  const memoryOf = (client: OpenAI): Promise<MemoryView> =>
    client.get<MemoryView>('/memory', { headers: { 'X-Fleet-User': user } });

  beforeAll(async () => {
    fleet = await startFleet({
      agents: [
        {
          name: 'web',
          skills: [{ id: 'search', tags: ['web', 'search', 'news'] }],
          reply: { text: 'A2A 1.0 was released [1].', data: { sources: [{ title: 'A2A' }] } },
        },
      ],
      serviceEnv: { gateway: { GATEWAY_API_KEYS: `${E2E_KEY}:e2e,${OTHER_KEY}:e2e-other` } },
    });
    acme = new OpenAI({ apiKey: fleet.apiKey, baseURL: fleet.baseURL, maxRetries: 0 });
    other = new OpenAI({ apiKey: OTHER_KEY, baseURL: fleet.baseURL, maxRetries: 0 });
    redis = new Redis(process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379');
  }, 90_000);

  afterAll(async () => {
    await fleet?.stop();
    if (redis !== undefined) {
      const encoded = encodeURIComponent(user);
      await redis.del(`fleet:memory:e2e:${encoded}`, `fleet:memory:e2e-other:${encoded}`);
      redis.disconnect();
    }
  }, 60_000);

  it('uses a fact stated in one request in the next one', async () => {
    const first = await ask(
      acme,
      'My name is Ada and I work at Kestrel. Search the web for news about A2A.',
    );
    expect(first).toContain('A2A 1.0 was released');
    expect(lastNodeMemory()).toEqual(['The user’s name is Ada.', 'The user works at Kestrel.']);

    const stored = await memoryOf(acme);
    expect(stored).toMatchObject({
      object: 'memory',
      user,
      facts: { name: { value: 'Ada' }, company: { value: 'Kestrel' } },
    });

    const second = await ask(acme, 'Search the web for news about MCP.');
    expect(second).toMatch(/^Ada, /);
    expect(lastNodeMemory()).toEqual(['The user’s name is Ada.', 'The user works at Kestrel.']);
  });

  it('never shows one tenant’s memory to another, even for the same user id', async () => {
    const answer = await ask(other, 'Search the web for news about MCP.');
    expect(answer).not.toContain('Ada');
    expect(lastNodeMemory()).toEqual([]);
    const seen = await memoryOf(other);
    expect(seen).toMatchObject({ user, facts: {}, preferences: {}, updatedAt: null });
  });

  it('erases the memory: afterwards nothing is known and the next request no longer knows', async () => {
    const erased = await acme.delete<{ deleted: boolean }>('/memory', {
      headers: { 'X-Fleet-User': user },
    });
    expect(erased).toMatchObject({ deleted: true });
    expect(await memoryOf(acme)).toMatchObject({ facts: {}, preferences: {}, updatedAt: null });

    const third = await ask(acme, 'Search the web for news about MCP.');
    expect(third).not.toContain('Ada');
    expect(third).toMatch(/^Here is what the agents found/);
    expect(lastNodeMemory()).toEqual([]);
  });
});
