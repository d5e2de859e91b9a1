import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { dataPart, RESULT_ARTIFACT_NAME, textPart, type AgentListing } from '@fleet/a2a';
import { buildGateway, OTHER_KEY, TEST_KEY, type TestGateway } from '../test-support/build-gateway';
import {
  DOUBLE_TOKEN,
  startOrchestratorDouble,
  type OrchestratorDouble,
} from '../test-support/orchestrator-double';
import { createToolPermissions } from '../tool-permissions';
import { createAgentsClient } from './agents-client';

/** What the orchestrator sees: a tools agent with three MCP tools, and a RAG agent. */
const LISTED: AgentListing['agents'] = [
  {
    name: 'tools-agent',
    url: 'http://127.0.0.1:8090',
    description: 'MCP tools',
    availability: {
      state: 'degraded',
      reason: 'the filesystem server is down',
      unavailableSkills: ['filesystem/write_file'],
    },
    skills: [
      {
        id: 'memory/read_graph',
        name: 'read_graph',
        description: 'Reads the knowledge graph',
        tags: ['mcp', 'mcp-server:memory', 'approval:none', 'read-only'],
        examples: [],
      },
      {
        id: 'memory/delete_entities',
        name: 'delete_entities',
        description: 'Deletes entities',
        tags: ['mcp', 'mcp-server:memory', 'approval:required', 'destructive'],
        examples: [],
      },
      {
        id: 'filesystem/write_file',
        name: 'write_file',
        description: 'Writes a file',
        tags: ['mcp', 'mcp-server:filesystem', 'approval:required', 'destructive'],
        examples: [],
      },
    ],
  },
  {
    name: 'rag-agent',
    url: 'http://127.0.0.1:8083',
    description: 'Documents',
    skills: [
      { id: 'search', name: 'Search', description: 'Searches', tags: ['rag'], examples: [] },
    ],
  },
];

describe('agentsRouter', () => {
  let orchestrator: OrchestratorDouble;
  let gateway: TestGateway;

  beforeAll(async () => {
    orchestrator = await startOrchestratorDouble(
      async function* answer() {
        await Promise.resolve();
        yield {
          type: 'artifact',
          artifact: { name: RESULT_ARTIFACT_NAME, parts: [textPart('Done.'), dataPart({})] },
        };
        yield { type: 'status', state: 'TASK_STATE_COMPLETED' };
      },
      { agents: LISTED },
    );
    gateway = await buildGateway({
      upstream: 'offline',
      overrides: {
        orchestratorClient: orchestrator.client,
        agents: createAgentsClient({ orchestratorUrl: orchestrator.url, token: DOUBLE_TOKEN }),
        // acme may not delete; every other tenant (globex) may only read.
        toolPermissions: createToolPermissions({
          inline: {
            tenants: { acme: { deny: ['memory/delete_*'] } },
            default: { allow: ['memory/read_*'] },
          },
        }),
      },
    });
  });

  afterAll(async () => {
    await gateway.close();
    await orchestrator.close();
  });

  const list = (key: string) =>
    request(gateway.app).get('/v1/agents').set('authorization', `Bearer ${key}`);

  it('shows each tenant the agents with only the tools its policy permits', async () => {
    const acme = await list(TEST_KEY);
    expect(acme.status).toBe(200);
    expect(acme.headers['cache-control']).toBe('no-store');
    expect(acme.body).toEqual({
      object: 'list',
      data: [
        {
          object: 'agent',
          name: 'tools-agent',
          url: 'http://127.0.0.1:8090',
          description: 'MCP tools',
          availability: {
            state: 'degraded',
            reason: 'the filesystem server is down',
            unavailableSkills: ['filesystem/write_file'],
          },
          skills: [
            {
              id: 'memory/read_graph',
              name: 'read_graph',
              description: 'Reads the knowledge graph',
              tags: ['mcp', 'mcp-server:memory', 'approval:none', 'read-only'],
              approval: 'none',
              mcp: { server: 'memory', tool: 'read_graph' },
            },
            {
              id: 'filesystem/write_file',
              name: 'write_file',
              description: 'Writes a file',
              tags: ['mcp', 'mcp-server:filesystem', 'approval:required', 'destructive'],
              approval: 'required',
              mcp: { server: 'filesystem', tool: 'write_file' },
            },
          ],
        },
        {
          object: 'agent',
          name: 'rag-agent',
          url: 'http://127.0.0.1:8083',
          description: 'Documents',
          availability: { state: 'ready' },
          skills: [{ id: 'search', name: 'Search', description: 'Searches', tags: ['rag'] }],
        },
      ],
    });

    const globex = await list(OTHER_KEY);
    expect(globex.status).toBe(200);
    const tools = (globex.body as { data: { name: string; skills: { id: string }[] }[] }).data;
    expect(tools.map((agent) => [agent.name, agent.skills.map((skill) => skill.id)])).toEqual([
      ['tools-agent', ['memory/read_graph']],
      ['rag-agent', ['search']],
    ]);
  });

  it('answers 401 in OpenAI shape without a key, and 503 without the orchestrator listing', async () => {
    const anonymous = await request(gateway.app).get('/v1/agents');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ error: { type: 'authentication_error' } });

    const tokenless = await buildGateway({ upstream: 'offline' });
    try {
      const response = await request(tokenless.app)
        .get('/v1/agents')
        .set('authorization', `Bearer ${TEST_KEY}`);
      expect(response.status).toBe(503);
      expect(response.body).toMatchObject({
        error: { message: expect.stringMatching(/FLEET_INTERNAL_TOKEN/) as unknown },
      });
    } finally {
      await tokenless.close();
    }
  });

  it('says so when the orchestrator refuses the token or cannot be reached', async () => {
    const refused = await buildGateway({
      upstream: 'offline',
      overrides: {
        agents: createAgentsClient({
          orchestratorUrl: orchestrator.url,
          token: 'not-the-internal-token-0000',
        }),
      },
    });
    const unreachable = await buildGateway({
      upstream: 'offline',
      overrides: {
        agents: createAgentsClient({ orchestratorUrl: 'http://127.0.0.1:9', token: DOUBLE_TOKEN }),
      },
    });
    try {
      const wrongToken = await request(refused.app)
        .get('/v1/agents')
        .set('authorization', `Bearer ${TEST_KEY}`);
      expect(wrongToken.status).toBe(503);
      expect(wrongToken.body.error.message).toMatch(/refused the internal token/);
      const down = await request(unreachable.app)
        .get('/v1/agents')
        .set('authorization', `Bearer ${TEST_KEY}`);
      expect(down.status).toBe(503);
      expect(down.body.error.message).toMatch(/not reachable at http:\/\/127\.0\.0\.1:9/);
    } finally {
      await refused.close();
      await unreachable.close();
    }
  });

  it("puts the caller's tool policy in every orchestrate request", async () => {
    for (const key of [TEST_KEY, OTHER_KEY]) {
      const response = await request(gateway.app)
        .post('/v1/chat/completions')
        .set('authorization', `Bearer ${key}`)
        .set('x-routing-mode', 'orchestration')
        .send({ model: 'fleet-orchestrator', messages: [{ role: 'user', content: 'tidy up' }] });
      expect(response.status).toBe(200);
    }
    expect(orchestrator.calls.map((call) => [call.input?.tenant, call.input?.toolPolicy])).toEqual([
      ['acme', { deny: ['memory/delete_*'] }],
      ['globex', { allow: ['memory/read_*'] }],
    ]);
  });
});
