/**
 * Plans that grow: a step's result may hand work off to another agent (a `handoff` data part,
 * read liberally from agents built on `@a2a-js/sdk`), which adds a step to the running plan —
 * within the run's limits, never back along the chain, only to agents the run may use.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import type { ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import type { Plan, PlanNode, ProgressEvent } from '@fleet/a2a';
import {
  artifactEvent,
  startScriptedOpenAI,
  startSdkAgent,
  statusEvent,
  taskSnapshot,
  type ScriptedOpenAI,
  type SdkAgent,
  type WirePart,
} from '@fleet/testing';
import {
  TEST_TOKEN,
  orchestrate,
  outcomeOf,
  readStream,
  startTestOrchestrator,
  type TestOrchestrator,
} from '../test-support/start-test-orchestrator';

const prefix = `test:orchestrator-handoffs:${randomUUID()}:`;

const AGENTS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'] as const;
/** The agents, and `toolbox`: an agent whose skills are MCP tools, under the tenant's tool policy. */
type AgentName = (typeof AGENTS)[number] | 'toolbox';

/** What an agent answers: its text, more parts in its artifact or status, or a failure. */
interface Reply {
  text: string;
  /** Sent first as chunks of the answer, while it is written. */
  chunks?: string[];
  artifactParts?: WirePart[];
  statusParts?: WirePart[];
  fail?: boolean;
}

/** Each agent's answer in the current test, from the text it was sent. */
const scripts = new Map<AgentName, (text: string) => Reply>();

/** An `@a2a-js/sdk` executor that answers as the current test's script says. */
function scriptedExecutor(name: AgentName) {
  return {
    execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
      const text = context.userMessage.parts
        .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
        .join('\n');
      const reply = (scripts.get(name) ?? ((): Reply => ({ text: `${name} is done.` })))(text);
      bus.publish(taskSnapshot(context));
      if (reply.fail === true) {
        bus.publish(
          statusEvent(context, { state: 'TASK_STATE_FAILED', parts: [{ text: reply.text }] }),
        );
        return Promise.resolve();
      }
      (reply.chunks ?? []).forEach((chunk, index) =>
        bus.publish(
          artifactEvent(context, {
            artifactId: `${context.taskId}-answer`,
            name: 'answer',
            parts: [{ text: chunk }],
            append: index > 0,
            lastChunk: false,
          }),
        ),
      );
      bus.publish(
        artifactEvent(context, {
          artifactId: `${context.taskId}-answer`,
          name: 'answer',
          parts: [{ text: reply.text }, ...(reply.artifactParts ?? [])],
        }),
      );
      bus.publish(
        statusEvent(context, {
          state: 'TASK_STATE_COMPLETED',
          ...(reply.statusParts === undefined ? {} : { parts: reply.statusParts }),
        }),
      );
      return Promise.resolve();
    },
    cancelTask: () => Promise.resolve(),
  };
}

/** The data part of a hand-off, as a foreign agent writes it. */
function handoffData(handoff: unknown): WirePart {
  return { data: { handoff } };
}

function planFor(agent: AgentName, task = 'Find the kit'): Plan {
  return {
    nodes: [{ id: 's1', agent, task, dependsOn: [] }],
    rationale: 'one step',
    confidence: 0.9,
  };
}

type Added = Extract<ProgressEvent, { type: 'node-added' }>;
type Refused = Extract<ProgressEvent, { type: 'handoff-refused' }>;

function addedNodes(progress: ProgressEvent[]): PlanNode[] {
  return progress
    .filter((event): event is Added => event.type === 'node-added')
    .map((event) => event.node);
}

function refusals(progress: ProgressEvent[]): Refused[] {
  return progress.filter((event): event is Refused => event.type === 'handoff-refused');
}

describe('hand-offs (real Redis, @a2a-js/sdk agents)', () => {
  let redis: Redis;
  let llm: ScriptedOpenAI;
  const agents = new Map<AgentName, SdkAgent>();
  let orchestrator: TestOrchestrator;
  const requestsFor = (name: AgentName, sessionId: string) =>
    (agents.get(name)?.requests ?? []).filter(
      (request) => request.fleet?.['sessionId'] === sessionId,
    );

  beforeAll(async () => {
    redis = new Redis('redis://127.0.0.1:6379');
    llm = await startScriptedOpenAI();
    for (const name of AGENTS) {
      agents.set(
        name,
        await startSdkAgent({
          name,
          description: `The ${name} agent, built on @a2a-js/sdk.`,
          skills: [{ id: `${name}-skill`, tags: [name] }],
          executor: scriptedExecutor(name),
          token: TEST_TOKEN,
        }),
      );
    }
    agents.set(
      'toolbox',
      await startSdkAgent({
        name: 'toolbox',
        description: 'MCP tools over files, built on @a2a-js/sdk.',
        skills: [
          { id: 'files/read_file', tags: ['mcp'] },
          { id: 'files/write_file', tags: ['mcp'] },
        ],
        executor: scriptedExecutor('toolbox'),
        token: TEST_TOKEN,
      }),
    );
    orchestrator = await startTestOrchestrator({
      redis,
      prefix,
      agentUrls: [...agents.values()].map((agent) => agent.url),
      llmBaseUrl: llm.baseURL,
    });
  }, 30_000);

  afterAll(async () => {
    await orchestrator?.close();
    await Promise.all([...agents.values()].map((agent) => agent.stop()));
    await llm?.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  const run = async (plan: Plan, extra: Record<string, unknown> = {}) => {
    const events = await orchestrate(orchestrator.client, {
      text: 'Tell me about the kit',
      fleet: { tenant: 'acme', plan, ...extra },
    }).done;
    const outcome = outcomeOf(events);
    const sessionId = outcome.result?.sessionId ?? '';
    const session = await orchestrator.sessions.get(sessionId);
    return { outcome, progress: readStream(events).progress, sessionId, session };
  };

  it('adds a step for the agent a result hands off to, and the answer uses its result', async () => {
    scripts.clear();
    scripts.set('alpha', () => ({
      text: 'Alpha found the G3 kit.',
      artifactParts: [
        handoffData({ agent: 'beta', task: 'Price the kit', context: 'The kit is the G3.' }),
      ],
    }));
    scripts.set('beta', () => ({ text: 'Beta priced the kit at 40 euros.' }));
    const composerCalls = llm.requests.length;

    const { outcome, progress, sessionId, session } = await run(planFor('alpha'));

    expect(outcome.state).toBe('TASK_STATE_COMPLETED');
    const added: PlanNode = {
      id: 's1-handoff-1',
      agent: 'beta',
      task: 'Price the kit\n\nContext from step s1: The kit is the G3.',
      dependsOn: ['s1'],
      origin: { kind: 'handoff', from: 's1' },
    };
    expect(addedNodes(progress)).toEqual([added]);
    expect(refusals(progress)).toEqual([]);
    // Announced after the step that handed off ended, before the new step started.
    const order = progress.map((event) =>
      event.type === 'node-added'
        ? 'added'
        : `${event.type}:${'nodeId' in event ? event.nodeId : ''}`,
    );
    expect(order.indexOf('added')).toBeGreaterThan(order.indexOf('node-end:s1'));
    expect(order.indexOf('added')).toBeLessThan(order.indexOf('node-start:s1-handoff-1'));
    // In the session's plan, with its origin, and run to its end.
    expect(session?.plan?.nodes).toEqual([expect.objectContaining({ id: 's1' }), added]);
    expect(session?.nodes['s1-handoff-1']).toMatchObject({ agent: 'beta', state: 'completed' });
    // The hand-off part is not the step's data.
    expect(session?.nodes['s1']?.data).toBeUndefined();
    // The new step got the step it came from as its dependency.
    const [sent] = requestsFor('beta', sessionId);
    expect(sent?.text).toContain('Price the kit');
    expect(sent?.text).toContain('Alpha found the G3 kit.');
    // The run's result has it, and the composer saw its result.
    expect(outcome.result?.plan.nodes.map((node) => node.id)).toEqual(['s1', 's1-handoff-1']);
    expect(outcome.result?.nodes.find((node) => node.id === 's1-handoff-1')).toMatchObject({
      state: 'completed',
    });
    const composer = llm.requests.slice(composerCalls);
    expect(
      composer.some((request) => request.rawBody.includes('Beta priced the kit at 40 euros.')),
    ).toBe(true);
  });

  it("keeps a single step's streamed answer as the answer's start when its hand-off grew the plan", async () => {
    scripts.clear();
    scripts.set('alpha', () => ({
      chunks: ['Alpha found ', 'the G3 kit.'],
      text: 'Alpha found the G3 kit.',
      artifactParts: [handoffData({ agent: 'beta', task: 'Price the kit' })],
    }));
    scripts.set('beta', () => ({ text: 'Beta priced the kit at 40 euros.' }));

    const { outcome, progress } = await run(planFor('alpha'));

    expect(outcome.state).toBe('TASK_STATE_COMPLETED');
    expect(addedNodes(progress)).toHaveLength(1);
    const answer = outcome.answer ?? '';
    // What was shown is never taken back, and the composed answer follows it without a note.
    expect(answer.startsWith('Alpha found the G3 kit.\n\n')).toBe(true);
    expect(answer).not.toContain('cut off');
    expect(answer.length).toBeGreaterThan('Alpha found the G3 kit.\n\n'.length);
  });

  it('takes three hand-offs along a chain and refuses the fourth; the run completes', async () => {
    scripts.clear();
    const next: Partial<Record<AgentName, Reply>> = {
      // By skill id, by `<agent>/<skill>`, by agent (in the final status message), then one more.
      alpha: { text: 'a', artifactParts: [handoffData({ skill: 'beta-skill', task: 'Step two' })] },
      beta: {
        text: 'b',
        artifactParts: [handoffData({ skill: 'gamma/gamma-skill', task: 'Step three' })],
      },
      gamma: {
        text: 'c',
        statusParts: [
          { text: 'done' },
          handoffData({ agentName: 'delta', instructions: 'Step four' }),
        ],
      },
      delta: { text: 'd', artifactParts: [handoffData({ agent: 'epsilon', task: 'Step five' })] },
    };
    for (const [name, reply] of Object.entries(next)) scripts.set(name as AgentName, () => reply);

    const { outcome, progress, sessionId, session } = await run(planFor('alpha'));

    expect(outcome.state).toBe('TASK_STATE_COMPLETED');
    expect(
      addedNodes(progress).map((node) => [node.id, node.agent, node.skill, node.task]),
    ).toEqual([
      ['s1-handoff-1', 'beta', 'beta-skill', 'Step two'],
      ['s1-handoff-1-handoff-1', 'gamma', 'gamma-skill', 'Step three'],
      ['s1-handoff-1-handoff-1-handoff-1', 'delta', undefined, 'Step four'],
    ]);
    const refused = refusals(progress);
    expect(refused).toEqual([
      {
        type: 'handoff-refused',
        nodeId: 's1-handoff-1-handoff-1-handoff-1',
        agent: 'delta',
        target: 'epsilon',
        reason: expect.stringContaining('already taken 3 hand-offs') as unknown as string,
      },
    ]);
    expect(requestsFor('epsilon', sessionId)).toEqual([]);
    expect(session?.plan?.nodes).toHaveLength(4);
    expect(session?.status).toBe('completed');
    expect(outcome.result?.nodes.every((node) => node.state === 'completed')).toBe(true);
  });

  it('counts the hand-offs a resumed run took before, and takes none twice', async () => {
    scripts.clear();
    scripts.set('alpha', () => ({
      text: 'Alpha again.',
      artifactParts: [handoffData({ agent: 'beta', task: 'Step two' })],
    }));
    scripts.set('delta', () => ({
      text: 'Delta is done.',
      artifactParts: [handoffData({ agent: 'epsilon', task: 'Step five' })],
    }));
    const handedOff = (id: string, agent: AgentName, from: string): PlanNode => ({
      id,
      agent,
      task: `Work for ${agent}`,
      dependsOn: [from],
      origin: { kind: 'handoff', from },
    });
    const created = await orchestrator.sessions.create({ tenant: 'acme', request: 'The kit' });
    await orchestrator.sessions.update(created.id, (draft) => {
      draft.plan = {
        nodes: [
          { id: 's1', agent: 'alpha', task: 'Find the kit', dependsOn: [] },
          handedOff('h1', 'beta', 's1'),
          handedOff('h2', 'gamma', 'h1'),
          handedOff('h3', 'delta', 'h2'),
        ],
        rationale: 'grown',
        confidence: 0.9,
      };
      draft.planSource = 'request';
      const done = (agent: AgentName) =>
        ({ agent, state: 'completed', attempts: 1, summary: `${agent} did it.` }) as const;
      draft.nodes = {
        s1: done('alpha'),
        h1: done('beta'),
        h2: done('gamma'),
        h3: { agent: 'delta', state: 'pending', attempts: 0 },
      };
    });

    const events = await orchestrate(orchestrator.client, {
      text: 'resume',
      fleet: { tenant: 'acme', resumeSessionId: created.id },
    }).done;
    const outcome = outcomeOf(events);
    const progress = readStream(events).progress;

    expect(outcome.state).toBe('TASK_STATE_COMPLETED');
    // Only the pending step ran; its hand-off is one too many.
    expect(requestsFor('alpha', created.id)).toEqual([]);
    expect(requestsFor('delta', created.id)).toHaveLength(1);
    expect(addedNodes(progress)).toEqual([]);
    expect(refusals(progress)).toEqual([
      expect.objectContaining({
        nodeId: 'h3',
        target: 'epsilon',
        reason: expect.stringContaining('already taken 3 hand-offs') as unknown as string,
      }),
    ]);
    expect(outcome.result?.plan.nodes).toHaveLength(4);
  });

  it('never hands work back along the chain: two agents that hand off to each other stop', async () => {
    scripts.clear();
    scripts.set('alpha', () => ({
      text: 'Alpha asks beta.',
      artifactParts: [handoffData({ agent: 'beta', task: 'Your turn, beta' })],
    }));
    scripts.set('beta', () => ({
      text: 'Beta asks alpha.',
      artifactParts: [handoffData([{ agent: 'alpha', task: 'Your turn, alpha' }])],
    }));

    const { outcome, progress, sessionId, session } = await run(planFor('alpha'));

    expect(outcome.state).toBe('TASK_STATE_COMPLETED');
    expect(addedNodes(progress).map((node) => node.agent)).toEqual(['beta']);
    expect(refusals(progress)).toEqual([
      expect.objectContaining({
        nodeId: 's1-handoff-1',
        agent: 'beta',
        target: 'alpha',
        reason: expect.stringMatching(/alpha already worked on this chain/) as unknown as string,
      }),
    ]);
    // Alpha ran once, beta once.
    expect(requestsFor('alpha', sessionId)).toHaveLength(1);
    expect(requestsFor('beta', sessionId)).toHaveLength(1);
    expect(session?.plan?.nodes).toHaveLength(2);
    expect(session?.status).toBe('completed');
  });

  it('refuses a hand-off to an excluded, unknown or its own agent, naming it', async () => {
    scripts.clear();
    scripts.set('alpha', () => ({
      text: 'Alpha wants help.',
      artifactParts: [
        handoffData([
          { agent: 'gamma', task: 'Excluded work' },
          { agent: 'nobody', task: 'Unknown work' },
          { skill: 'alpha-skill', task: 'My own work' },
        ]),
      ],
    }));

    const { outcome, progress, sessionId, session } = await run(planFor('alpha'), {
      steering: { exclude: ['gamma'] },
    });

    expect(outcome.state).toBe('TASK_STATE_COMPLETED');
    expect(addedNodes(progress)).toEqual([]);
    expect(refusals(progress).map(({ target, reason }) => [target, reason])).toEqual([
      ['gamma', expect.stringMatching(/"gamma" is excluded from this run/)],
      ['nobody', expect.stringMatching(/no agent or skill "nobody" is available/)],
      ['alpha-skill', expect.stringMatching(/its own agent \(alpha\)/)],
    ]);
    expect(requestsFor('gamma', sessionId)).toEqual([]);
    expect(session?.plan?.nodes.map((node) => node.id)).toEqual(['s1']);
    expect(Object.keys(session?.nodes ?? {})).toEqual(['s1']);
    expect(outcome.result?.state).toBe('completed');
  });

  it("refuses a hand-off to a tool the tenant's tool policy denies, and takes a permitted one", async () => {
    scripts.clear();
    scripts.set('alpha', () => ({
      text: 'Alpha wants files.',
      artifactParts: [
        handoffData([
          { skill: 'files/write_file', task: 'Write the report' },
          { skill: 'files/read_file', task: 'Read the report' },
        ]),
      ],
    }));

    const { outcome, progress, sessionId } = await run(planFor('alpha'), {
      toolPolicy: { deny: ['files/write_file'] },
    });

    expect(outcome.state).toBe('TASK_STATE_COMPLETED');
    expect(refusals(progress).map(({ target, reason }) => [target, reason])).toEqual([
      [
        'files/write_file',
        expect.stringMatching(/no agent or skill "files\/write_file" is available/),
      ],
    ]);
    expect(addedNodes(progress)).toEqual([
      expect.objectContaining({ agent: 'toolbox', skill: 'files/read_file' }),
    ]);
    expect(requestsFor('toolbox', sessionId).map((request) => request.text)).toEqual([
      expect.stringContaining('Read the report'),
    ]);
  });

  it('refuses a hand-off that does not read, and the step still completes', async () => {
    scripts.clear();
    scripts.set('alpha', () => ({
      text: 'Alpha is done.',
      artifactParts: [handoffData({ agent: 'beta' })],
    }));

    const { outcome, progress, sessionId, session } = await run(planFor('alpha'));

    expect(outcome.state).toBe('TASK_STATE_COMPLETED');
    expect(refusals(progress)).toEqual([
      expect.objectContaining({
        nodeId: 's1',
        target: 'unreadable',
        reason: expect.stringMatching(/^a hand-off that does not read: /) as unknown as string,
      }),
    ]);
    expect(session?.nodes['s1']).toMatchObject({ state: 'completed', summary: 'Alpha is done.' });
    expect(requestsFor('beta', sessionId)).toEqual([]);
  });
});
