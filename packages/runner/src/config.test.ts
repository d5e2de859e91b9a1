import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@fleet/errors';
import { colourAllowed, loadRunnerConfig } from './config';
import { SERVICES } from './services';

describe('loadRunnerConfig', () => {
  it('applies defaults: the repository root, the local Redis and every default port', () => {
    const config = loadRunnerConfig({ services: SERVICES, environment: { HOME: '/home/dev' } });
    expect(config.root).toBe(path.resolve(__dirname, '..', '..', '..'));
    expect(config.localRedisUrl).toBe('redis://127.0.0.1:6379');
    expect(config.redisUrl).toBeUndefined();
    expect(config.redisServerBinary).toBe('redis-server');
    expect(config.ports).toEqual(
      Object.fromEntries(SERVICES.map((service) => [service.name, service.defaultPort])),
    );
    expect(config.environment).toEqual({ HOME: '/home/dev' });
  });

  it('reads port variables, REDIS_URL, FLEET_ROOT and the caller environment', () => {
    const config = loadRunnerConfig({
      services: SERVICES,
      environment: {
        GATEWAY_PORT: '9080',
        REDIS_URL: 'redis://cache:6380',
        FLEET_ROOT: '/tmp/fleet',
        EXTRA: 'x',
        UNSET: undefined,
      },
    });
    expect(config.ports['gateway']).toBe(9080);
    expect(config.redisUrl).toBe('redis://cache:6380');
    expect(config.root).toBe('/tmp/fleet');
    expect(config.environment).toMatchObject({ EXTRA: 'x' });
    expect(config.environment).not.toHaveProperty('UNSET');
  });

  it('names every bad variable at once', () => {
    let caught: unknown;
    try {
      loadRunnerConfig({
        services: SERVICES,
        environment: { GATEWAY_PORT: 'eighty', REDIS_URL: 'http://cache' },
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as Error).message).toContain('GATEWAY_PORT ("eighty")');
    expect((caught as Error).message).toContain('REDIS_URL ("http://cache")');
  });
});

describe('colourAllowed', () => {
  it('is off when NO_COLOR has a value', () => {
    expect(colourAllowed({})).toBe(true);
    expect(colourAllowed({ NO_COLOR: '1' })).toBe(false);
  });
});
