import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import {
  createMessage,
  dataPart,
  partsText,
  textPart,
  type Plan,
  type StreamResponse,
  type Task,
} from '@fleet/a2a';
import { RedisTaskStore } from '@fleet/a2a/server';
import { silentLogger } from '@fleet/http';
import { startScriptedAgent, type ScriptedAgent } from '@fleet/testing';
import {
  TEST_TOKEN,
  eventually,
  readStream,
  startTestOrchestrator,
  type TestOrchestrator,
} from '../test-support/start-test-orchestrator';
import { resumeSessions } from './resume-sessions';

const prefix = `test:orchestrator-take-over:${randomUUID()}:`;

const plan: Plan = {
  nodes: [{ id: 'send', agent: 'mail', task: 'Send the report to Bob', dependsOn: [] }],
  rationale: 'one step',
  confidence: 1,
};

/**
 * An orchestrator that died mid-run, as Redis still shows it: its session running with a plan and
 * no runner lease, and its own A2A task WORKING, unchanged for a minute, with no turn lease.
 */
async function strandedRun(
  orchestrator: TestOrchestrator,
  taskStore: RedisTaskStore,
): Promise<{ sessionId: string; taskId: string }> {
  const session = await orchestrator.sessions.create({ tenant: 'acme', request: 'Send it' });
  const taskId = randomUUID();
  const contextId = randomUUID();
  await orchestrator.sessions.update(session.id, (draft) => {
    draft.taskId = taskId;
    draft.plan = plan;
    draft.planSource = 'request';
  });
  const stranded: Task = {
    id: taskId,
    contextId,
    status: {
      state: 'TASK_STATE_WORKING',
      timestamp: new Date(Date.now() - 60_000).toISOString(),
    },
    history: [{ ...createMessage({ parts: [textPart('Send it')], contextId }), taskId }],
  };
  await taskStore.save({ task: stranded, version: 4 });
  return { sessionId: session.id, taskId };
}

/** Follows an orchestrator task until the run asks for an approval (its task stays WORKING). */
async function followToApproval(
  orchestrator: TestOrchestrator,
  id: string,
): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of orchestrator.client.subscribeToTask({ id })) {
    events.push(event);
    if (readStream([event]).progress.some((each) => each.type === 'approval-required')) break;
  }
  return events;
}

describe('a dead orchestrator’s run is taken over on its own task (real Redis, real A2A agents)', () => {
  let redis: Redis;
  let mail: ScriptedAgent;
  let orchestrator: TestOrchestrator;
  let taskStore: RedisTaskStore;

  beforeAll(async () => {
    redis = new Redis('redis://127.0.0.1:6379');
    mail = await startScriptedAgent({
      name: 'mail',
      internalToken: TEST_TOKEN,
      respond: (request) =>
        request.isContinuation
          ? { text: 'Mail sent.' }
          : { approval: { action: 'send-mail', summary: 'Send the report to Bob' } },
    });
    orchestrator = await startTestOrchestrator({ redis, prefix, agentUrls: [mail.url] });
    taskStore = new RedisTaskStore({ redis, keyPrefix: `${prefix}a2a` });
  });

  afterAll(async () => {
    await orchestrator.close();
    await mail.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('never fails the stranded task, and the recovery sweep carries that very task on', async () => {
    const { sessionId, taskId } = await strandedRun(orchestrator, taskStore);
    // Read as the gateway would while nobody has taken it over: still WORKING, not FAILED.
    expect((await orchestrator.client.getTask({ id: taskId })).status.state).toBe(
      'TASK_STATE_WORKING',
    );
    const following = followToApproval(orchestrator, taskId);
    const started = await resumeSessions({
      handler: orchestrator.handler,
      sessions: orchestrator.sessions,
      sessionIds: [sessionId],
      logger: silentLogger,
    });
    expect(started).toEqual({ [sessionId]: taskId });
    // The follower of the old task sees the run go on, up to the approval the step asks for.
    const { progress } = readStream(await following);
    expect(progress.map((event) => event.type)).toEqual(
      expect.arrayContaining(['run-start', 'plan-end', 'node-start', 'approval-required']),
    );
    const session = await eventually(async () => {
      const read = await orchestrator.sessions.get(sessionId);
      return read?.status === 'waiting_approval' ? read : undefined;
    }, 'the session waiting for approval');
    expect(session.taskId).toBe(taskId);
  });

  it('ends the stranded task, pointing at the new one, when a client resumes the session as a new task', async () => {
    const { sessionId, taskId } = await strandedRun(orchestrator, taskStore);
    const reply = await orchestrator.client.sendMessage({
      message: createMessage({
        parts: [
          textPart('resume'),
          dataPart({ fleet: { tenant: 'acme', resumeSessionId: sessionId } }),
        ],
      }),
      configuration: { returnImmediately: true },
    });
    const runner = 'id' in reply ? reply.id : '';
    expect(runner).not.toBe(taskId);
    const ended = await eventually(async () => {
      const task = await orchestrator.client.getTask({ id: taskId });
      return task.status.state === 'TASK_STATE_FAILED' ? task : undefined;
    }, 'the stranded task to end');
    expect(partsText(ended.status.message?.parts ?? [])).toContain(`goes on under task ${runner}`);
    expect(ended.status.message?.parts).toContainEqual(
      expect.objectContaining({ data: { handedOver: { sessionId, taskId: runner } } }),
    );
  });
});
