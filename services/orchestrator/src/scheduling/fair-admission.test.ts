import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import {
  createMessage,
  dataPart,
  findData,
  nodeInputSchema,
  textPart,
  type Plan,
  type ProgressEvent,
} from '@fleet/a2a';
import { FleetError } from '@fleet/errors';
import type { RunningServer } from '@fleet/http';
import { startScriptedAgent, type ScriptedAgent } from '@fleet/testing';
import { startTestAgent } from '../test-support/start-test-agent';
import {
  TEST_TOKEN,
  orchestrate,
  outcomeOf,
  readStream,
  startTestOrchestrator,
  type Streaming,
  type TestOrchestrator,
} from '../test-support/start-test-orchestrator';
import { RunScheduler } from './run-scheduler';

const prefix = `test:orchestrator-fairness:${randomUUID()}:`;

const plan: Plan = {
  nodes: [{ id: 'work', agent: 'worker', task: 'Do the work.', dependsOn: [] }],
  rationale: 'one step',
  confidence: 1,
};

/** A step whose agent asks a person for approval before it acts. */
const askingPlan: Plan = {
  nodes: [{ id: 'send', agent: 'asker', task: 'Send the report.', dependsOn: [] }],
  rationale: 'one step that needs approval',
  confidence: 1,
};

type RunStart = Extract<ProgressEvent, { type: 'run-start' }>;
const isRunStart = (event: ProgressEvent): event is RunStart => event.type === 'run-start';
type ApprovalRequired = Extract<ProgressEvent, { type: 'approval-required' }>;
const isApprovalRequired = (event: ProgressEvent): event is ApprovalRequired =>
  event.type === 'approval-required';
type QueueStart = Extract<ProgressEvent, { type: 'queue-start' }>;
const isQueueStart = (event: ProgressEvent): event is QueueStart => event.type === 'queue-start';

describe('fair admission in the orchestrator (real Redis, a real A2A agent)', () => {
  let redis: Redis;
  let worker: RunningServer;
  let orchestrator: TestOrchestrator;
  let asker: ScriptedAgent;
  /** Each task's tenant, in the order the agent got them. */
  const started: string[] = [];
  /** Steps wait for it; a test replaces it to hold the only slot. */
  let hold = newGate();
  const openGate = (): void => hold.open();
  const scheduler = new RunScheduler({ maxActiveRuns: 1, maxQueuedPerTenant: 3 });

  beforeAll(async () => {
    redis = new Redis('redis://127.0.0.1:6379');
    worker = await startTestAgent({
      name: 'worker',
      token: TEST_TOKEN,
      execute: async function* (context) {
        const input = findData(context.message.parts, nodeInputSchema);
        started.push(input?.fleet.tenant ?? '?');
        await hold.wait;
        yield {
          type: 'artifact',
          artifact: { name: 'result', parts: [textPart(`done for ${input?.fleet.tenant ?? '?'}`)] },
        };
        yield { type: 'status', state: 'TASK_STATE_COMPLETED' };
      },
    });
    asker = await startScriptedAgent({
      name: 'asker',
      internalToken: TEST_TOKEN,
      reply: { approval: { action: 'send-mail', summary: 'Send the report', risk: 'high' } },
    });
    orchestrator = await startTestOrchestrator({
      redis,
      prefix,
      agentUrls: [worker.url, asker.url],
      scheduler,
    });
  });

  afterAll(async () => {
    openGate();
    await orchestrator.close();
    await worker.shutdown();
    await asker?.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  const run = (
    tenant: string,
    planApproval: 'required' | 'none' = 'none',
    runPlan: Plan = plan,
  ): Streaming =>
    orchestrate(orchestrator.client, {
      text: `a question from ${tenant}`,
      fleet: { tenant, plan: runPlan, planApproval },
    });

  it('admits the quiet tenant’s run before the flooding tenant’s queue, and refuses past the bound', async () => {
    const flood = [run('flood')];
    // The first run holds the only slot (its step waits at the gate); the next ones queue.
    await flood[0]?.waitFor((event) => event.type === 'node-start');
    for (let index = 1; index <= 3; index += 1) {
      const queued = run('flood');
      flood.push(queued);
      expect((await queued.waitFor(isQueueStart)).position).toBe(index);
    }

    // A fourth waiting run of the same tenant is refused before any task exists: a typed 429.
    let refused: unknown;
    try {
      for await (const event of orchestrator.client.sendStreamingMessage({
        message: createMessage({
          parts: [textPart('one too many'), dataPart({ fleet: { tenant: 'flood', plan } })],
        }),
      })) {
        void event;
      }
    } catch (error) {
      refused = error;
    }
    expect(FleetError.isInstance(refused) && refused.code).toBe('RATE_LIMITED');
    expect(FleetError.isInstance(refused) && refused.status).toBe(429);
    expect(FleetError.isInstance(refused) && refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);

    // The quiet tenant queues behind nobody of its own: first in its own queue.
    const quiet = run('quiet');
    expect((await quiet.waitFor(isQueueStart)).position).toBe(1);

    openGate();
    const outcomes = await Promise.all(
      [...flood, quiet].map(async (each) => outcomeOf(await each.done)),
    );
    for (const outcome of outcomes) expect(outcome.state).toBe('TASK_STATE_COMPLETED');
    // Round-robin: after the running flood run, the flood's first waiting run (it waited first),
    // then the quiet tenant's, ahead of the two flood runs that were queued before it.
    expect(started).toEqual(['flood', 'flood', 'quiet', 'flood', 'flood']);
    const quietEvents = (await quiet.done).flatMap((event) =>
      'statusUpdate' in event ? [event.statusUpdate.status.message?.parts ?? []] : [],
    );
    expect(
      quietEvents.some((parts) =>
        parts.some((part) => /queued \(position 1/.test(part.text ?? '')),
      ),
    ).toBe(true);
  });

  it('frees the slot while a run waits for its plan to be approved, and takes one again after', async () => {
    openGate();
    const waiting = run('careful', 'required');
    const { sessionId } = await waiting.waitFor(isRunStart);
    const asked = await waiting.waitFor(isApprovalRequired);
    // The only slot is free: another tenant's run starts and completes meanwhile.
    const other = run('other');
    expect(outcomeOf(await other.done).state).toBe('TASK_STATE_COMPLETED');
    expect(readProgress(other)).not.toContain('queue-start');

    await orchestrator.sessions.decideApproval({
      sessionId,
      approvalId: asked.approvalId,
      tenant: 'careful',
      decision: 'approve',
    });
    expect(outcomeOf(await waiting.done).state).toBe('TASK_STATE_COMPLETED');
  });

  it('does not count a run whose step waits for a person: the only slot serves others meanwhile', async () => {
    openGate();
    const waiting = run('mailer', 'none', askingPlan);
    const { sessionId } = await waiting.waitFor(isRunStart);
    const asked = await waiting.waitFor(isApprovalRequired);
    expect(scheduler.snapshot()).toEqual({ active: 0, queued: {} });
    // The same tenant's next run and another tenant's start at once and complete.
    for (const tenant of ['mailer', 'other']) {
      const next = run(tenant);
      expect(outcomeOf(await next.done).state).toBe('TASK_STATE_COMPLETED');
      expect(readProgress(next)).not.toContain('queue-start');
    }

    await orchestrator.sessions.decideApproval({
      sessionId,
      approvalId: asked.approvalId,
      tenant: 'mailer',
      decision: 'approve',
    });
    expect(outcomeOf(await waiting.done).state).toBe('TASK_STATE_COMPLETED');
    expect(scheduler.snapshot()).toEqual({ active: 0, queued: {} });
  });

  it('takes a run canceled while it waits out of the queue, and ends it canceled', async () => {
    hold = newGate();
    const holder = run('holder');
    await holder.waitFor((event) => event.type === 'node-start');
    const queued = run('impatient');
    const { sessionId } = await queued.waitFor(isQueueStart);
    const first = queued.events[0];
    const taskId = first !== undefined && 'task' in first ? first.task.id : undefined;
    expect(taskId).toBeDefined();
    await orchestrator.client.cancelTask({ id: taskId ?? '' });
    expect(outcomeOf(await queued.done).state).toBe('TASK_STATE_CANCELED');
    expect(readProgress(queued)).not.toContain('run-start');
    expect(scheduler.snapshot()).toEqual({ active: 1, queued: {} });
    expect((await orchestrator.sessions.get(sessionId))?.status).toBe('canceled');

    hold.open();
    expect(outcomeOf(await holder.done).state).toBe('TASK_STATE_COMPLETED');
    expect(scheduler.snapshot()).toEqual({ active: 0, queued: {} });
  });
});

/** A gate the test opens by hand. */
function newGate(): { wait: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

/** The progress event types a stream carried so far. */
function readProgress(streaming: Streaming): string[] {
  return readStream(streaming.events).progress.map((event) => event.type);
}
