/**
 * What an agent the fleet did not write must offer to be used at all: the fleet reads its card and
 * sends it work, whatever optional parts of A2A it leaves out. Each agent here is built only on
 * `@a2a-js/sdk` 1.3 and differs from the ordinary one in a single way.
 *
 * - no `/healthz`: a 404 there still proves the server is up (the SDK serves no such route);
 * - `capabilities.streaming: false`: the orchestrator sends a blocking `SendMessage` instead of
 *   `SendStreamingMessage` (which the SDK refuses for such an agent).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import type { AgentExecutor } from '@a2a-js/sdk/server';
import {
  artifactEvent,
  startSdkAgent,
  statusEvent,
  taskSnapshot,
  type SdkAgent,
  type StartSdkAgentOptions,
} from '@fleet/testing';
import { streamChat, type FleetEvent, type Json } from './support/gateway-api';
import { E2E_INTERNAL_TOKEN, startFleet, type RunningFleet } from './support/start-fleet';

/** An executor that completes every task with one `result` artifact. */
function answering(text: string): AgentExecutor {
  return {
    execute(context, bus) {
      bus.publish(taskSnapshot(context));
      bus.publish(statusEvent(context, { state: 'TASK_STATE_WORKING' }));
      bus.publish(
        artifactEvent(context, { artifactId: 'answer', name: 'result', parts: [{ text }] }),
      );
      bus.publish(statusEvent(context, { state: 'TASK_STATE_COMPLETED' }));
      return Promise.resolve();
    },
    cancelTask: () => Promise.resolve(),
  };
}

function nodeReport(events: readonly FleetEvent[], agent: string): Json | undefined {
  const result = events.find((event) => event.type === 'run-result');
  return (result?.['nodes'] as Json[] | undefined)?.find((node) => node['agent'] === agent);
}

const AGENTS: (Omit<StartSdkAgentOptions, 'executor'> & { answer: string })[] = [
  {
    name: 'almanac',
    description: 'Sunrise and sunset times.',
    skills: [{ id: 'sun-times', name: 'Sun times', tags: ['sunrise', 'sunset'] }],
    // The card at the path A2A v0.2 servers use: discovery falls back to it.
    cardPath: '.well-known/agent.json',
    answer: 'Sunrise in Lisbon is at 07:12 tomorrow.',
  },
  {
    name: 'weather',
    description: 'Weather forecasts.',
    skills: [{ id: 'forecast', name: 'Forecast', tags: ['weather', 'forecast'] }],
    healthz: false,
    answer: 'Sunny and 24 °C in Lisbon tomorrow.',
  },
  {
    name: 'tides',
    description: 'Tide tables.',
    skills: [{ id: 'tide-table', name: 'Tide table', tags: ['tide', 'tides'] }],
    streaming: false,
    answer: 'High tide in Lisbon is at 14:03 tomorrow.',
  },
];

describe('agents built on @a2a-js/sdk that leave out optional parts', () => {
  let fleet: RunningFleet;
  let client: OpenAI;
  const agents: Record<string, SdkAgent> = {};

  beforeAll(async () => {
    for (const { answer, ...options } of AGENTS) {
      agents[options.name] = await startSdkAgent({
        ...options,
        executor: answering(answer),
        token: E2E_INTERNAL_TOKEN,
      });
    }
    fleet = await startFleet({
      agents: [],
      agentUrls: Object.values(agents).map((agent) => agent.url),
      serviceEnv: { orchestrator: { MEMORY_ENABLED: 'false' } },
    });
    client = new OpenAI({ apiKey: fleet.apiKey, baseURL: fleet.baseURL, maxRetries: 0 });
  }, 90_000);

  afterAll(async () => {
    await fleet?.stop();
    for (const agent of Object.values(agents)) await agent.stop();
  }, 60_000);

  it('finds a card served only at the legacy /.well-known/agent.json', async () => {
    const chat = await streamChat(client, { message: 'When is sunrise in Lisbon tomorrow?' });
    expect(nodeReport(chat.events, 'almanac')).toMatchObject({ state: 'completed' });
    expect(chat.content).toContain('Sunrise in Lisbon is at 07:12 tomorrow.');
  });

  it('uses an agent that serves no /healthz (only the card and JSON-RPC, as the SDK does)', async () => {
    const chat = await streamChat(client, { message: 'What is the weather forecast for Lisbon?' });
    expect(nodeReport(chat.events, 'weather')).toMatchObject({ state: 'completed' });
    expect(chat.content).toContain('Sunny and 24 °C in Lisbon tomorrow.');
  });

  it('uses an agent whose card says it does not stream (capabilities.streaming: false)', async () => {
    const chat = await streamChat(client, { message: 'When is high tide in Lisbon tomorrow?' });
    expect(nodeReport(chat.events, 'tides')).toMatchObject({ state: 'completed' });
    expect(chat.content).toContain('High tide in Lisbon is at 14:03 tomorrow.');
    expect(agents['tides']!.requests).toHaveLength(1);
  });
});
