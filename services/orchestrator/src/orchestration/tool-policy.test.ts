import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import {
  agentListingSchema,
  dataPart,
  findData,
  planRequestSchema,
  textPart,
  type Plan,
  type PlanRequest,
  type ProgressEvent,
} from '@fleet/a2a';
import type { RunningServer } from '@fleet/http';
import { startScriptedAgent, type ScriptedAgent } from '@fleet/testing';
import { answering, startTestAgent } from '../test-support/start-test-agent';
import {
  TEST_TOKEN,
  orchestrate,
  outcomeOf,
  startTestOrchestrator,
  type TestOrchestrator,
} from '../test-support/start-test-orchestrator';

const prefix = `test:orchestrator-tool-policy:${randomUUID()}:`;

const DENY_DELETES = { deny: ['memory/delete_*'] };

type RunStart = Extract<ProgressEvent, { type: 'run-start' }>;
const isRunStart = (event: ProgressEvent): event is RunStart => event.type === 'run-start';
type ApprovalRequired = Extract<ProgressEvent, { type: 'approval-required' }>;
const isApprovalRequired = (event: ProgressEvent): event is ApprovalRequired =>
  event.type === 'approval-required';

/** The plan that names the denied tool beside a permitted one. */
const PLAN_WITH_DENIED_TOOL: Plan = {
  nodes: [
    {
      id: 'read',
      agent: 'tools',
      skill: 'memory/read_graph',
      task: 'Read the knowledge graph',
      dependsOn: [],
    },
    {
      id: 'wipe',
      agent: 'tools',
      skill: 'memory/delete_entities',
      task: 'Delete every entity',
      dependsOn: [],
    },
  ],
  rationale: 'read, then wipe',
  confidence: 0.9,
};

describe('tool policy (real Redis, real A2A agents)', () => {
  let redis: Redis;
  let tools: ScriptedAgent;
  let planner: RunningServer;
  let orchestrator: TestOrchestrator;
  const planRequests: PlanRequest[] = [];
  const sent = (sessionId: string) =>
    tools.requests.filter((request) => request.nodeInput?.sessionId === sessionId);

  beforeAll(async () => {
    redis = new Redis('redis://127.0.0.1:6379');
    tools = await startScriptedAgent({
      name: 'tools',
      internalToken: TEST_TOKEN,
      skills: [
        {
          id: 'memory/read_graph',
          name: 'read_graph',
          description: 'Reads the knowledge graph',
          tags: ['mcp', 'mcp-server:memory', 'approval:none', 'read-only'],
        },
        {
          id: 'memory/delete_entities',
          name: 'delete_entities',
          description: 'Deletes entities',
          tags: ['mcp', 'mcp-server:memory', 'approval:required', 'destructive'],
        },
      ],
      respond: (request) => ({ text: `tools did ${request.nodeInput?.skill ?? 'nothing'}` }),
    });
    // A planner that records what it was offered and plans the denied tool all the same.
    planner = await startTestAgent({
      name: 'planner',
      token: TEST_TOKEN,
      execute: answering(({ message }) => {
        const request = findData(message.parts, planRequestSchema)?.planRequest;
        if (request !== undefined) planRequests.push(request);
        return [
          {
            type: 'artifact',
            artifact: {
              name: 'result',
              parts: [
                textPart('plan'),
                dataPart({ plan: PLAN_WITH_DENIED_TOOL, source: 'llm', attempts: 1 }),
              ],
            },
          },
        ];
      }),
    });
    orchestrator = await startTestOrchestrator({
      redis,
      prefix,
      agentUrls: [tools.url],
      plannerUrl: planner.url,
    });
  });

  afterAll(async () => {
    await orchestrator.close();
    await Promise.all([tools.close(), planner.shutdown()]);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('offers the planner only permitted tools and never sends a denied one', async () => {
    const events = await orchestrate(orchestrator.client, {
      text: 'tidy my memory',
      fleet: { tenant: 'acme', toolPolicy: DENY_DELETES },
    }).done;
    const outcome = outcomeOf(events);
    const offered = planRequests.at(-1)?.agents.find((agent) => agent.name === 'tools');
    expect(offered?.skills.map((skill) => skill.id)).toEqual(['memory/read_graph']);

    const sessionId = outcome.result?.sessionId ?? '';
    const requests = sent(sessionId);
    expect(requests.map((request) => request.nodeInput?.skill)).toEqual(['memory/read_graph']);
    // The tools agent hears the policy too, to refuse the tool itself.
    expect(requests[0]?.nodeInput?.toolPolicy).toEqual(DENY_DELETES);
    const wipe = outcome.result?.nodes.find((node) => node.id === 'wipe');
    expect(wipe).toMatchObject({ state: 'failed' });
    expect(wipe?.error).toMatch(/"memory\/delete_entities" of tools is not permitted/);
    expect((await orchestrator.sessions.get(sessionId))?.toolPolicy).toEqual(DENY_DELETES);
  });

  it('refuses a denied tool named by a plan given with the request', async () => {
    const events = await orchestrate(orchestrator.client, {
      text: 'wipe my memory',
      fleet: {
        tenant: 'acme',
        toolPolicy: DENY_DELETES,
        plan: { ...PLAN_WITH_DENIED_TOOL, nodes: [PLAN_WITH_DENIED_TOOL.nodes[1]] },
      },
    }).done;
    const outcome = outcomeOf(events);
    expect(sent(outcome.result?.sessionId ?? '')).toEqual([]);
    expect(outcome.result?.nodes).toEqual([
      expect.objectContaining({
        id: 'wipe',
        state: 'failed',
        error: expect.stringMatching(/not sent: the tool "memory\/delete_entities"/) as unknown,
      }),
    ]);
  });

  it('sends both tools to a tenant without a policy', async () => {
    const events = await orchestrate(orchestrator.client, {
      text: 'tidy my memory',
      fleet: { tenant: 'globex' },
    }).done;
    const sessionId = outcomeOf(events).result?.sessionId ?? '';
    expect(
      sent(sessionId)
        .map((request) => request.nodeInput?.skill)
        .sort(),
    ).toEqual(['memory/delete_entities', 'memory/read_graph']);
    expect(planRequests.at(-1)?.agents[0]?.skills).toHaveLength(2);
  });

  it("keeps the session's policy when another orchestrator resumes it without one", async () => {
    const first = await startTestOrchestrator({ redis, prefix, agentUrls: [tools.url] });
    const run = orchestrate(first.client, {
      text: 'wipe my memory',
      fleet: {
        tenant: 'acme',
        toolPolicy: DENY_DELETES,
        planApproval: 'required',
        plan: PLAN_WITH_DENIED_TOOL,
      },
    });
    const { sessionId: id } = await run.waitFor(isRunStart);
    const asked = await run.waitFor(isApprovalRequired);
    await first.close();
    await run.done;
    const second = await startTestOrchestrator({ redis, prefix, agentUrls: [tools.url] });
    try {
      expect((await second.sessions.get(id))?.toolPolicy).toEqual(DENY_DELETES);
      await second.sessions.decideApproval({
        sessionId: id,
        approvalId: asked.approvalId,
        tenant: 'acme',
        decision: 'approve',
      });
      // As the recovery sweep resumes it: the tenant and the session, no policy.
      const events = await orchestrate(second.client, {
        text: 'resume',
        fleet: { tenant: 'acme', resumeSessionId: id },
      }).done;
      expect(sent(id).map((request) => request.nodeInput?.skill)).toEqual(['memory/read_graph']);
      expect(sent(id)[0]?.nodeInput?.toolPolicy).toEqual(DENY_DELETES);
      expect(outcomeOf(events).result?.nodes.find((node) => node.id === 'wipe')?.error).toMatch(
        /not permitted for this tenant/,
      );
    } finally {
      await second.close();
    }
  });

  it('lists the agents it sees at GET /internal/agents, with the internal token only', async () => {
    const refused = await fetch(`${orchestrator.url}/internal/agents`);
    expect(refused.status).toBe(401);
    const response = await fetch(`${orchestrator.url}/internal/agents`, {
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    expect(response.status).toBe(200);
    const listing = agentListingSchema.parse(await response.json());
    expect(listing.agents).toEqual([
      expect.objectContaining({
        name: 'tools',
        url: tools.url,
        skills: [
          expect.objectContaining({ id: 'memory/read_graph' }),
          expect.objectContaining({ id: 'memory/delete_entities' }),
        ],
      }),
    ]);
  });
});
