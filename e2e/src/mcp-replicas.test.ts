/**
 * The fleet's MCP server across gateway replicas without sticky sessions: two gateway processes
 * behind HAProxy (`balance roundrobin`, every request balanced anew), the real Redis. A 2025-11-25
 * client (the v1 SDK, declaring elicitation, approving every form) asks a question whose mail step
 * needs a person's consent. Its requests (initialize, the call, the form's answer POSTed on its
 * own) land on both gateways, yet the form reaches it on the call's stream, the approval is decided
 * once, the mail goes out once, and the answer comes back. With the exchanges kept in each
 * gateway's memory instead of Redis, this fails (the call reaches a gateway that never saw the
 * connection's `initialize`, or the form's answer one that holds no call). Skipped, with a message,
 * when haproxy is not installed (`infra/scripts/ensure-test-tools.sh` installs it).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Plan } from '@fleet/a2a';
import { startScriptedAgent, type ScriptedAgent, type ScriptedOpenAI } from '@fleet/testing';
import type { Json } from './support/gateway-api';
import { findHaproxy, haproxyServerRequests } from './support/haproxy';
import { scriptedPlan, startPlanningModel, webThenMailAgents } from './support/scripted-plans';
import { E2E_INTERNAL_TOKEN } from './support/start-fleet';
import { startReplicatedFleet, type ReplicatedFleet } from './support/start-replicated-fleet';

const ANSWER = 'The summary went to Bob.';

const PLAN: Plan = scriptedPlan([
  { id: 'find', agent: 'web' },
  { id: 'send', agent: 'mail', dependsOn: ['find'] },
]);

const haproxy = findHaproxy();
if (haproxy === undefined) {
  process.stderr.write(
    'mcp-replicas: skipped, haproxy is not installed (bash infra/scripts/ensure-test-tools.sh installs it)\n',
  );
}
const suite = haproxy === undefined ? describe.skip : describe;

suite('MCP over gateway replicas behind HAProxy, no sticky sessions', () => {
  let llm: ScriptedOpenAI;
  let agents: ScriptedAgent[] = [];
  let fleet: ReplicatedFleet;

  beforeAll(async () => {
    const model = await startPlanningModel(ANSWER);
    model.plan = PLAN;
    llm = model.llm;
    agents = await Promise.all(
      webThenMailAgents().map((options) =>
        startScriptedAgent({ ...options, internalToken: E2E_INTERNAL_TOKEN }),
      ),
    );
    fleet = await startReplicatedFleet({
      replicas: { gateway: 2, orchestrator: 1, 'rag-agent': 1, 'code-agent': 1 },
      agentUrls: agents.map((agent) => agent.url),
      env: { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'sk-e2e-upstream' },
      serviceEnv: {
        orchestrator: { HITL_TIMEOUT_SECONDS: '300', MEMORY_ENABLED: 'false' },
      },
    });
  }, 240_000);

  afterAll(async () => {
    await fleet?.stop();
    await Promise.all(agents.map((agent) => agent.close()));
    await llm?.close();
  }, 60_000);

  /** Calls the sessions API through the gateway frontend. */
  async function sessionsApi(
    route: string,
    init: RequestInit = {},
  ): Promise<{ status: number; body: Json }> {
    const response = await fetch(`${fleet.frontends.gateway}/v1/sessions${route}`, {
      ...init,
      headers: { authorization: `Bearer ${fleet.apiKey}`, 'content-type': 'application/json' },
    });
    return { status: response.status, body: (await response.json()) as Json };
  }

  it('elicits the approval on the call, decides it once, sends once and answers, with requests on both gateways', async () => {
    const before = await haproxyServerRequests(fleet.haproxy, 'gateway');
    const elicited: string[] = [];
    const client = new Client(
      { name: 'e2e-mcp-replicas', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      elicited.push(request.params.message);
      return Promise.resolve({ action: 'accept', content: { decision: 'approve' } });
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${fleet.frontends.gateway}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${fleet.apiKey}` } },
      }),
    );
    let content: Json;
    try {
      expect(client.getServerCapabilities()).toBeDefined();
      const result = await client.callTool(
        {
          name: 'ask',
          arguments: { question: 'Find the summary and mail it to Bob', route: 'orchestration' },
        },
        undefined,
        { timeout: 90_000 },
      );
      expect(result.isError).toBeFalsy();
      content = result.structuredContent as Json;
    } finally {
      await client.close();
    }

    // The form reached the client on the call's stream, once, showing what is at stake.
    expect(elicited).toHaveLength(1);
    expect(elicited[0]).toContain('Send the summary to bob@example.com');
    // The answer came back.
    expect(content).toMatchObject({ state: 'completed' });
    expect(content['answer']).toContain(ANSWER);
    const sessionId = String(content['session_id']);

    // The approval was decided once: approved, and a second decision is refused.
    const approvals = await sessionsApi(`/${sessionId}/approvals`);
    expect(approvals.status).toBe(200);
    const listed = approvals.body['data'] as Json[];
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ status: 'approved' });
    const again = await sessionsApi(`/${sessionId}/approvals/${String(listed[0]!['id'])}`, {
      method: 'POST',
      body: JSON.stringify({ decision: 'deny' }),
    });
    expect(again.status).toBe(409);
    const session = await sessionsApi(`/${sessionId}`);
    expect(session.body).toMatchObject({ status: 'completed' });

    // The approved action ran once.
    const mail = agents.find((agent) => agent.name === 'mail')!;
    expect(mail.sideEffects.filter((effect) => effect.action === 'send-mail')).toHaveLength(1);

    // The client's requests were spread over both gateways.
    const after = await haproxyServerRequests(fleet.haproxy, 'gateway');
    const served = Object.fromEntries(
      Object.entries(after).map(([server, count]) => [server, count - (before[server] ?? 0)]),
    );
    process.stderr.write(`mcp-replicas: /mcp requests per gateway ${JSON.stringify(served)}\n`);
    expect(Object.keys(served)).toHaveLength(2);
    for (const count of Object.values(served)) expect(count).toBeGreaterThan(0);
  }, 120_000);
});
