import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { dataPart, RESULT_ARTIFACT_NAME, textPart, type AgentListing } from '@fleet/a2a';
import { createAgentsClient } from '../agents';
import { buildGateway, TEST_KEY, type TestGateway } from '../test-support/build-gateway';
import {
  DOUBLE_TOKEN,
  progressStatus,
  startOrchestratorDouble,
  type OrchestratorDouble,
} from '../test-support/orchestrator-double';
import { serve, type Served } from '../test-support/serve';
import { joinSteering, parseFleetAgentsField, parseFleetAgentsHeader } from './parse-fleet-agents';

const AGENTS: AgentListing['agents'] = [
  {
    name: 'rag-agent',
    description: 'documents',
    url: 'http://rag',
    skills: [{ id: 'rag-answer', name: 'Answer', description: 'd', tags: [], examples: [] }],
  },
  {
    name: 'mail-agent',
    description: 'mail',
    url: 'http://mail',
    skills: [
      { id: 'send-mail', name: 'Send', description: 'd', tags: [], examples: [] },
      { id: 'search-mail', name: 'Search', description: 'd', tags: [], examples: [] },
    ],
  },
  { name: 'web-agent', description: 'web', url: 'http://web', skills: [] },
];

describe('parseFleetAgentsHeader', () => {
  it('reads the lists, trims the names and joins a list named twice', () => {
    expect(
      parseFleetAgentsHeader(
        'prefer=rag-agent; EXCLUDE = web-agent , mail-agent/send-mail;require=code-agent;exclude=x',
      ),
    ).toEqual({
      prefer: ['rag-agent'],
      exclude: ['web-agent', 'mail-agent/send-mail', 'x'],
      require: ['code-agent'],
    });
  });

  it('reads nothing from an absent or blank header', () => {
    expect(parseFleetAgentsHeader(undefined)).toBeUndefined();
    expect(parseFleetAgentsHeader('  ')).toBeUndefined();
    expect(parseFleetAgentsHeader('prefer=')).toBeUndefined();
  });

  it('refuses an unknown list, a clause without "=" and too many names', () => {
    expect(() => parseFleetAgentsHeader('avoid=web-agent')).toThrow(
      /'avoid=web-agent' is not a clause/,
    );
    expect(() => parseFleetAgentsHeader('web-agent')).toThrow(/<list>=<name>/);
    const seventeen = Array.from({ length: 17 }, (_, index) => `a${index}`).join(',');
    expect(() => parseFleetAgentsHeader(`exclude=${seventeen}`)).toThrow(
      /exclude: at most 16 names/,
    );
    expect(() => parseFleetAgentsHeader(`prefer=${'a'.repeat(129)}`)).toThrow(
      /at most 128 characters/,
    );
  });
});

describe('parseFleetAgentsField and joinSteering', () => {
  it('checks the body field and joins it with the header, each name once', () => {
    const body = parseFleetAgentsField({ prefer: ['rag-agent'], exclude: ['web-agent'] });
    const header = parseFleetAgentsHeader('prefer=rag-agent,mail-agent');
    expect(joinSteering(header, body)).toEqual({
      prefer: ['rag-agent', 'mail-agent'],
      exclude: ['web-agent'],
    });
    expect(parseFleetAgentsField(null)).toBeUndefined();
  });

  it('refuses unknown keys, wrong types and a name both excluded and required', () => {
    expect(() => parseFleetAgentsField({ avoid: ['x'] })).toThrow(/fleet_agents is not valid/);
    expect(() => parseFleetAgentsField({ prefer: 'rag-agent' })).toThrow(/prefer/);
    expect(() => joinSteering({ require: ['web-agent'] }, { exclude: ['web-agent'] })).toThrow(
      /'web-agent' is both excluded and preferred or required/,
    );
  });
});

describe('agent steering through the gateway (openai SDK)', () => {
  let orchestrator: OrchestratorDouble;
  let gateway: TestGateway;
  let served: Served;

  beforeAll(async () => {
    orchestrator = await startOrchestratorDouble(
      async function* execute() {
        await Promise.resolve();
        yield progressStatus('Run s started.', { type: 'run-start', sessionId: 'sess-s' }, 's');
        yield {
          type: 'artifact',
          artifact: {
            name: RESULT_ARTIFACT_NAME,
            parts: [
              textPart('Done.'),
              dataPart({
                sessionId: 'sess-s',
                plan: { nodes: [], rationale: 'r', confidence: 0 },
                nodes: [],
                citations: [],
                failedNodes: [],
                composer: 'offline',
              }),
            ],
          },
        };
      },
      { agents: AGENTS },
    );
    gateway = await buildGateway({
      upstream: 'offline',
      overrides: {
        orchestratorClient: orchestrator.client,
        agents: createAgentsClient({ orchestratorUrl: orchestrator.url, token: DOUBLE_TOKEN }),
      },
    });
    served = await serve(gateway.app);
  });
  afterAll(async () => {
    await served.close();
    await gateway.close();
    await orchestrator.close();
  });

  const client = (headers: Record<string, string> = {}) =>
    new OpenAI({
      apiKey: TEST_KEY,
      baseURL: `${served.url}/v1`,
      maxRetries: 0,
      defaultHeaders: { 'x-routing-mode': 'orchestration', ...headers },
    });

  it('sends the header and the body field to the orchestrator as fleet.steering', async () => {
    const before = orchestrator.calls.length;
    const completion = await client({
      'X-Fleet-Agents': 'prefer=rag-agent; exclude=web-agent,mail-agent/send-mail',
    }).chat.completions.create({
      model: 'fleet-orchestration',
      messages: [{ role: 'user', content: 'what does the policy say?' }],
      // @ts-expect-error: the fleet's own field, beside OpenAI's
      fleet_agents: { require: ['search-mail'] },
    });
    expect(completion.choices[0]?.message.content).toBe('Done.');
    expect(orchestrator.calls.slice(before).map((call) => call.input?.steering)).toEqual([
      {
        prefer: ['rag-agent'],
        require: ['search-mail'],
        exclude: ['web-agent', 'mail-agent/send-mail'],
      },
    ]);
  });

  it('reads the body field of a Responses request', async () => {
    const before = orchestrator.calls.length;
    await client().responses.create({
      model: 'fleet-orchestration',
      input: 'hello',
      // @ts-expect-error: the fleet's own field, beside OpenAI's
      fleet_agents: { exclude: ['mail-agent'] },
    });
    expect(orchestrator.calls[before]?.input?.steering).toEqual({ exclude: ['mail-agent'] });
  });

  it('answers 400 naming an unknown agent and listing the known ones; nothing runs', async () => {
    const before = orchestrator.calls.length;
    const error = await client({ 'X-Fleet-Agents': 'exclude=web-agent,ghost-agent' })
      .chat.completions.create({
        model: 'fleet-orchestration',
        messages: [{ role: 'user', content: 'hello' }],
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const bad = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(bad.status).toBe(400);
    expect(bad.message).toMatch(/Unknown agent or skill 'ghost-agent' \(exclude\)/);
    expect(bad.message).toMatch(
      /Known agents \(skills\): rag-agent \(rag-answer\); mail-agent \(send-mail, search-mail\); web-agent/,
    );
    expect(bad.param).toBe('X-Fleet-Agents');
    expect(orchestrator.calls.length).toBe(before);
  });

  it('answers 400 for an unknown skill of a known agent in the body field', async () => {
    const error = await client()
      .chat.completions.create({
        model: 'fleet-orchestration',
        messages: [{ role: 'user', content: 'hello' }],
        // @ts-expect-error: the fleet's own field, beside OpenAI's
        fleet_agents: { prefer: ['mail-agent/fly'] },
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toMatch(/'mail-agent\/fly' \(prefer\)/);
  });

  it('answers 400 for a malformed header before reading the body', async () => {
    const error = await client({ 'X-Fleet-Agents': 'avoid=web-agent' })
      .chat.completions.create({
        model: 'fleet-orchestration',
        messages: [{ role: 'user', content: 'hello' }],
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toMatch(/X-Fleet-Agents: 'avoid=web-agent' is not a clause/);
  });
});

describe('agent steering on passthrough', () => {
  let gateway: TestGateway;
  let served: Served;

  beforeAll(async () => {
    gateway = await buildGateway();
    served = await serve(gateway.app);
  });
  afterAll(async () => {
    await served.close();
    await gateway.close();
  });

  it('forwards the body without the fleet_agents field', async () => {
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${served.url}/v1`, maxRetries: 0 });
    gateway.llm?.enqueue({ content: 'hi' });
    await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hello' }],
      // @ts-expect-error: the fleet's own field, beside OpenAI's
      fleet_agents: { exclude: ['web-agent'] },
    });
    const body = gateway.llm?.requests.at(-1)?.body as Record<string, unknown>;
    expect(body['fleet_agents']).toBeUndefined();
    expect(body['messages']).toEqual([{ role: 'user', content: 'hello' }]);
  });
});
