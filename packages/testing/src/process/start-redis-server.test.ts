import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startRedisServer, type TestRedisServer } from './start-redis-server';

/** One command through redis-cli (on the PATH with redis-server). */
function cli(port: number, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('redis-cli', ['-p', String(port), ...args], (error, stdout) => {
      if (error) reject(new Error(`redis-cli ${args.join(' ')}: ${error.message}`));
      else resolve(stdout.trim());
    });
  });
}

describe('startRedisServer', () => {
  let redisServer: TestRedisServer;
  beforeAll(async () => {
    redisServer = await startRedisServer({ appendfsync: 'everysec' });
  });
  afterAll(() => redisServer?.stop());

  const command = (...args: string[]): Promise<string> => cli(redisServer.port, args);

  it('runs with the append-only file flushed every second, in its own directory', async () => {
    expect(await command('CONFIG', 'GET', 'appendfsync')).toBe('appendfsync\neverysec');
    expect(await command('CONFIG', 'GET', 'appendonly')).toBe('appendonly\nyes');
    const files = await readdir(path.join(redisServer.dir, 'appendonlydir'));
    expect(files.some((file) => file.endsWith('.aof'))).toBe(true);
  });

  it('keeps what was written across a graceful restart, even the last write', async () => {
    await command('SET', 'graceful', 'kept');
    await redisServer.restart('SIGTERM');
    expect(redisServer.output()).toMatch(/DB loaded from (append only file|disk)/);
    expect(await command('GET', 'graceful')).toBe('kept');
  });

  it('keeps what was written more than a second before a SIGKILL', async () => {
    await command('SET', 'crash', 'kept');
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await redisServer.kill();
    await redisServer.restart();
    expect(await command('GET', 'crash')).toBe('kept');
    expect(await command('GET', 'graceful')).toBe('kept');
  });

  it('starts empty after a restart without persistence', async () => {
    const volatile = await startRedisServer({ persistent: false });
    try {
      await cli(volatile.port, ['SET', 'gone', 'soon']);
      await volatile.restart('SIGTERM');
      expect(await cli(volatile.port, ['EXISTS', 'gone'])).toBe('0');
    } finally {
      await volatile.stop();
    }
  });
});
