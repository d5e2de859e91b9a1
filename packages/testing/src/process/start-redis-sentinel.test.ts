import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { redisCommand } from '../internal/redis-cli';
import { startRedisSentinel, type TestRedisSentinel } from './start-redis-sentinel';

/** One command to the node at `address`, through redis-cli. */
const cli = (address: string, args: string[]): Promise<string> =>
  redisCommand('redis-cli', address, args);

describe('startRedisSentinel', () => {
  let sentinel: TestRedisSentinel;
  beforeAll(async () => {
    sentinel = await startRedisSentinel();
  }, 60_000);
  afterAll(() => sentinel?.stop());

  it('has three sentinels that name the primary', async () => {
    expect(sentinel.sentinels).toHaveLength(3);
    for (const each of sentinel.sentinels) {
      const reply = await cli(each, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', sentinel.name]);
      expect(reply.replace('\n', ':')).toBe(sentinel.primary);
    }
  });

  it('promotes the replica when the primary is killed', async () => {
    const first = sentinel.primary;
    await cli(first, ['SET', 'sentinel-key', 'kept']);
    await cli(first, ['WAIT', '1', '2000']);
    await sentinel.killPrimary();
    const promoted = await sentinel.waitForNewPrimary();
    expect(promoted).toBe(sentinel.replica);
    expect(sentinel.primary).toBe(promoted);
    expect(await cli(promoted, ['ROLE'])).toMatch(/^master/);
    expect(await cli(promoted, ['GET', 'sentinel-key'])).toBe('kept');
  }, 60_000);
});
