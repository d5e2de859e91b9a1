/**
 * MCP tools in a running fleet: gateway, orchestrator, planner and the tools agent as their own
 * processes on the real Redis, the tools agent offline with the real `@modelcontextprotocol/
 * server-memory` from npm behind a counting stdio proxy (one line per `tools/call` the server
 * received), the planner on a scripted model that answers exact plans. Driven through the gateway
 * with the official openai SDK:
 *
 * - a read-only tool of a trusted server runs at once and its answer reaches the client;
 * - a destructive tool waits for approval showing the server, the tool and the exact arguments;
 *   denied, nothing reaches the server;
 * - approved, with the orchestrator SIGKILLed right after the approval is recorded (frozen, so it
 *   cannot have delivered the decision) or the moment the server receives the call, another
 *   orchestrator takes the session over and the server receives the call exactly once;
 * - a tenant whose tool permissions deny `memory/delete_*` does not see those tools in
 *   `GET /v1/agents`, and a step naming one fails without the server hearing of it;
 * - the tools agent's Agent Card, read with `@a2a-js/sdk`'s client, lists the memory tools.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ClientFactory } from '@a2a-js/sdk/client';
import OpenAI from 'openai';
import type { Plan } from '@fleet/a2a';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { approve, serviceLogs, waitForSessionState } from './faults/support';
import { countingProxy, mcpServerEntry, type CountingProxy } from './support/counting-mcp-proxy';
import {
  eventsOf,
  gatewayApi,
  runUntilApproval,
  streamChat,
  type Json,
} from './support/gateway-api';
import { startFleet, type RunningFleet } from './support/start-fleet';
import { E2E_KEY } from './support/start-gateway';

/** The key of a second tenant, whose tool permissions deny every `memory/delete_*` tool. */
const RESTRICTED_KEY = 'sk-e2e-restricted-0123456789';
const RESTRICTED_TENANT = 'e2e-no-deletes';

/** Every tool `@modelcontextprotocol/server-memory` offers. */
const MEMORY_TOOLS = [
  'add_observations',
  'create_entities',
  'create_relations',
  'delete_entities',
  'delete_observations',
  'delete_relations',
  'open_nodes',
  'read_graph',
  'search_nodes',
];

/** The local Redis with a database of this file's own: no other file's orchestrator sweeps it. */
function ownRedisUrl(): string {
  const url = new URL(process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379');
  url.pathname = '/11';
  return url.toString();
}

/** A one-step plan: the tools agent runs `task` with the tool skill `skill`. */
function toolPlan(skill: string, task: string): Plan {
  return {
    nodes: [{ id: 'tool', agent: 'tools-agent', skill, task, dependsOn: [] }],
    rationale: 'scripted plan',
    confidence: 0.9,
  };
}

/** The step text that deletes one entity: the tool named, its arguments as JSON. */
function deleteTask(name: string): string {
  return `memory/delete_entities ${JSON.stringify({ entityNames: [name] })}`;
}

describe('MCP tools through the fleet', () => {
  // Unique per run: a session left open by an earlier run cannot touch this run's entities.
  const suffix = randomUUID().slice(0, 8);
  const ALICE = `Alice-${suffix}`;
  const BOB = `Bob-${suffix}`;
  const CAROL = `Carol-${suffix}`;
  const DAVE = `Dave-${suffix}`;
  const directory = mkdtempSync(path.join(tmpdir(), 'e2e-mcp-tools-'));
  const memoryFile = path.join(directory, 'memory.jsonl');
  let proxy: CountingProxy;
  let llm: ScriptedOpenAI;
  let fleet: RunningFleet;
  let client: OpenAI;
  let restrictedClient: OpenAI;
  /** The plan the scripted planner answers next. */
  let nextPlan: Plan | undefined;

  /** The entity names in the memory server's file now. */
  const entitiesInFile = (): string[] =>
    readFileSync(memoryFile, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { type: string; name?: string })
      .filter((item) => item.type === 'entity')
      .map((item) => String(item.name));

  /** The `delete_entities` calls the memory server received for `name`. */
  const deleteCallsFor = (name: string) =>
    proxy
      .calls()
      .filter(
        (call) =>
          call.tool === 'delete_entities' &&
          (call.arguments['entityNames'] as unknown[] | undefined)?.includes(name) === true,
      );

  const asRestricted = { headers: { authorization: `Bearer ${RESTRICTED_KEY}` } };

  beforeAll(async () => {
    writeFileSync(
      memoryFile,
      [ALICE, BOB, CAROL, DAVE]
        .map((name) =>
          JSON.stringify({
            type: 'entity',
            name,
            entityType: 'person',
            observations: [`${name} works on the release`],
          }),
        )
        .join('\n'),
    );
    proxy = countingProxy({
      serverArgs: [mcpServerEntry('server-memory')],
      env: { MEMORY_FILE_PATH: memoryFile },
    });
    llm = await startScriptedOpenAI({
      respond: () => (nextPlan === undefined ? {} : { json: nextPlan }),
    });
    fleet = await startFleet({
      agents: [],
      env: { REDIS_URL: ownRedisUrl() },
      serviceEnv: {
        // Only the planner has a model: plans are scripted; the tools agent runs offline (a step
        // names the tool and gives its arguments as JSON) and the answer is composed offline.
        planner: { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'sk-e2e-upstream' },
        orchestrator: { HITL_TIMEOUT_SECONDS: '300', MEMORY_ENABLED: 'false' },
        gateway: {
          GATEWAY_API_KEYS: `${E2E_KEY}:e2e,${RESTRICTED_KEY}:${RESTRICTED_TENANT}`,
          GATEWAY_TOOL_PERMISSIONS: JSON.stringify({
            tenants: { [RESTRICTED_TENANT]: { deny: ['memory/delete_*'] } },
          }),
        },
      },
      agentServices: {
        'tools-agent': {
          MCP_SERVERS: JSON.stringify({
            mcpServers: { memory: { ...proxy.entry, trustAnnotations: true } },
          }),
        },
      },
    });
    client = new OpenAI({ apiKey: fleet.apiKey, baseURL: fleet.baseURL, maxRetries: 0 });
    restrictedClient = new OpenAI({
      apiKey: RESTRICTED_KEY,
      baseURL: fleet.baseURL,
      maxRetries: 0,
    });
  }, 90_000);

  afterAll(async () => {
    await fleet?.stop();
    await llm?.close();
    rmSync(directory, { recursive: true, force: true });
    if (proxy !== undefined)
      rmSync(path.dirname(proxy.callsFile), { recursive: true, force: true });
  }, 60_000);

  it('the tools agent card, read with @a2a-js/sdk, has every memory tool as a skill', async () => {
    const sdkClient = await new ClientFactory().createFromUrl(fleet.services['tools-agent']!.url);
    const card = await sdkClient.getAgentCard();
    expect(card.name).toBe('tools-agent');
    const memorySkills = card.skills.filter((skill) => skill.id.startsWith('memory/'));
    expect(memorySkills.map((skill) => skill.id).sort()).toEqual(
      MEMORY_TOOLS.map((tool) => `memory/${tool}`),
    );
    const byId = new Map(card.skills.map((skill) => [skill.id, skill]));
    expect(byId.get('memory/read_graph')?.tags).toEqual([
      'mcp',
      'mcp-server:memory',
      'approval:none',
      'read-only',
    ]);
    expect(byId.get('memory/delete_entities')?.tags).toEqual([
      'mcp',
      'mcp-server:memory',
      'approval:required',
      'destructive',
    ]);
  });

  it('a read-only tool runs at once: read_graph answers with the entities in the memory file', async () => {
    const before = proxy.calls().length;
    nextPlan = toolPlan('memory/read_graph', 'memory/read_graph {}');
    const chat = await streamChat(client, { message: 'What entities are in the knowledge graph?' });
    expect(chat.error).toBeUndefined();
    expect(eventsOf(chat.events, 'approval-required')).toEqual([]);
    for (const name of [ALICE, BOB, CAROL, DAVE]) expect(chat.content).toContain(name);
    const session = await waitForSessionState(fleet, chat.sessionId);
    expect(session['status']).toBe('completed');
    expect(session['nodes']['tool']).toMatchObject({ state: 'completed' });
    expect(proxy.calls().slice(before)).toEqual([{ tool: 'read_graph', arguments: {} }]);
  }, 60_000);

  it('a destructive tool asks first, showing server, tool and arguments; denied, nothing is called', async () => {
    nextPlan = toolPlan('memory/delete_entities', deleteTask(ALICE));
    const { sessionId, asked } = await runUntilApproval(client, `Forget ${ALICE}.`);
    expect(asked).toMatchObject({
      kind: 'node',
      nodeId: 'tool',
      agent: 'tools-agent',
      action: 'call-tool',
      risk: 'high',
    });
    expect(asked['preview']).toBe(
      `Server: memory\nTool: delete_entities\nArguments:\n${JSON.stringify({ entityNames: [ALICE] }, null, 2)}`,
    );
    expect(deleteCallsFor(ALICE)).toEqual([]);

    const decided = await gatewayApi(
      fleet,
      `/sessions/${sessionId}/approvals/${String(asked['approvalId'])}`,
      {
        method: 'POST',
        body: JSON.stringify({ decision: 'deny', instructions: 'keep the record' }),
      },
    );
    expect(decided.status).toBe(200);
    const done = await waitForSessionState(fleet, sessionId);
    expect(done['nodes']['tool']['state']).toBe('rejected');
    expect(String(done['nodes']['tool']['error'] ?? done['nodes']['tool']['summary'])).toMatch(
      /keep the record/,
    );
    expect(done['approvals']).toEqual([
      expect.objectContaining({ nodeId: 'tool', status: 'denied', action: 'call-tool' }),
    ]);
    expect(deleteCallsFor(ALICE)).toEqual([]);
    expect(entitiesInFile()).toContain(ALICE);
  }, 60_000);

  /** Resolves once the memory server received `count` deletes of `name` (checked every 2 ms). */
  async function deleteCallsReach(name: string, count: number): Promise<void> {
    const deadline = Date.now() + 15_000;
    while (deleteCallsFor(name).length < count) {
      if (Date.now() > deadline) {
        throw new Error(`the memory server never received ${count} delete(s) of ${name}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }

  /**
   * Runs a step deleting `name` until it waits for approval, approves it and SIGKILLs the
   * orchestrator: `before-delivery` freezes it (SIGSTOP) before the approval and kills it right
   * after the approval is recorded, so it cannot have delivered the decision; `on-call` kills it
   * the moment the memory server receives the call, while the tools agent's answer is on its way.
   * Then another orchestrator starts, the session ends, and the server got the call exactly once.
   */
  async function approveAcrossAnOrchestratorKill(
    name: string,
    kill: 'before-delivery' | 'on-call',
  ): Promise<void> {
    nextPlan = toolPlan('memory/delete_entities', deleteTask(name));
    const { sessionId, asked } = await runUntilApproval(client, `Forget ${name}.`);
    expect(asked).toMatchObject({ nodeId: 'tool', agent: 'tools-agent', action: 'call-tool' });

    if (kill === 'before-delivery') process.kill(fleet.orchestrator.process.pid, 'SIGSTOP');
    try {
      const decided = await approve(fleet, sessionId, String(asked['approvalId']));
      expect(decided.status).toBe(200);
      if (kill === 'on-call') await deleteCallsReach(name, 1);
    } finally {
      await fleet.crash('orchestrator');
    }
    if (kill === 'before-delivery') {
      // Nobody has delivered the decision: the next orchestrator must.
      expect(deleteCallsFor(name)).toEqual([]);
      expect(entitiesInFile()).toContain(name);
    }

    await fleet.restart('orchestrator');
    const done = await waitForSessionState(fleet, sessionId, { timeoutMs: 45_000 });
    if (done['status'] !== 'completed') {
      // What the steps and the services said, so a failure here can be understood from CI's log.
      throw new Error(
        `the session ended ${String(done['status'])}: ${JSON.stringify(done['nodes'])}\n${serviceLogs(fleet, 6000)}`,
      );
    }
    expect(done['nodes']['tool']).toMatchObject({ state: 'completed' });
    expect(done['approvals']).toEqual([
      expect.objectContaining({ nodeId: 'tool', status: 'approved', action: 'call-tool' }),
    ]);
    expect(entitiesInFile()).not.toContain(name);
    expect(entitiesInFile()).toContain(CAROL);
    expect(deleteCallsFor(name)).toEqual([
      { tool: 'delete_entities', arguments: { entityNames: [name] } },
    ]);
  }

  it('approved, the orchestrator killed right after the approval is recorded, before it could deliver it: the next one calls the tool once', async () => {
    await approveAcrossAnOrchestratorKill(BOB, 'before-delivery');
  }, 75_000);

  it('approved, the orchestrator killed the moment the tool is called: the next one takes the result over without calling it again', async () => {
    await approveAcrossAnOrchestratorKill(DAVE, 'on-call');
  }, 75_000);

  it('a tenant denied memory/delete_* does not see those tools, and a step naming one fails without calling it', async () => {
    const skillsOf = (body: Json): Json[] =>
      (body['data'] as Json[]).find((agent) => agent['name'] === 'tools-agent')?.['skills'] ?? [];
    const full = await gatewayApi(fleet, '/agents');
    expect(full.status).toBe(200);
    expect(
      skillsOf(full.body).find((skill) => skill['id'] === 'memory/delete_entities'),
    ).toMatchObject({
      approval: 'required',
      mcp: { server: 'memory', tool: 'delete_entities' },
    });
    const restricted = await gatewayApi(fleet, '/agents', asRestricted);
    expect(restricted.status).toBe(200);
    const restrictedIds = skillsOf(restricted.body).map((skill) => String(skill['id']));
    expect(restrictedIds).toContain('memory/read_graph');
    expect(restrictedIds.filter((id) => id.startsWith('memory/delete_'))).toEqual([]);
    expect(restrictedIds.sort()).toEqual(
      MEMORY_TOOLS.filter((tool) => !tool.startsWith('delete_')).map((tool) => `memory/${tool}`),
    );

    const callsBefore = proxy.calls().length;
    nextPlan = toolPlan('memory/delete_entities', deleteTask(CAROL));
    const chat = await streamChat(restrictedClient, { message: `Forget ${CAROL}.` });
    expect(eventsOf(chat.events, 'approval-required')).toEqual([]);
    const session = await gatewayApi(fleet, `/sessions/${chat.sessionId}`, asRestricted);
    expect(session.status).toBe(200);
    const node = session.body['nodes']['tool'] as Json;
    expect(['failed', 'rejected']).toContain(node['state']);
    expect(String(node['error'] ?? node['summary'])).toMatch(/not permit/);
    expect(chat.content).toMatch(
      /not permit\w* .*memory\/delete_entities|memory\/delete_entities.*not permit/,
    );
    expect(proxy.calls().length).toBe(callsBefore);
    expect(entitiesInFile()).toContain(CAROL);
    // The session the restricted tenant started is not the other tenant's to read.
    expect((await gatewayApi(fleet, `/sessions/${chat.sessionId}`)).status).toBe(404);
  }, 60_000);
});
