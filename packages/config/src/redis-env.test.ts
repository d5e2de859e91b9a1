import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@fleet/errors';
import { loadConfig, redisEnv } from './index';

/** The ConfigError message loading `environment` raises (fails the test when none is raised). */
function configErrorOf(environment: Record<string, string>): string {
  try {
    loadConfig(redisEnv, environment);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error('expected a ConfigError');
}

describe('redisEnv', () => {
  it('is one Redis, REDIS_URL, by default', () => {
    expect(loadConfig(redisEnv, {})).toEqual({
      redisUrl: 'redis://127.0.0.1:6379',
      redisClusterNodes: undefined,
      redisSentinels: undefined,
      redisSentinelName: 'mymaster',
      redisClaimReplicas: 0,
      redisClaimWaitMs: 1000,
    });
  });

  it('reads how many replicas a claim waits for, and refuses what is not a count', () => {
    const config = loadConfig(redisEnv, { REDIS_CLAIM_REPLICAS: '1', REDIS_CLAIM_WAIT_MS: '250' });
    expect(config.redisClaimReplicas).toBe(1);
    expect(config.redisClaimWaitMs).toBe(250);
    expect(() => loadConfig(redisEnv, { REDIS_CLAIM_REPLICAS: '-1' })).toThrow(
      /REDIS_CLAIM_REPLICAS/,
    );
    expect(() => loadConfig(redisEnv, { REDIS_CLAIM_REPLICAS: 'one' })).toThrow(
      /REDIS_CLAIM_REPLICAS/,
    );
    expect(() => loadConfig(redisEnv, { REDIS_CLAIM_WAIT_MS: '0' })).toThrow(/REDIS_CLAIM_WAIT_MS/);
  });

  it('reads the cluster nodes as host and port, blanks dropped, IPv6 unbracketed', () => {
    const config = loadConfig(redisEnv, {
      REDIS_CLUSTER_NODES: ' redis-0:6379, 10.0.0.2:7000,,[::1]:7001 ',
    });
    expect(config.redisClusterNodes).toEqual([
      { host: 'redis-0', port: 6379 },
      { host: '10.0.0.2', port: 7000 },
      { host: '::1', port: 7001 },
    ]);
  });

  it('reads the sentinels and the primary name', () => {
    const config = loadConfig(redisEnv, {
      REDIS_SENTINELS: 'sentinel-0:26379,sentinel-1:26379',
      REDIS_SENTINEL_NAME: 'fleet-primary',
    });
    expect(config.redisSentinels).toEqual([
      { host: 'sentinel-0', port: 26379 },
      { host: 'sentinel-1', port: 26379 },
    ]);
    expect(config.redisSentinelName).toBe('fleet-primary');
  });

  it.each([
    ['a missing port', 'redis-0:6379,redis-1'],
    ['a port out of range', 'redis-0:70000'],
    ['a URL instead of host:port', 'redis://redis-0:6379'],
    ['a port that is not a number', 'redis-0:http'],
    ['an unbracketed IPv6 address', '::1:6379'],
    ['only commas', ', ,'],
  ])('rejects %s, naming the variable and the bad address', (_case, value) => {
    const message = configErrorOf({ REDIS_CLUSTER_NODES: value });
    expect(message).toContain(`REDIS_CLUSTER_NODES (${JSON.stringify(value)})`);
    expect(message).toMatch(/expected (comma-separated host:port|at least one host:port)/);
  });

  it('names the bad sentinel address', () => {
    const message = configErrorOf({ REDIS_SENTINELS: 'sentinel-0:26379,sentinel-1' });
    expect(message).toContain('"sentinel-1" is not one');
  });

  it('rejects a cluster and sentinels together, once', () => {
    const message = configErrorOf({
      REDIS_CLUSTER_NODES: 'redis-0:6379',
      REDIS_SENTINELS: 'sentinel-0:26379',
    });
    expect(message).toContain(
      'REDIS_CLUSTER_NODES and REDIS_SENTINELS are both set: set only one of them.',
    );
    expect(message.match(/both set/g)).toHaveLength(1);
  });

  it('reports a conflict together with the other bad variables', () => {
    const message = configErrorOf({
      REDIS_URL: 'http://redis:6379',
      REDIS_CLUSTER_NODES: 'redis-0:6379',
      REDIS_SENTINELS: 'sentinel-0:26379',
    });
    expect(message).toContain('2 variables');
    expect(message).toContain('REDIS_URL ("http://redis:6379")');
    expect(message).toContain('both set');
  });
});
