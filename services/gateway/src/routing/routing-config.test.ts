import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@fleet/errors';
import { loadGatewayConfig } from '../config';

const base = { GATEWAY_API_KEYS: 'sk-test-acme-0123456789:acme' };

describe('auto routing configuration', () => {
  it('defaults to LLM_MODEL at temperature 0, a 4 s time-out and a 10 000-entry, 10-minute cache', () => {
    const config = loadGatewayConfig(base);
    expect(config.routingClassifierModel).toBeUndefined();
    expect(config.llmModel).toBe('gpt-4o-mini');
    expect(config.routingClassifierTemperature).toBe(0);
    expect(config.routingClassifierTimeoutMs).toBe(4000);
    expect(config.routingCacheSize).toBe(10_000);
    expect(config.routingCacheTtlSeconds).toBe(600);
  });

  it('reads every variable, and a cache size of 0 turns the cache off', () => {
    const config = loadGatewayConfig({
      ...base,
      ROUTING_CLASSIFIER_MODEL: 'gpt-4.1-nano',
      ROUTING_CLASSIFIER_TEMPERATURE: '0.3',
      ROUTING_CLASSIFIER_TIMEOUT_MS: '1500',
      ROUTING_CACHE_SIZE: '0',
      ROUTING_CACHE_TTL_SECONDS: '60',
    });
    expect(config).toEqual(
      expect.objectContaining({
        routingClassifierModel: 'gpt-4.1-nano',
        routingClassifierTemperature: 0.3,
        routingClassifierTimeoutMs: 1500,
        routingCacheSize: 0,
        routingCacheTtlSeconds: 60,
      }),
    );
  });

  it('names every bad variable', () => {
    const load = () =>
      loadGatewayConfig({
        ...base,
        ROUTING_CLASSIFIER_TEMPERATURE: '3',
        ROUTING_CACHE_SIZE: '-1',
        ROUTING_CLASSIFIER_TIMEOUT_MS: 'soon',
      });
    expect(load).toThrow(ConfigError);
    let message = '';
    try {
      load();
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('ROUTING_CLASSIFIER_TEMPERATURE');
    expect(message).toContain('ROUTING_CACHE_SIZE');
    expect(message).toContain('ROUTING_CLASSIFIER_TIMEOUT_MS');
  });
});
