import { describe, expect, it, jest } from '@jest/globals';
import { publicUrlOf } from '@fleet/agent-kit';
import { ConfigError } from '@fleet/errors';
import { loadReasoningAgentConfig } from './config';

const TOKEN = 'reasoning-agent-test-token-0123';

describe('loadReasoningAgentConfig', () => {
  it('has the documented defaults', () => {
    const config = loadReasoningAgentConfig({ FLEET_INTERNAL_TOKEN: TOKEN });
    expect(config).toMatchObject({
      port: 8087,
      host: '127.0.0.1',
      maxIterations: 6,
      maxTokens: 16_000,
      defaultTimeZone: 'UTC',
      redisUrl: 'redis://127.0.0.1:6379',
      openaiApiKey: undefined,
      openaiBaseUrl: undefined,
    });
    expect(publicUrlOf(config)).toBe('http://127.0.0.1:8087');
  });

  it('reads the budgets, time zone and public URL', () => {
    const config = loadReasoningAgentConfig({
      FLEET_INTERNAL_TOKEN: TOKEN,
      REASONING_AGENT_PORT: '9087',
      REASONING_AGENT_HOST: '0.0.0.0',
      REASONING_MAX_ITERATIONS: '3',
      REASONING_MAX_TOKENS: '4000',
      REASONING_TIME_ZONE: 'Europe/Berlin',
    });
    expect(config).toMatchObject({
      port: 9087,
      maxIterations: 3,
      maxTokens: 4000,
      defaultTimeZone: 'Europe/Berlin',
    });
    expect(publicUrlOf(config)).toBe('http://127.0.0.1:9087');
    expect(publicUrlOf({ ...config, publicUrl: 'http://reasoning-agent:8087' })).toBe(
      'http://reasoning-agent:8087',
    );
  });

  it('reads REASONING_AGENT_PUBLIC_URL, and the old REASONING_AGENT_URL with a warning', () => {
    const onDeprecated = jest.fn();
    const current = loadReasoningAgentConfig(
      { FLEET_INTERNAL_TOKEN: TOKEN, REASONING_AGENT_PUBLIC_URL: 'http://reasoning-agent:8087' },
      { onDeprecated },
    );
    expect(publicUrlOf(current)).toBe('http://reasoning-agent:8087');
    expect(onDeprecated).not.toHaveBeenCalled();
    const old = loadReasoningAgentConfig(
      { FLEET_INTERNAL_TOKEN: TOKEN, REASONING_AGENT_URL: 'http://old-name:8087' },
      { onDeprecated },
    );
    expect(publicUrlOf(old)).toBe('http://old-name:8087');
    expect(onDeprecated).toHaveBeenCalledWith('REASONING_AGENT_URL', 'REASONING_AGENT_PUBLIC_URL');
  });

  it('fails listing every bad variable by name', () => {
    let error: unknown;
    try {
      loadReasoningAgentConfig({
        REASONING_MAX_ITERATIONS: '0',
        REASONING_MAX_TOKENS: 'lots',
        REASONING_TIME_ZONE: 'Mars/Olympus',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    for (const name of [
      'FLEET_INTERNAL_TOKEN',
      'REASONING_MAX_ITERATIONS',
      'REASONING_MAX_TOKENS',
      'REASONING_TIME_ZONE',
    ]) {
      expect(message).toContain(name);
    }
    expect(message).toContain('expected an IANA time zone');
  });
});
