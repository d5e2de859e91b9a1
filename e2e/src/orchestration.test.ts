/**
 * The orchestration path end to end, on a running fleet (gateway, orchestrator and planner as their
 * own processes, real Redis, scripted agents and a scripted LLM), driven by the official openai
 * SDK: the DAG shapes of the reference designs, failures, a bad plan, a client that goes away.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import type { Plan } from '@fleet/a2a';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { startFleet, type RunningFleet } from './support/start-fleet';

type FleetEvent = Record<string, unknown> & { type: string };

const COMPOSED = 'Composed answer from the agents.';

/** The plan the scripted LLM hands the planner next (its JSON-schema answers), per test. */
let nextPlans: Plan[] = [];

function plan(nodes: { id: string; agent: string; dependsOn?: string[] }[]): Plan {
  return {
    nodes: nodes.map((node) => ({
      task: `${node.id}: do the ${node.agent} part`,
      dependsOn: [],
      ...node,
    })),
    rationale: 'scripted plan',
    confidence: 0.9,
  };
}

async function run(fleet: RunningFleet, question: string) {
  const client = new OpenAI({ apiKey: fleet.apiKey, baseURL: fleet.baseURL, maxRetries: 0 });
  const { data: stream, response } = await client.chat.completions
    .create(
      {
        model: 'fleet-orchestration',
        stream: true,
        messages: [{ role: 'user', content: question }],
      },
      { headers: { 'X-Routing-Mode': 'orchestration' } },
    )
    .withResponse();
  const events: FleetEvent[] = [];
  let reasoning = '';
  let content = '';
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta as
      { content?: string; reasoning_content?: string } | undefined;
    reasoning += delta?.reasoning_content ?? '';
    content += delta?.content ?? '';
    const fleet = (chunk as unknown as { fleet?: FleetEvent }).fleet;
    if (fleet) events.push(fleet);
  }
  return { events, reasoning, content, sessionId: response.headers.get('x-session-id') };
}

/** Position of the first event matching, for order assertions. */
function at(events: FleetEvent[], type: string, nodeId?: string): number {
  const index = events.findIndex(
    (event) => event.type === type && (nodeId === undefined || event['nodeId'] === nodeId),
  );
  if (index === -1)
    throw new Error(
      `no ${type} event${nodeId ? ` for ${nodeId}` : ''} in ${JSON.stringify(events.map((e) => e.type))}`,
    );
  return index;
}

describe('orchestration on a running fleet', () => {
  let llm: ScriptedOpenAI;
  let fleet: RunningFleet;
  let redis: Redis;

  beforeAll(async () => {
    llm = await startScriptedOpenAI({
      respond: (_request, context) => {
        if (context.jsonSchema !== undefined) {
          const next = nextPlans.shift();
          return next === undefined ? {} : { json: next };
        }
        return { content: COMPOSED };
      },
    });
    fleet = await startFleet({
      env: { OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'sk-e2e-upstream' },
      serviceEnv: { orchestrator: { NODE_TIMEOUT_MS: '20000' } },
      agents: [
        {
          name: 'web',
          skills: [{ id: 'search', tags: ['web', 'search', 'news'] }],
          reply: { latencyMs: 300 },
        },
        {
          name: 'rag',
          skills: [{ id: 'documents', tags: ['documents', 'internal', 'docs'] }],
          reply: { latencyMs: 300 },
        },
        {
          name: 'code',
          skills: [{ id: 'python', tags: ['python', 'chart', 'code'] }],
          reply: { latencyMs: 100 },
        },
        {
          name: 'broken',
          skills: [{ id: 'fragile', tags: ['fragile'] }],
          reply: { fail: 'the scripted agent broke' },
        },
        { name: 'slow', skills: [{ id: 'slow', tags: ['slow'] }], reply: { latencyMs: 1500 } },
      ],
    });
    redis = new Redis(process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379');
  }, 90_000);

  afterAll(async () => {
    await fleet?.stop();
    await llm?.close();
    redis?.disconnect();
  }, 60_000);

  it('runs two independent agents in parallel', async () => {
    nextPlans = [
      plan([
        { id: 'a', agent: 'web' },
        { id: 'b', agent: 'rag' },
      ]),
    ];
    const { events, content, reasoning, sessionId } = await run(
      fleet,
      'News on A2A and our docs on it',
    );
    expect(sessionId).toMatch(/\S+/);
    // Both start before either ends: no waiting on each other.
    expect(Math.max(at(events, 'node-start', 'a'), at(events, 'node-start', 'b'))).toBeLessThan(
      Math.min(at(events, 'node-end', 'a'), at(events, 'node-end', 'b')),
    );
    expect(fleet.agents['web']!.requests.at(-1)?.nodeInput?.dependencyOutputs).toEqual({});
    expect(content).toContain(COMPOSED);
    expect(reasoning).not.toBe('');
    const result = events.find((event) => event.type === 'run-result')!;
    expect(result['failedNodes']).toEqual([]);
    expect(result['sessionId']).toBe(sessionId);
  });

  it('runs a chain of three, each step getting the previous output', async () => {
    nextPlans = [
      plan([
        { id: 'find', agent: 'web' },
        { id: 'check', agent: 'rag', dependsOn: ['find'] },
        { id: 'chart', agent: 'code', dependsOn: ['check'] },
      ]),
    ];
    const { events } = await run(fleet, 'Find it, check it against our docs, then chart it');
    expect(at(events, 'node-end', 'find')).toBeLessThan(at(events, 'node-start', 'check'));
    expect(at(events, 'node-end', 'check')).toBeLessThan(at(events, 'node-start', 'chart'));
    const check = fleet.agents['rag']!.requests.at(-1)!;
    const chart = fleet.agents['code']!.requests.at(-1)!;
    expect(check.nodeInput?.dependencyOutputs).toEqual({
      find: expect.objectContaining({
        agent: 'web',
        summary: expect.stringContaining('web handled: find: do the web part'),
      }),
    });
    expect(Object.keys(chart.nodeInput?.dependencyOutputs ?? {})).toEqual(['check']);
    expect(chart.nodeInput?.dependencyOutputs['check']?.summary).toContain(
      'rag handled: check: do the rag part',
    );
  });

  it('runs a diamond: two branches feeding one', async () => {
    nextPlans = [
      plan([
        { id: 'left', agent: 'web' },
        { id: 'right', agent: 'rag' },
        { id: 'join', agent: 'code', dependsOn: ['left', 'right'] },
      ]),
    ];
    const { events } = await run(fleet, 'Research both sides, then compare them in a chart');
    const join = at(events, 'node-start', 'join');
    expect(at(events, 'node-end', 'left')).toBeLessThan(join);
    expect(at(events, 'node-end', 'right')).toBeLessThan(join);
    expect(
      Math.max(at(events, 'node-start', 'left'), at(events, 'node-start', 'right')),
    ).toBeLessThan(Math.min(at(events, 'node-end', 'left'), at(events, 'node-end', 'right')));
    const inputs = fleet.agents['code']!.requests.at(-1)!.nodeInput?.dependencyOutputs ?? {};
    expect(Object.keys(inputs).sort()).toEqual(['left', 'right']);
    expect(inputs['left']?.summary).toContain('web handled');
    expect(inputs['right']?.summary).toContain('rag handled');
  });

  it('goes on after an agent fails, handing the failure downstream and naming it', async () => {
    nextPlans = [
      plan([
        { id: 'shaky', agent: 'broken' },
        { id: 'after', agent: 'web', dependsOn: ['shaky'] },
      ]),
    ];
    const { events, content } = await run(fleet, 'Do the fragile thing then search');
    const failed = events.find(
      (event) => event.type === 'node-end' && event['nodeId'] === 'shaky',
    )!;
    expect(failed['state']).toBe('failed');
    expect(String(failed['error'])).toContain('the scripted agent broke');
    const handed = fleet.agents['web']!.requests.at(-1)!.nodeInput?.dependencyOutputs['shaky'];
    expect(handed).toMatchObject({ agent: 'broken', partial: true });
    const result = events.find((event) => event.type === 'run-result')!;
    expect(result['failedNodes']).toEqual(['shaky']);
    expect(content).toMatch(/failed/i);
    expect(content).toContain('shaky');
  });

  it('falls back to the heuristic planner when the plan names an unknown agent', async () => {
    nextPlans = [plan([{ id: 'x', agent: 'ghost' }]), plan([{ id: 'x', agent: 'ghost' }])];
    const { events } = await run(fleet, 'search the web for news');
    const planned = events.find((event) => event.type === 'plan-end')!;
    expect(planned['source']).toBe('heuristic');
    const agents = (planned['plan'] as Plan).nodes.map((node) => node.agent);
    expect(agents).not.toContain('ghost');
    expect(agents).toContain('web');
    expect(
      events.at(-1)?.type === 'run-result' || events.some((event) => event.type === 'run-result'),
    ).toBe(true);
  });

  it('finishes and records a run whose client went away mid-run', async () => {
    nextPlans = [plan([{ id: 'long', agent: 'slow' }])];
    const client = new OpenAI({ apiKey: fleet.apiKey, baseURL: fleet.baseURL, maxRetries: 0 });
    const controller = new AbortController();
    const { data: stream, response } = await client.chat.completions
      .create(
        {
          model: 'fleet-orchestration',
          stream: true,
          messages: [{ role: 'user', content: 'take your time' }],
        },
        { headers: { 'X-Routing-Mode': 'orchestration' }, signal: controller.signal },
      )
      .withResponse();
    const sessionId = response.headers.get('x-session-id');
    expect(sessionId).toMatch(/\S+/);
    const seen = await (async () => {
      for await (const chunk of stream) {
        const fleetEvent = (chunk as unknown as { fleet?: FleetEvent }).fleet;
        if (fleetEvent?.type === 'node-start') {
          controller.abort();
          return fleetEvent;
        }
      }
      return undefined;
    })().catch(() => 'aborted');
    expect(seen).toBeDefined();
    const slow = fleet.agents['slow']!;
    await slow.waitForRequests(1);
    // The run goes on without its client and its session ends completed, nothing lost.
    let session: Record<string, unknown> | undefined;
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const raw = await redis.get(`fleet:{${sessionId}}:session`);
      session = raw === null ? undefined : (JSON.parse(raw) as Record<string, unknown>);
      if (session?.['status'] === 'completed') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(session?.['status']).toBe('completed');
    expect(slow.requests.at(-1)?.outcome).toBe('completed');
  });

  it('lets the gateway shut down at once after a client went away mid-stream', async () => {
    // Regression: kept-alive sockets left by the aborted stream used to hold the gateway's
    // shutdown for its whole 10 s grace period (Node's closeIdleConnections missed them).
    const code = await fleet.gateway.stop();
    expect(code).toBe(0);
    expect(fleet.gateway.process.output()).not.toContain('did not finish in time');
  });
});
