import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { z } from 'zod';
import {
  createMessage,
  dataPart,
  findData,
  nodeInputSchema,
  partsText,
  progressEventSchema,
  runResultSchema,
  textPart,
  type Plan,
  type StreamResponse,
} from '@fleet/a2a';
import { A2AClient, discoverAgentCard } from '@fleet/a2a/client';
import { RedisTaskStore, type A2AHandler } from '@fleet/a2a/server';
import { UnauthenticatedError } from '@fleet/errors';
import { silentLogger, startServer, type RunningServer } from '@fleet/http';
import { getFreePort } from '@fleet/testing';
import { createApp } from './app';
import { createAgentDirectory, type AgentDirectory } from './discovery';
import { createA2AAgentInvoker, createAgentBreakers } from './execution';
import { createOrchestratorHandler } from './orchestration';
import { createPlannerClient } from './planning';
import { createSessionStore, type SessionStore } from '@fleet/sessions';
import { answering, startTestAgent } from './test-support/start-test-agent';

const TOKEN = 'test-internal-token-0123456789';
const prefix = `test:orchestrator-app:${randomUUID()}:`;

/** A gate the test opens by hand, so the slow agent's timing never depends on the clock. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

async function waitFor<T>(read: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let tries = 0; tries < 200; tries += 1) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** The data part beside each progress line. */
const progressEnvelope = z.object({ progress: progressEventSchema });

describe('orchestrator (service)', () => {
  let redis: Redis;
  let sessions: SessionStore;
  let directory: AgentDirectory;
  let orchestrator: RunningServer;
  let client: A2AClient;
  let handler: A2AHandler;
  let taskStore: RedisTaskStore;
  const agents: RunningServer[] = [];
  const slow = { gate: gate(), started: gate(), aborted: false };

  beforeAll(async () => {
    redis = new Redis('redis://127.0.0.1:6379');

    agents.push(
      await startTestAgent({
        name: 'web-agent',
        token: TOKEN,
        execute: answering(({ message }) => {
          const input = findData(message.parts, nodeInputSchema);
          return [
            { type: 'status', state: 'TASK_STATE_WORKING', message: 'searching' },
            {
              type: 'artifact',
              artifact: {
                name: 'result',
                parts: [
                  textPart(
                    `Paris is the capital of France [1]. (session ${input?.fleet.sessionId ?? '?'})`,
                  ),
                  dataPart({
                    sources: [{ title: 'Paris', url: 'https://en.wikipedia.org/wiki/Paris' }],
                  }),
                ],
              },
            },
          ];
        }),
      }),
      await startTestAgent({
        name: 'writer',
        token: TOKEN,
        execute: answering(({ message }) => {
          const input = findData(message.parts, nodeInputSchema);
          const outputs = input?.fleet.dependencyOutputs ?? {};
          const text = Object.entries(outputs)
            .map(
              ([id, output]) =>
                `${id}${output.partial === true ? ' (partial)' : ''}: ${output.summary}`,
            )
            .join(' | ');
          return [
            {
              type: 'artifact',
              artifact: {
                name: 'result',
                parts: [
                  textPart(text),
                  dataPart({ seen: outputs, text: partsText(message.parts) }),
                ],
              },
            },
          ];
        }),
      }),
      await startTestAgent({
        name: 'broken-agent',
        token: TOKEN,
        execute: answering(() => {
          throw new Error('the mailbox does not exist');
        }),
      }),
      await startTestAgent({
        name: 'gone-agent',
        token: TOKEN,
        execute: answering(() => [
          { type: 'artifact', artifact: { name: 'result', parts: [textPart('still here')] } },
        ]),
      }),
      await startTestAgent({
        name: 'slow-agent',
        token: TOKEN,
        cancelOnDisconnect: false,
        execute: async function* ({ signal }) {
          slow.started.open();
          signal.addEventListener('abort', () => {
            slow.aborted = true;
          });
          await Promise.race([
            slow.gate.wait,
            new Promise((resolve) => signal.addEventListener('abort', resolve)),
          ]);
          yield {
            type: 'artifact',
            artifact: { name: 'result', parts: [textPart('slow but done')] },
          };
        },
      }),
    );

    directory = createAgentDirectory({
      urls: agents.map((agent) => agent.url),
      redis,
      token: TOKEN,
      keyPrefix: `${prefix}cards:`,
      timeoutMs: 1000,
      logger: silentLogger,
    });
    sessions = createSessionStore({
      redis,
      keyPrefix: `${prefix}session`,
    });
    // No planner runs here: every request below either carries its plan or expects the
    // "planner unreachable" failure.
    const planner = createPlannerClient({
      url: 'http://127.0.0.1:9',
      token: TOKEN,
      cardTimeoutMs: 500,
    });
    const port = await getFreePort();
    taskStore = new RedisTaskStore({ redis, keyPrefix: `${prefix}a2a` });
    handler = createOrchestratorHandler({
      url: `http://127.0.0.1:${port}`,
      store: taskStore,
      agent: {
        sessions,
        availableAgents: () => directory.availableAgents(),
        askPlanner: planner.askPlanner,
        invokeAgent: createA2AAgentInvoker({
          findAgent: (name) => directory.findAgent(name),
          token: TOKEN,
          logger: silentLogger,
        }),
        breakers: createAgentBreakers(),
        logger: silentLogger,
        retry: { maxAttempts: 2, baseDelayMs: 1 },
      },
    });
    const app = createApp({
      handler,
      internalToken: TOKEN,
      redis,
      plannerReady: planner.checkReady,
      logger: silentLogger,
      metrics: false,
    });
    orchestrator = await startServer({ app, port, signals: [], shutdownTimeoutMs: 100 });
    client = new A2AClient({ card: await discoverAgentCard(orchestrator.url), token: TOKEN });
  });

  afterAll(async () => {
    slow.gate.open();
    await orchestrator.shutdown();
    await handler.close();
    await taskStore.close();
    await sessions.close();
    await Promise.all(agents.map((agent) => agent.shutdown()));
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  function orchestrate(text: string, fleet: Record<string, unknown>, signal?: AbortSignal) {
    return client.sendStreamingMessage(
      { message: createMessage({ parts: [textPart(text), dataPart({ fleet })] }) },
      signal === undefined ? {} : { signal },
    );
  }

  async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
    const events: StreamResponse[] = [];
    for await (const event of stream) events.push(event);
    return events;
  }

  it('runs an explicit plan over real A2A agents, streaming progress and a cited result', async () => {
    const plan: Plan = {
      nodes: [
        { id: 'search', agent: 'web-agent', task: 'Find the capital of France', dependsOn: [] },
        { id: 'mail', agent: 'broken-agent', task: 'Read the mailbox', dependsOn: [] },
        { id: 'write', agent: 'writer', task: 'Write it up', dependsOn: ['search', 'mail'] },
      ],
      rationale: 'test',
      confidence: 1,
    };
    const events = await collect(orchestrate('Tell me about Paris', { tenant: 'acme', plan }));

    // The task first, then a WORKING status naming the session.
    expect('task' in (events[0] as StreamResponse)).toBe(true);
    const first = events[1];
    if (first === undefined || !('statusUpdate' in first))
      throw new Error('expected a status update');
    expect(first.statusUpdate.status.state).toBe('TASK_STATE_WORKING');
    const sessionId = (first.statusUpdate.metadata as { sessionId: string }).sessionId;
    expect(typeof sessionId).toBe('string');

    const progress = events.flatMap((event) => {
      if (!('statusUpdate' in event)) return [];
      const data = findData(event.statusUpdate.status.message?.parts ?? [], progressEnvelope);
      return data === undefined ? [] : [data.progress];
    });
    expect(progress[0]).toEqual({ type: 'run-start', sessionId });
    // The agents' own progress lines (agent-progress.test.ts) are not state changes.
    expect(progress.map((event) => event.type).filter((type) => type !== 'node-progress')).toEqual([
      'run-start',
      'plan-start',
      'plan-end',
      'node-start',
      'node-start',
      'node-end',
      'node-end',
      'node-start',
      'node-end',
      'compose-start',
      'run-end',
    ]);
    expect(progress[1]).toEqual({
      type: 'plan-start',
      agents: ['web-agent', 'writer', 'broken-agent', 'gone-agent', 'slow-agent'],
    });
    expect(progress[2]).toEqual({ type: 'plan-end', plan, source: 'request' });
    const nodeEnds = progress.filter((event) => event.type === 'node-end');
    expect(nodeEnds.find((event) => event.nodeId === 'mail')).toMatchObject({
      state: 'failed',
      error: 'the mailbox does not exist',
    });
    expect(nodeEnds.at(-1)).toMatchObject({ nodeId: 'write', state: 'completed' });
    expect(progress.at(-1)).toEqual({ type: 'run-end', state: 'completed' });

    // The result artifact: the answer text and a RunResult.
    const artifact = events.find((event) => 'artifactUpdate' in event);
    if (artifact === undefined || !('artifactUpdate' in artifact))
      throw new Error('expected the result artifact');
    expect(artifact.artifactUpdate.artifact.name).toBe('result');
    const answer = partsText(artifact.artifactUpdate.artifact.parts);
    const result = findData(artifact.artifactUpdate.artifact.parts, runResultSchema);
    expect(result).toMatchObject({
      sessionId,
      plan,
      failedNodes: ['mail'],
      composer: 'offline',
      citations: [
        { title: 'Paris', url: 'https://en.wikipedia.org/wiki/Paris', agent: 'web-agent' },
      ],
    });
    expect(result?.nodes.map((node) => [node.id, node.state, node.attempts])).toEqual([
      ['search', 'completed', 1],
      ['mail', 'failed', 1],
      ['write', 'completed', 1],
    ]);
    expect(answer).toContain(`Paris is the capital of France [1]. (session ${sessionId})`);
    // The writer got both dependencies, the failed one as partial.
    expect(answer).toContain(
      'mail (partial): Step mail (broken-agent) failed: the mailbox does not exist',
    );
    expect(answer).toContain('Sources\n[1] Paris — https://en.wikipedia.org/wiki/Paris');
    expect(answer).toContain(
      'Steps that failed: Read the mailbox (by the broken agent): the mailbox does not exist.',
    );
    const last = events.at(-1);
    expect(last !== undefined && 'statusUpdate' in last && last.statusUpdate.status.state).toBe(
      'TASK_STATE_COMPLETED',
    );

    // The session in Redis.
    const session = await sessions.get(sessionId);
    expect(session).toMatchObject({
      id: sessionId,
      tenant: 'acme',
      status: 'completed',
      request: 'Tell me about Paris',
      plan,
      planSource: 'request',
      result: { text: answer, composer: 'offline', failedNodes: ['mail'] },
    });
    expect(session?.nodes['search']).toMatchObject({
      agent: 'web-agent',
      state: 'completed',
      attempts: 1,
    });
    expect(session?.nodes['mail']).toMatchObject({
      state: 'failed',
      error: 'the mailbox does not exist',
    });
    expect(session?.nodes['write']?.data).toMatchObject({
      seen: { search: { agent: 'web-agent', data: { sources: [{ title: 'Paris' }] } } },
    });
    expect(session?.nodes['search']?.taskId).toEqual(expect.any(String));
  });

  it('fails the run naming the errors of an invalid explicit plan', async () => {
    const plan: Plan = {
      nodes: [{ id: 'a', agent: 'ghost-agent', task: 't', dependsOn: [] }],
      rationale: 'r',
      confidence: 1,
    };
    const events = await collect(orchestrate('x', { tenant: 'acme', plan }));
    const last = events.at(-1);
    if (last === undefined || !('statusUpdate' in last)) throw new Error('expected a final status');
    expect(last.statusUpdate.status.state).toBe('TASK_STATE_FAILED');
    expect(partsText(last.statusUpdate.status.message?.parts ?? [])).toMatch(
      /node "a" names agent "ghost-agent", which is not available/,
    );
    const sessionId = (last.statusUpdate.metadata as { sessionId: string }).sessionId;
    expect(await sessions.get(sessionId)).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/ghost-agent/),
    });
  });

  it('answers a run whose only step failed for a reason of its task, with the run state failed', async () => {
    const plan: Plan = {
      nodes: [{ id: 'mail', agent: 'broken-agent', task: 'Read the mailbox', dependsOn: [] }],
      rationale: 'one step',
      confidence: 1,
    };
    const events = await collect(orchestrate('Read my mail', { tenant: 'acme', plan }));
    const last = events.at(-1);
    if (last === undefined || !('statusUpdate' in last)) throw new Error('expected a final status');
    // The agent reported its own failure: an answer for the client, not a failure of the fleet.
    expect(last.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    expect(last.statusUpdate.metadata).toMatchObject({ runState: 'failed' });
    const progress = events.flatMap((event) => {
      if (!('statusUpdate' in event)) return [];
      const data = findData(event.statusUpdate.status.message?.parts ?? [], progressEnvelope);
      return data === undefined ? [] : [data.progress];
    });
    expect(progress.at(-1)).toEqual({ type: 'run-end', state: 'failed' });
    const answer = events.find((event) => 'artifactUpdate' in event);
    if (answer === undefined || !('artifactUpdate' in answer))
      throw new Error('expected an answer');
    expect(partsText(answer.artifactUpdate.artifact.parts)).toContain(
      'Steps that failed: Read the mailbox (by the broken agent): the mailbox does not exist.',
    );
    expect(findData(answer.artifactUpdate.artifact.parts, runResultSchema)).toMatchObject({
      state: 'failed',
      failedNodes: ['mail'],
      nodes: [
        { id: 'mail', state: 'failed', failure: 'task', error: 'the mailbox does not exist' },
      ],
    });
    const sessionId = (last.statusUpdate.metadata as { sessionId: string }).sessionId;
    expect(await sessions.get(sessionId)).toMatchObject({
      status: 'failed',
      error: 'No step was done — mail (broken-agent): the mailbox does not exist',
      result: { failedNodes: ['mail'], state: 'failed' },
      nodes: { mail: { state: 'failed', failure: 'task' } },
    });
    // A resume of the ended session answers the same way.
    const resumed = await collect(
      orchestrate('resume', { tenant: 'acme', resumeSessionId: sessionId }),
    );
    const resumedEnd = resumed.at(-1);
    expect(resumedEnd !== undefined && 'statusUpdate' in resumedEnd).toBe(true);
    if (resumedEnd !== undefined && 'statusUpdate' in resumedEnd) {
      expect(resumedEnd.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    }
  });

  it('fails the run when its only agent cannot be reached: the fleet failed, not the task', async () => {
    // Discovered while up (its card is cached), then gone. A fresh view first: no refresh (a TTL
    // passed on a slow machine) may run while it goes, and none is due before the run starts.
    await directory.refresh();
    expect((await directory.availableAgents()).map((agent) => agent.name)).toContain('gone-agent');
    const goneUrl = (await directory.findAgent('gone-agent'))?.url;
    const gone = agents.findIndex((agent) => agent.url === goneUrl);
    expect(gone).toBeGreaterThanOrEqual(0);
    await agents.splice(gone, 1)[0]?.shutdown();
    const plan: Plan = {
      nodes: [{ id: 'look', agent: 'gone-agent', task: 'Look it up', dependsOn: [] }],
      rationale: 'one step',
      confidence: 1,
    };
    const events = await collect(orchestrate('Look it up', { tenant: 'acme', plan }));
    const last = events.at(-1);
    if (last === undefined || !('statusUpdate' in last)) throw new Error('expected a final status');
    expect(last.statusUpdate.status.state).toBe('TASK_STATE_FAILED');
    expect(partsText(last.statusUpdate.status.message?.parts ?? [])).toMatch(
      /^The fleet could not run any step — look \(gone-agent\): /,
    );
    const sessionId = (last.statusUpdate.metadata as { sessionId: string }).sessionId;
    expect(await sessions.get(sessionId)).toMatchObject({
      status: 'failed',
      nodes: { look: { state: 'failed', failure: 'fleet' } },
      result: { state: 'failed' },
    });
  });

  it('fails the run with a clear message when the planner is unreachable', async () => {
    const events = await collect(orchestrate('What is new?', { tenant: 'acme' }));
    const last = events.at(-1);
    if (last === undefined || !('statusUpdate' in last)) throw new Error('expected a final status');
    expect(last.statusUpdate.status.state).toBe('TASK_STATE_FAILED');
    expect(partsText(last.statusUpdate.status.message?.parts ?? [])).toMatch(
      /^The planner at http:\/\/127\.0\.0\.1:9 is unreachable/,
    );
  });

  it('refuses a call without the internal token', async () => {
    const anonymous = new A2AClient({ card: client.card!, maxRetries: 0 });
    await expect(
      anonymous.sendMessage({
        message: createMessage({ parts: [textPart('x'), dataPart({ fleet: { tenant: 'acme' } })] }),
      }),
    ).rejects.toBeInstanceOf(UnauthenticatedError);
  });

  it('keeps running and records the session when the caller goes away', async () => {
    slow.gate = gate();
    slow.started = gate();
    const plan: Plan = {
      nodes: [
        { id: 'wait', agent: 'slow-agent', task: 'Take your time', dependsOn: [] },
        { id: 'write', agent: 'writer', task: 'Write it up', dependsOn: ['wait'] },
      ],
      rationale: 'r',
      confidence: 1,
    };
    const controller = new AbortController();
    let sessionId: string | undefined;
    let taskId: string | undefined;
    for await (const event of orchestrate(
      'slow one',
      { tenant: 'acme', plan },
      controller.signal,
    )) {
      if ('task' in event) taskId = event.task.id;
      if ('statusUpdate' in event) {
        sessionId = (event.statusUpdate.metadata as { sessionId?: string } | undefined)?.sessionId;
        if (sessionId !== undefined) break; // the caller leaves right after run-start
      }
    }
    if (sessionId === undefined) throw new Error('expected the session id');
    await slow.started.wait;
    slow.gate.open();
    const id = sessionId;
    const done = await waitFor(async () => {
      const session = await sessions.get(id);
      return session?.status === 'completed' ? session : undefined;
    }, 'the session to complete');
    expect(done.nodes['wait']).toMatchObject({ state: 'completed', summary: 'slow but done' });
    expect(done.result?.text).toContain('wait: slow but done');
    // The orchestrator's own A2A task ran to its end as well, for GetTask and SubscribeToTask.
    const task = await waitFor(async () => {
      const current = await client.getTask({ id: taskId as string });
      return current.status.state === 'TASK_STATE_WORKING' ? undefined : current;
    }, 'the orchestrator task to end');
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts?.[0]?.name).toBe('result');
  });

  it('stops the run and marks the session canceled on CancelTask', async () => {
    slow.gate = gate();
    slow.started = gate();
    slow.aborted = false;
    const plan: Plan = {
      nodes: [
        { id: 'wait', agent: 'slow-agent', task: 'Take your time', dependsOn: [] },
        { id: 'write', agent: 'writer', task: 'Write it up', dependsOn: ['wait'] },
      ],
      rationale: 'r',
      confidence: 1,
    };
    const events: StreamResponse[] = [];
    const stream = orchestrate('cancel me', { tenant: 'acme', plan });
    let taskId: string | undefined;
    let sessionId: string | undefined;
    const reading = (async () => {
      for await (const event of stream) {
        events.push(event);
        if ('task' in event) taskId = event.task.id;
        if ('statusUpdate' in event)
          sessionId ??= (event.statusUpdate.metadata as { sessionId?: string } | undefined)
            ?.sessionId;
      }
    })();
    await slow.started.wait;
    // Cancel once the node's agent task is recorded, so the orchestrator can cancel it too.
    await waitFor(async () => {
      if (sessionId === undefined) return undefined;
      return (await sessions.get(sessionId))?.nodes['wait']?.taskId;
    }, 'the node task id');
    await client.cancelTask({ id: taskId as string });
    await reading;
    const last = events.at(-1);
    expect(last !== undefined && 'statusUpdate' in last && last.statusUpdate.status.state).toBe(
      'TASK_STATE_CANCELED',
    );
    const session = await waitFor(async () => {
      const current = await sessions.get(sessionId as string);
      return current?.status === 'canceled' ? current : undefined;
    }, 'the session to be canceled');
    expect(session.nodes['write']?.state).toBe('skipped');
    expect(session.nodes['wait']?.state).toBe('failed');
    // The agent's own task was canceled too (best-effort CancelTask from the invoker).
    await waitFor(
      () => Promise.resolve(slow.aborted ? true : undefined),
      'the slow agent to be canceled',
    );
  });
});
