import { describe, expect, it } from '@jest/globals';
import { serviceEnvironment } from './service-environment';
import type { ServiceDefinition } from './services';

const gateway: ServiceDefinition = {
  name: 'gateway',
  packageDir: 'services/gateway',
  portVariable: 'GATEWAY_PORT',
  defaultPort: 8080,
  urlVariable: 'GATEWAY_URL',
  needs: ['redis'],
  discoverable: false,
};
const ragAgent: ServiceDefinition = {
  name: 'rag-agent',
  packageDir: 'services/rag-agent',
  portVariable: 'RAG_AGENT_PORT',
  defaultPort: 8083,
  urlVariable: 'RAG_AGENT_URL',
  needs: ['postgres'],
  discoverable: true,
};
const webAgent: ServiceDefinition = {
  ...ragAgent,
  name: 'web-agent',
  portVariable: 'WEB_AGENT_PORT',
  defaultPort: 8084,
  urlVariable: 'WEB_AGENT_URL',
  publicUrlVariable: 'WEB_AGENT_PUBLIC_URL',
};
const services = [gateway, ragAgent, webAgent];

describe('serviceEnvironment', () => {
  it("passes the caller's environment through and fills in what the runner decided", () => {
    const environment = serviceEnvironment({
      base: { OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', PATH: '/bin', GATEWAY_API_KEYS: '' },
      services,
      running: services,
      ports: { gateway: 9080, 'rag-agent': 8083, 'web-agent': 8084 },
      fleet: {
        REDIS_URL: 'redis://127.0.0.1:6379',
        GATEWAY_API_KEYS: 'sk-dev:dev',
        FLEET_INTERNAL_TOKEN: 'token',
      },
    });
    expect(environment).toMatchObject({
      OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
      PATH: '/bin',
      REDIS_URL: 'redis://127.0.0.1:6379',
      // An empty value counts as unset, as in @fleet/config.
      GATEWAY_API_KEYS: 'sk-dev:dev',
      FLEET_INTERNAL_TOKEN: 'token',
      GATEWAY_PORT: '9080',
      GATEWAY_URL: 'http://127.0.0.1:9080',
      RAG_AGENT_URL: 'http://127.0.0.1:8083',
      AGENT_URLS: 'http://127.0.0.1:8083,http://127.0.0.1:8084',
    });
  });

  it("sets an A2A service's own public URL too, so it never falls back to a deprecated name", () => {
    const environment = serviceEnvironment({
      base: {},
      services,
      running: services,
      ports: { 'web-agent': 9084 },
      fleet: {},
    });
    expect(environment).toMatchObject({
      WEB_AGENT_URL: 'http://127.0.0.1:9084',
      WEB_AGENT_PUBLIC_URL: 'http://127.0.0.1:9084',
    });
    expect(environment).not.toHaveProperty('GATEWAY_PUBLIC_URL');
  });

  it("keeps the caller's own keys, token, URLs and AGENT_URLS", () => {
    const environment = serviceEnvironment({
      base: {
        GATEWAY_API_KEYS: 'mine:acme',
        FLEET_INTERNAL_TOKEN: 'my-token',
        GATEWAY_URL: 'https://gateway.example',
        AGENT_URLS: 'http://elsewhere:9000',
      },
      services,
      running: services,
      ports: { gateway: 8080 },
      fleet: { GATEWAY_API_KEYS: 'sk-dev:dev', FLEET_INTERNAL_TOKEN: 'token' },
    });
    expect(environment).toMatchObject({
      GATEWAY_API_KEYS: 'mine:acme',
      FLEET_INTERNAL_TOKEN: 'my-token',
      GATEWAY_URL: 'https://gateway.example',
      AGENT_URLS: 'http://elsewhere:9000',
    });
  });

  it('lists only the agents of this run in AGENT_URLS, and none when no agent runs', () => {
    const onlyRag = serviceEnvironment({
      base: {},
      services,
      running: [gateway, ragAgent],
      ports: {},
      fleet: {},
    });
    expect(onlyRag['AGENT_URLS']).toBe('http://127.0.0.1:8083');
    const none = serviceEnvironment({
      base: {},
      services,
      running: [gateway],
      ports: {},
      fleet: {},
    });
    expect(none['AGENT_URLS']).toBeUndefined();
  });
});
