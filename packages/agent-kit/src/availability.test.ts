import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { agentCardSchema, type AgentAvailability } from '@fleet/a2a';
import { buildAgentCard, createA2AHandler } from '@fleet/a2a/server';
import { createLogger } from '@fleet/telemetry';
import {
  AVAILABILITY_EXTENSION_URI,
  availabilityReadiness,
  completed,
  startAgentService,
  withAvailability,
  type RunningAgentService,
} from './index';

const card = (url = 'http://127.0.0.1:1') =>
  buildAgentCard({
    name: 'echo-agent',
    description: 'Echoes.',
    version: '1.0.0',
    url,
    skills: [
      { id: 'echo', name: 'Echo', description: 'Echoes.' },
      { id: 'shout', name: 'Shout', description: 'Echoes loudly.' },
    ],
    internalToken: true,
  });

const UNCONFIGURED: AgentAvailability = {
  state: 'unconfigured',
  reason: 'No echo chamber is configured: set ECHO_CHAMBER.',
};
const DEGRADED: AgentAvailability = {
  state: 'degraded',
  reason: 'No loudspeaker: set ECHO_SPEAKER.',
  unavailableSkills: ['shout'],
};

describe('withAvailability', () => {
  it('declares the availability as a capabilities extension of a valid v1.0 card', () => {
    const declared = withAvailability(card(), DEGRADED);
    expect(agentCardSchema.parse(declared)).toEqual(declared);
    expect(declared.capabilities).toEqual({
      streaming: true,
      pushNotifications: false,
      extensions: [
        {
          uri: AVAILABILITY_EXTENSION_URI,
          description: expect.any(String) as unknown as string,
          required: false,
          params: {
            state: 'degraded',
            reason: 'No loudspeaker: set ECHO_SPEAKER.',
            unavailableSkills: ['shout'],
          },
        },
      ],
    });
  });

  it('declares ready too, without a reason or skills, and replaces an earlier declaration', () => {
    const twice = withAvailability(withAvailability(card(), UNCONFIGURED), { state: 'ready' });
    expect(twice.capabilities.extensions).toEqual([
      expect.objectContaining({ uri: AVAILABILITY_EXTENSION_URI, params: { state: 'ready' } }),
    ]);
  });

  it('keeps the extensions the card had', () => {
    const base = card();
    const other = { uri: 'urn:example:other', required: false };
    const declared = withAvailability(
      { ...base, capabilities: { ...base.capabilities, extensions: [other] } },
      UNCONFIGURED,
    );
    expect(declared.capabilities.extensions?.map((extension) => extension.uri)).toEqual([
      'urn:example:other',
      AVAILABILITY_EXTENSION_URI,
    ]);
  });
});

describe('availabilityReadiness', () => {
  it('passes when ready and reports the state and reason as degraded otherwise', async () => {
    expect(await availabilityReadiness({ state: 'ready' })()).toBeUndefined();
    expect(await availabilityReadiness(UNCONFIGURED)()).toEqual({
      degraded: 'unconfigured — No echo chamber is configured: set ECHO_CHAMBER.',
    });
    expect(await availabilityReadiness(DEGRADED)()).toEqual({
      degraded: 'degraded — No loudspeaker: set ECHO_SPEAKER. (unavailable skills: shout)',
    });
  });
});

describe('startAgentService with an availability', () => {
  let service: RunningAgentService;

  beforeAll(async () => {
    service = await startAgentService({
      serviceName: 'echo-agent',
      config: {
        port: 0,
        host: '127.0.0.1',
        internalToken: 'agent-kit-availability-token-0123',
        redisUrl: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379',
        nodeEnv: 'test',
      },
      logger: createLogger({ service: 'echo-agent', level: 'silent' }),
      telemetry: { enabled: false, shutdown: () => Promise.resolve() },
      availability: UNCONFIGURED,
      createHandler: ({ store, url }) =>
        createA2AHandler({
          card: withAvailability(card(url), UNCONFIGURED),
          store,
          async *execute() {
            await Promise.resolve();
            yield completed('Echoed.');
          },
        }),
    });
  });

  afterAll(async () => {
    await service.server.shutdown('test over');
  });

  it('answers /readyz 200 "degraded" with the state and reason, not 503', async () => {
    const response = await fetch(`${service.server.url}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: 'degraded',
      checks: {
        redis: 'ok',
        availability: 'degraded: unconfigured — No echo chamber is configured: set ECHO_CHAMBER.',
      },
    });
  });

  it('serves the card with the same availability', async () => {
    const response = await fetch(`${service.server.url}/.well-known/agent-card.json`);
    const served = agentCardSchema.parse(await response.json());
    expect(served.capabilities.extensions).toEqual([
      expect.objectContaining({
        uri: AVAILABILITY_EXTENSION_URI,
        params: { state: 'unconfigured', reason: UNCONFIGURED.reason },
      }),
    ]);
  });
});
