import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { sessionSchema } from '@fleet/sessions';
import { startRedisServer, type TestRedisServer } from '@fleet/testing';
import { runCli } from '../cli';
import { collector } from '../test-support/output-collector';

/** A session as the earlier version stored it (the JSON is the same in both layouts). */
function storedSession(id: string, tenant: string): string {
  const at = '2026-01-01T00:00:00.000Z';
  return JSON.stringify(
    sessionSchema.parse({
      id,
      tenant,
      status: 'waiting_approval',
      createdAt: at,
      updatedAt: at,
      request: 'find it and mail bob',
      history: [],
      planApproval: false,
      resultReview: false,
      nodes: {},
      approvals: {
        a1: {
          id: 'a1',
          kind: 'node',
          nodeId: 'send',
          agent: 'mail',
          action: 'send-mail',
          summary: 'Send it?',
          preview: 'To: bob@example.com',
          risk: 'high',
          status: 'pending',
          createdAt: at,
          expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
        },
      },
    }),
  );
}

describe('fleet migrate-redis', () => {
  let server: TestRedisServer;
  let redis: Redis;
  let root: string;

  beforeAll(async () => {
    server = await startRedisServer();
    redis = new Redis(server.url);
    root = await mkdtemp(path.join(os.tmpdir(), 'fleet-migrate-'));
  }, 30_000);
  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
    await rm(root, { recursive: true, force: true });
  });

  async function fleet(argv: string[]) {
    const stdout = collector();
    const stderr = collector();
    const code = await runCli({
      argv,
      environment: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', FLEET_ROOT: root },
      stdout,
      stderr,
    });
    return { code, stdout: stdout.text, stderr: stderr.text };
  }

  it("moves an earlier version's sessions and every agent's tasks to the hash-tagged layout", async () => {
    await redis.set('fleet:session:s1', storedSession('s1', 'acme'), 'EX', 3600);
    await redis.zadd('fleet:sessions:tenant:acme', Date.parse('2026-01-01'), 's1');
    await redis.sadd('fleet:sessions:pending-approvals', 's1');
    await redis.sadd('fleet:sessions:active', 's1');
    await redis.hset('fleet:a2a:task:t1', { task: '{}', version: '1', contextId: 'c1' });
    await redis.zadd('fleet:a2a:tasks', 1, 't1');
    await redis.hset('fleet:a2a:mail-agent:task:t2', { task: '{}', version: '1' });
    await redis.set('fleet:a2a:mail-agent:task:t2:claim:send', 'done');

    const first = await fleet(['migrate-redis', '--redis-url', server.url]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/sessions: 1 moved/);
    expect(first.stdout).toMatch(/fleet:a2a: 1 tasks moved/);
    expect(first.stdout).toMatch(/fleet:a2a:mail-agent: 1 tasks moved/);

    expect(JSON.parse((await redis.get('fleet:{s1}:session')) ?? '{}')).toMatchObject({
      id: 's1',
      status: 'waiting_approval',
    });
    expect(await redis.zrange('fleet:{tenant:acme}:sessions', 0, -1)).toEqual(['s1']);
    expect(await redis.hgetall('fleet:a2a:{t1}:task')).toMatchObject({ version: '1' });
    expect(await redis.get('fleet:a2a:mail-agent:{t2}:claim:send')).toBe('done');
    const left = await redis.keys('fleet:session:*');
    expect(left).toEqual([]);
    expect(await redis.exists('fleet:a2a:task:t1', 'fleet:a2a:mail-agent:task:t2')).toBe(0);

    // Run again: nothing left to move, nothing changed.
    const second = await fleet(['migrate-redis', '--redis-url', server.url]);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/sessions: 0 moved/);
    expect(second.stdout).toContain('A2A tasks: none to move');
    expect(await redis.exists('fleet:{s1}:session', 'fleet:a2a:{t1}:task')).toBe(2);
  }, 30_000);

  it('says which Redis does not answer, and exits 1', async () => {
    const result = await fleet(['migrate-redis', '--redis-url', 'redis://127.0.0.1:1']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Redis at redis://127.0.0.1:1 does not answer');
  });

  it('refuses a URL that is not redis:// with a usage error', async () => {
    const result = await fleet(['migrate-redis', '--redis-url', 'http://x']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--redis-url must be a redis:// or rediss:// URL');
  });
});
