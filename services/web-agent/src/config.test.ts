import { describe, expect, it, jest } from '@jest/globals';
import { publicUrlOf } from '@fleet/agent-kit';
import { ConfigError } from '@fleet/errors';
import { DEFAULT_TAVILY_BASE_URL, loadWebAgentConfig, searchProviderSettings } from './config';

const TOKEN = 'web-agent-test-token-0123456789';

describe('loadWebAgentConfig', () => {
  it('has the documented defaults', () => {
    const config = loadWebAgentConfig({ FLEET_INTERNAL_TOKEN: TOKEN });
    expect(config).toMatchObject({
      port: 8084,
      host: '127.0.0.1',
      searchProvider: undefined,
      tavilyBaseUrl: DEFAULT_TAVILY_BASE_URL,
      maxResults: 5,
      fetchPages: 3,
      fetchMaxBytes: 2 * 1024 * 1024,
      fetchTimeoutMs: 10_000,
      fetchMaxRedirects: 5,
      fetchAllowlist: [],
      readWorkers: 2,
      readTimeoutMs: 10_000,
      readMemoryMb: 256,
      readQueueLength: 32,
      readTenantConcurrency: 1,
      readMaxNestingDepth: 150,
      redisUrl: 'redis://127.0.0.1:6379',
    });
    expect(publicUrlOf(config)).toBe('http://127.0.0.1:8084');
  });

  it('reads the provider, limits, allowlist and public URL', () => {
    const config = loadWebAgentConfig({
      FLEET_INTERNAL_TOKEN: TOKEN,
      WEB_AGENT_PORT: '9084',
      WEB_AGENT_PUBLIC_URL: 'http://web-agent:8084/',
      WEB_SEARCH_PROVIDER: 'searxng',
      SEARXNG_URL: 'http://searxng:8080/',
      WEB_FETCH_MAX_BYTES: '512kb',
      WEB_FETCH_TIMEOUT_MS: '2500',
      WEB_FETCH_MAX_REDIRECTS: '0',
      WEB_FETCH_PAGES: '0',
      WEB_FETCH_ALLOWLIST: 'intranet.example.com, *.corp.internal,,',
      WEB_READ_WORKERS: '3',
      WEB_READ_TIMEOUT_MS: '4000',
      WEB_READ_MEMORY_MB: '128',
      WEB_READ_QUEUE_LENGTH: '8',
      WEB_READ_TENANT_CONCURRENCY: '2',
      WEB_READ_MAX_NESTING_DEPTH: '60',
    });
    expect(config).toMatchObject({
      port: 9084,
      searchProvider: 'searxng',
      searxngUrl: 'http://searxng:8080',
      fetchMaxBytes: 512 * 1024,
      fetchTimeoutMs: 2500,
      fetchMaxRedirects: 0,
      fetchPages: 0,
      fetchAllowlist: ['intranet.example.com', '*.corp.internal'],
      readWorkers: 3,
      readTimeoutMs: 4000,
      readMemoryMb: 128,
      readQueueLength: 8,
      readTenantConcurrency: 2,
      readMaxNestingDepth: 60,
    });
    expect(publicUrlOf(config)).toBe('http://web-agent:8084');
  });

  it('still reads the old WEB_AGENT_URL as the public URL, with a deprecation warning', () => {
    const onDeprecated = jest.fn();
    const config = loadWebAgentConfig(
      { FLEET_INTERNAL_TOKEN: TOKEN, WEB_AGENT_URL: 'http://web-agent:8084/' },
      { onDeprecated },
    );
    expect(publicUrlOf(config)).toBe('http://web-agent:8084');
    expect(onDeprecated).toHaveBeenCalledWith('WEB_AGENT_URL', 'WEB_AGENT_PUBLIC_URL');
  });

  it('names every bad variable', () => {
    expect(() =>
      loadWebAgentConfig({
        FLEET_INTERNAL_TOKEN: TOKEN,
        WEB_SEARCH_PROVIDER: 'bing',
        SEARXNG_URL: 'searxng',
        WEB_FETCH_MAX_BYTES: 'lots',
      }),
    ).toThrow(
      /WEB_SEARCH_PROVIDER[\s\S]*SEARXNG_URL[\s\S]*WEB_FETCH_MAX_BYTES|WEB_SEARCH_PROVIDER[\s\S]*WEB_FETCH_MAX_BYTES[\s\S]*SEARXNG_URL/,
    );
  });
});

describe('searchProviderSettings', () => {
  const base = {
    tavilyBaseUrl: DEFAULT_TAVILY_BASE_URL,
    searchProvider: undefined,
    tavilyApiKey: undefined,
    searxngUrl: undefined,
  };

  it('infers the provider from the key or URL, Tavily first, and none without either', () => {
    expect(searchProviderSettings(base)).toEqual({ provider: 'none' });
    expect(
      searchProviderSettings({ ...base, tavilyApiKey: 'tvly-1', searxngUrl: 'http://s' }),
    ).toEqual({
      provider: 'tavily',
      apiKey: 'tvly-1',
      baseUrl: DEFAULT_TAVILY_BASE_URL,
    });
    expect(searchProviderSettings({ ...base, searxngUrl: 'http://s' })).toEqual({
      provider: 'searxng',
      baseUrl: 'http://s',
    });
    expect(
      searchProviderSettings({
        ...base,
        searchProvider: 'searxng',
        tavilyApiKey: 'tvly-1',
        searxngUrl: 'http://s',
      }),
    ).toEqual({ provider: 'searxng', baseUrl: 'http://s' });
  });

  it('refuses a chosen provider without its key or URL', () => {
    expect(() => searchProviderSettings({ ...base, searchProvider: 'tavily' })).toThrow(
      ConfigError,
    );
    expect(() => searchProviderSettings({ ...base, searchProvider: 'tavily' })).toThrow(
      /TAVILY_API_KEY is not set/,
    );
    expect(() => searchProviderSettings({ ...base, searchProvider: 'searxng' })).toThrow(
      /SEARXNG_URL is not set/,
    );
  });
});
