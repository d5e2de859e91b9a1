import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { ConfigError } from '@fleet/errors';
import {
  byteSizeSchema,
  envVar,
  loadConfig,
  portSchema,
  renderEnvExample,
  runtimeEnv,
} from './index';

const spec = {
  port: envVar({ name: 'TEST_PORT', schema: portSchema.default(8080), description: 'Port.' }),
  token: envVar({
    name: 'TEST_TOKEN',
    schema: z.string().min(16),
    description: 'Token.',
    secret: true,
  }),
  limit: envVar({
    name: 'TEST_LIMIT',
    schema: byteSizeSchema.prefault('1mb'),
    description: 'Limit.',
  }),
  ...runtimeEnv,
};

describe('loadConfig', () => {
  it('applies defaults and coerces values', () => {
    const config = loadConfig(spec, { TEST_TOKEN: 'x'.repeat(16), TEST_PORT: '9000' });
    expect(config).toMatchObject({ port: 9000, limit: 1024 * 1024, logLevel: 'info' });
  });

  it('treats an empty string as unset', () => {
    const config = loadConfig(spec, { TEST_TOKEN: 'x'.repeat(16), TEST_PORT: '  ' });
    expect(config.port).toBe(8080);
  });

  it('names every bad variable at once and hides secrets', () => {
    let caught: unknown;
    try {
      loadConfig(spec, { TEST_PORT: 'abc', TEST_TOKEN: 'short-secret', LOG_LEVEL: 'loud' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const message = (caught as ConfigError).message;
    expect(message).toContain('3 variables');
    expect(message).toContain('TEST_PORT ("abc")');
    expect(message).toContain('TEST_TOKEN (a value (hidden))');
    expect(message).toContain('LOG_LEVEL ("loud")');
    expect(message).not.toContain('short-secret');
  });
});

describe('renderEnvExample', () => {
  it('lists each variable once with its default', () => {
    const text = renderEnvExample([
      { title: 'A', spec },
      { title: 'B', spec: runtimeEnv },
    ]);
    expect(text.match(/# LOG_LEVEL=/g)).toHaveLength(1);
    expect(text).toContain('# TEST_PORT=8080');
    expect(text).not.toContain('---- B ----');
  });
});
