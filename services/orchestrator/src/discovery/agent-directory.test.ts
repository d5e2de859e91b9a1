import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { agentCardSchema, textPart } from '@fleet/a2a';
import type { RunningServer } from '@fleet/http';
import { answering, startTestAgent } from '../test-support/start-test-agent';
import { createAgentDirectory, type DiscoveryLogger } from './agent-directory';

const TOKEN = 'test-internal-token-0123456789';
const keyPrefix = `test:orchestrator-cards:${randomUUID()}:`;
const done = answering(() => [
  { type: 'artifact', artifact: { name: 'result', parts: [textPart('ok')] } },
]);

function recordingLogger(): DiscoveryLogger & { warnings: { url?: string; reason?: string }[] } {
  const warnings: { url?: string; reason?: string }[] = [];
  return {
    warnings,
    info: () => undefined,
    debug: () => undefined,
    warn: (object) => warnings.push(object),
  };
}

describe('createAgentDirectory', () => {
  let redis: Redis;
  let health = 200;
  const servers: Record<string, RunningServer> = {};

  beforeAll(async () => {
    redis = new Redis('redis://127.0.0.1:6379');
    servers['web1'] = await startTestAgent({ name: 'web-agent', execute: done, token: TOKEN });
    servers['web2'] = await startTestAgent({ name: 'web-agent', execute: done, token: TOKEN });
    servers['rag'] = await startTestAgent({
      name: 'rag-agent',
      execute: done,
      legacyCardOnly: true,
    });
    servers['sick'] = await startTestAgent({
      name: 'sick-agent',
      execute: done,
      healthStatus: () => health,
    });
  });

  afterAll(async () => {
    await Promise.all(Object.values(servers).map((server) => server.shutdown()));
    const keys = await redis.keys(`${keyPrefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('lists healthy agents, merges replicas, drops failing ones and says why', async () => {
    const logger = recordingLogger();
    const urls = [servers['web1'], servers['rag'], servers['web2'], servers['sick']].map(
      (server) => server?.url ?? '',
    );
    health = 503;
    const directory = createAgentDirectory({
      urls: [...urls, 'http://127.0.0.1:9'],
      redis,
      token: TOKEN,
      keyPrefix,
      timeoutMs: 1000,
      logger,
    });
    const agents = await directory.availableAgents();

    expect(agents.map((agent) => agent.name)).toEqual(['web-agent', 'rag-agent']);
    const web = agents[0];
    expect(web?.replicas.map((replica) => replica.url)).toEqual([
      servers['web1']?.url,
      servers['web2']?.url,
    ]);
    expect(web?.summary).toEqual({
      name: 'web-agent',
      description: 'web-agent (test agent)',
      skills: [{ id: 'work', name: 'Work', description: 'does its work', tags: [], examples: [] }],
    });
    // The legacy card path is read when agent-card.json is missing.
    expect(agents[1]?.card.name).toBe('rag-agent');
    // Probes run in parallel: the order of the lines is not fixed.
    expect(logger.warnings).toHaveLength(2);
    expect(logger.warnings).toEqual(
      expect.arrayContaining([
        {
          url: servers['sick']?.url,
          reason: expect.stringMatching(/^its health check failed: GET \/healthz answered 503/),
        },
        {
          url: 'http://127.0.0.1:9',
          reason: expect.stringMatching(/^its Agent Card cannot be read/),
        },
      ]),
    );
    expect(await directory.findAgent('sick-agent')).toBeUndefined();

    // A recovered agent comes back on the next refresh; a repeated failure is not logged again.
    health = 200;
    const refreshed = await directory.refresh();
    expect(refreshed.map((agent) => agent.name)).toEqual(['web-agent', 'rag-agent', 'sick-agent']);
    expect(logger.warnings).toHaveLength(2);
  });

  it('looks again for a missing agent before answering, so start-up order does not matter', async () => {
    health = 503;
    const directory = createAgentDirectory({
      urls: [servers['web1']?.url ?? '', servers['sick']?.url ?? ''],
      redis,
      token: TOKEN,
      keyPrefix,
      ttlSeconds: 60,
      timeoutMs: 1000,
      logger: recordingLogger(),
    });
    try {
      expect((await directory.availableAgents()).map((agent) => agent.name)).toEqual(['web-agent']);
      // The agent comes up after the orchestrator. Within a second the view is used as it is…
      health = 200;
      expect((await directory.availableAgents()).map((agent) => agent.name)).toEqual(['web-agent']);
      // …after that, the next question waits for a new look (not a 60 s TTL) and sees it.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect((await directory.availableAgents()).map((agent) => agent.name)).toEqual([
        'web-agent',
        'sick-agent',
      ]);
    } finally {
      directory.close();
      health = 200;
    }
  });

  it('finds a late agent in the background too, without being asked', async () => {
    health = 503;
    const found: string[] = [];
    const directory = createAgentDirectory({
      urls: [servers['sick']?.url ?? ''],
      redis,
      token: TOKEN,
      keyPrefix,
      ttlSeconds: 60,
      timeoutMs: 1000,
      logger: {
        ...recordingLogger(),
        info: (object: { agent?: string }) => found.push(object.agent ?? ''),
      },
    });
    try {
      expect(await directory.refresh()).toEqual([]);
      health = 200;
      await new Promise((resolve) => setTimeout(resolve, 2500));
      // Found by the background retry (2 s), before anyone asked.
      expect(found).toEqual(['sick-agent']);
      expect((await directory.availableAgents()).map((agent) => agent.name)).toEqual([
        'sick-agent',
      ]);
    } finally {
      directory.close();
      health = 200;
    }
  });

  it('caches each card in Redis with the TTL and reads it from there', async () => {
    const url = servers['web1']?.url ?? '';
    const key = `${keyPrefix}${url}`;
    await redis.del(key);
    const directory = createAgentDirectory({
      urls: [url],
      redis,
      token: TOKEN,
      keyPrefix,
      ttlSeconds: 30,
      logger: recordingLogger(),
    });
    await directory.refresh();
    const cached = agentCardSchema.parse(JSON.parse((await redis.get(key)) ?? 'null'));
    expect(cached.name).toBe('web-agent');
    const ttl = await redis.ttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(30);

    // Another replica of the orchestrator (or a restart) uses the cached card.
    await redis.set(key, JSON.stringify({ ...cached, description: 'from the cache' }), 'EX', 30);
    const other = createAgentDirectory({
      urls: [url],
      redis,
      token: TOKEN,
      keyPrefix,
      logger: recordingLogger(),
    });
    expect((await other.availableAgents())[0]?.summary.description).toBe('from the cache');
  });
  it('sends only commands of one key each to Redis, which a Redis Cluster serves from any slot', async () => {
    const connection = new Redis('redis://127.0.0.1:6379');
    try {
      const sent: { name: string; keys: string[] }[] = [];
      const send = connection.sendCommand.bind(connection);
      connection.sendCommand = (...args: Parameters<Redis['sendCommand']>) => {
        sent.push({ name: args[0].name, keys: args[0].getKeys().map(String) });
        return send(...args);
      };
      const urls = [servers['web1']?.url ?? '', servers['rag']?.url ?? ''];
      await redis.del(...urls.map((url) => `${keyPrefix}${url}`));
      const directory = createAgentDirectory({
        urls,
        redis: connection,
        token: TOKEN,
        keyPrefix,
        logger: recordingLogger(),
      });
      await directory.refresh();
      await directory.availableAgents();
      const data = sent.filter(({ keys }) => keys.length > 0);
      expect(data.map(({ name }) => name)).toEqual(expect.arrayContaining(['get', 'set']));
      for (const { name, keys } of data) {
        expect({ name, keys: keys.length }).toEqual({ name, keys: 1 });
      }
      // Nothing else but the connection's own set-up.
      expect(sent.filter(({ keys }) => keys.length === 0).map(({ name }) => name)).toEqual(
        expect.not.arrayContaining(['eval', 'evalsha', 'multi', 'scan', 'keys']),
      );
    } finally {
      connection.disconnect();
    }
  });
});
