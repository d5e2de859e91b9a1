/**
 * One re-plan after a failure: a step that failed for a reason another agent could work around
 * is planned again once, and the steps the planner adds run with other agents.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import type { ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import {
  dataPart,
  findData,
  planRequestSchema,
  textPart,
  type Plan,
  type PlanRequest,
  type ProgressEvent,
} from '@fleet/a2a';
import type { RunningServer } from '@fleet/http';
import {
  artifactEvent,
  startSdkAgent,
  statusEvent,
  taskSnapshot,
  type SdkAgent,
} from '@fleet/testing';
import { answering, startTestAgent } from '../test-support/start-test-agent';
import {
  TEST_TOKEN,
  orchestrate,
  outcomeOf,
  readStream,
  startTestOrchestrator,
  type TestOrchestrator,
} from '../test-support/start-test-orchestrator';

const prefix = `test:orchestrator-replan:${randomUUID()}:`;

/** Agents that fail, by name (the rest answer). */
const failing = new Set<string>();

/** An `@a2a-js/sdk` executor that fails while its agent is in {@link failing}, else answers. */
function executorFor(name: string) {
  return {
    execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
      bus.publish(taskSnapshot(context));
      if (failing.has(name)) {
        bus.publish(
          statusEvent(context, {
            state: 'TASK_STATE_FAILED',
            parts: [{ text: `the ${name} archive is offline` }],
          }),
        );
        return Promise.resolve();
      }
      bus.publish(
        artifactEvent(context, {
          artifactId: `${context.taskId}-answer`,
          name: 'answer',
          parts: [{ text: `${name} found the minutes.` }],
        }),
      );
      bus.publish(statusEvent(context, { state: 'TASK_STATE_COMPLETED' }));
      return Promise.resolve();
    },
    cancelTask: () => Promise.resolve(),
  };
}

const step = (id: string, agent: string, task: string): Plan['nodes'][number] => ({
  id,
  agent,
  task,
  dependsOn: [],
});

type Added = Extract<ProgressEvent, { type: 'node-added' }>;

describe('re-planning after a failure (real Redis, @a2a-js/sdk agents)', () => {
  let redis: Redis;
  let planner: RunningServer;
  const agents: SdkAgent[] = [];
  let orchestrator: TestOrchestrator;
  let off: TestOrchestrator;
  /** The planner's answers, in order. */
  const plans: Plan[] = [];
  const planRequests: PlanRequest[] = [];

  beforeAll(async () => {
    redis = new Redis('redis://127.0.0.1:6379');
    for (const name of ['archive', 'library', 'notes']) {
      agents.push(
        await startSdkAgent({
          name,
          description: `The ${name}, built on @a2a-js/sdk.`,
          skills: [{ id: `${name}-search`, tags: [name] }],
          executor: executorFor(name),
          token: TEST_TOKEN,
        }),
      );
    }
    planner = await startTestAgent({
      name: 'planner',
      token: TEST_TOKEN,
      execute: answering(({ message }) => {
        const request = findData(message.parts, planRequestSchema)?.planRequest;
        if (request === undefined) return [];
        planRequests.push(request);
        const plan = plans.shift() ?? { nodes: [], rationale: 'nothing', confidence: 0.9 };
        return [
          {
            type: 'artifact',
            artifact: {
              name: 'result',
              parts: [textPart('plan'), dataPart({ plan, source: 'llm', attempts: 1 })],
            },
          },
        ];
      }),
    });
    const agentUrls = agents.map((agent) => agent.url);
    orchestrator = await startTestOrchestrator({
      redis,
      prefix,
      agentUrls,
      plannerUrl: planner.url,
    });
    off = await startTestOrchestrator({
      redis,
      prefix: `${prefix}off:`,
      agentUrls,
      plannerUrl: planner.url,
      replanAfterFailure: false,
    });
  }, 30_000);

  afterAll(async () => {
    await Promise.all([orchestrator?.close(), off?.close()]);
    await Promise.all(agents.map((agent) => agent.stop()));
    await planner?.shutdown();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  const start = (plan: Plan[], failingAgents: string[], via = orchestrator) => {
    plans.length = 0;
    plans.push(...plan);
    planRequests.length = 0;
    failing.clear();
    for (const name of failingAgents) failing.add(name);
    return orchestrate(via.client, {
      text: 'Find the minutes of the last meeting',
      fleet: { tenant: 'acme' },
    }).done;
  };

  it('plans once more after a failed step and runs the new step with another agent', async () => {
    const events = await start(
      [
        {
          nodes: [
            step('find', 'archive', 'Find the minutes'),
            step('notes', 'notes', 'Note the date'),
          ],
          rationale: 'the archive has them',
          confidence: 0.9,
        },
        {
          // The note is done: the planner repeats it (not run again) and gives the rest to the
          // library, with the failed step's id and a dependency on the note.
          nodes: [
            step('notes', 'notes', 'Note the date'),
            { ...step('find', 'library', 'Find the minutes in the library'), dependsOn: ['notes'] },
          ],
          rationale: 'the library has copies',
          confidence: 0.8,
        },
      ],
      ['archive'],
    );
    const outcome = outcomeOf(events);
    expect(outcome.state).toBe('TASK_STATE_COMPLETED');
    // The planner heard which step failed and why, with the plan as it ran.
    expect(planRequests).toHaveLength(2);
    expect(planRequests[1]?.feedback).toBe(
      'Step find (archive) failed: the archive archive is offline. Plan only the remaining work, with other agents if one can do it.',
    );
    expect(planRequests[1]?.previousPlan?.nodes.map((node) => node.id)).toEqual(['find', 'notes']);
    const added = {
      id: 'find-replan-1',
      agent: 'library',
      task: 'Find the minutes in the library',
      dependsOn: ['notes'],
      origin: { kind: 'replan', from: 'find' },
    };
    const progress = readStream(events).progress;
    expect(
      progress.filter((event): event is Added => event.type === 'node-added').map((e) => e.node),
    ).toEqual([added]);
    const sessionId = outcome.result?.sessionId ?? '';
    const session = await orchestrator.sessions.get(sessionId);
    expect(session?.plan?.nodes.map((node) => node.id)).toEqual(['find', 'notes', 'find-replan-1']);
    expect(session?.plan?.nodes[2]).toEqual(added);
    expect(session?.nodes['find']?.state).toBe('failed');
    expect(session?.nodes['find-replan-1']).toMatchObject({ agent: 'library', state: 'completed' });
    // The note ran once.
    const notes = agents[2] as SdkAgent;
    expect(
      notes.requests.filter((request) => request.fleet?.['sessionId'] === sessionId),
    ).toHaveLength(1);
    expect(outcome.result?.plan.nodes.map((node) => node.id)).toContain('find-replan-1');
    expect(outcome.result?.state).toBe('partial');
    expect(outcome.answer).toContain('library found the minutes.');
  });

  it('does not re-plan a second time when the new step fails too', async () => {
    const events = await start(
      [
        { nodes: [step('find', 'archive', 'Find the minutes')], rationale: 'a', confidence: 0.9 },
        { nodes: [step('find', 'library', 'Try the library')], rationale: 'b', confidence: 0.9 },
        { nodes: [step('find', 'notes', 'Try the notes')], rationale: 'c', confidence: 0.9 },
      ],
      ['archive', 'library'],
    );
    const outcome = outcomeOf(events);
    expect(outcome.state).toBe('TASK_STATE_COMPLETED');
    expect(planRequests).toHaveLength(2);
    const session = await orchestrator.sessions.get(outcome.result?.sessionId ?? '');
    expect(session?.plan?.nodes.map((node) => [node.id, node.agent])).toEqual([
      ['find', 'archive'],
      ['find-replan-1', 'library'],
    ]);
    expect(session?.nodes['find-replan-1']?.state).toBe('failed');
    expect(outcome.result?.state).toBe('failed');
  });

  it('does not re-plan again when a resumed run’s re-planned step fails', async () => {
    plans.length = 0;
    plans.push({
      nodes: [step('find', 'notes', 'Try the notes')],
      rationale: 'c',
      confidence: 0.9,
    });
    planRequests.length = 0;
    failing.clear();
    failing.add('library');
    const session = await orchestrator.sessions.create({ tenant: 'acme', request: 'Find them' });
    await orchestrator.sessions.update(session.id, (draft) => {
      draft.plan = {
        nodes: [
          step('find', 'archive', 'Find the minutes'),
          {
            ...step('find-replan-1', 'library', 'Try the library'),
            origin: { kind: 'replan', from: 'find' },
          },
        ],
        rationale: 'a',
        confidence: 0.9,
      };
      draft.planSource = 'llm';
      draft.nodes = {
        find: { agent: 'archive', state: 'failed', attempts: 1, error: 'the archive is offline' },
        'find-replan-1': { agent: 'library', state: 'pending', attempts: 0 },
      };
    });
    const events = await orchestrate(orchestrator.client, {
      text: 'resume',
      fleet: { tenant: 'acme', resumeSessionId: session.id },
    }).done;
    const outcome = outcomeOf(events);
    expect(outcome.state).toBe('TASK_STATE_COMPLETED');
    // The library ran (and failed); the planner was not asked again.
    expect((await orchestrator.sessions.get(session.id))?.nodes['find-replan-1']?.state).toBe(
      'failed',
    );
    expect(planRequests).toEqual([]);
    expect(outcome.result?.plan.nodes.map((node) => node.id)).toEqual(['find', 'find-replan-1']);
  });

  it('adds nothing when the new plan gives the work to the agent that failed', async () => {
    const events = await start(
      [
        { nodes: [step('find', 'archive', 'Find the minutes')], rationale: 'a', confidence: 0.9 },
        { nodes: [step('again', 'archive', 'Find them again')], rationale: 'b', confidence: 0.9 },
      ],
      ['archive'],
    );
    const outcome = outcomeOf(events);
    expect(planRequests).toHaveLength(2);
    expect(readStream(events).progress.some((event) => event.type === 'node-added')).toBe(false);
    expect(outcome.result?.plan.nodes.map((node) => node.id)).toEqual(['find']);
  });

  it('does not re-plan with ORCHESTRATOR_REPLAN_AFTER_FAILURE=false', async () => {
    const events = await start(
      [
        { nodes: [step('find', 'archive', 'Find the minutes')], rationale: 'a', confidence: 0.9 },
        { nodes: [step('find', 'library', 'Try the library')], rationale: 'b', confidence: 0.9 },
      ],
      ['archive'],
      off,
    );
    expect(outcomeOf(events).state).toBe('TASK_STATE_COMPLETED');
    expect(planRequests).toHaveLength(1);
    expect(outcomeOf(events).result?.plan.nodes).toHaveLength(1);
  });
});
