import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { createMessage, partsText, textPart } from '../schemas/helpers';
import type { StreamResponse, Task } from '../schemas/core';
import type { AgentExecute } from './agent';
import { buildAgentCard } from './build-agent-card';
import { createA2AHandler, type A2AHandler } from './create-a2a-handler';
import { endLostTurn } from './end-lost-turn';
import { LOST_TURN_MESSAGE } from './internal/handler/turn-lease';
import { RedisTaskStore } from './redis-task-store';

const LEASE_MS = 400;

const card = buildAgentCard({
  name: 'lease-agent',
  description: 'd',
  version: '1',
  url: 'http://agent.test',
  skills: [],
});

/** Works for `ms`, then completes. */
function slowAgent(ms: number): AgentExecute {
  return async function* (context) {
    yield { type: 'status', state: 'TASK_STATE_WORKING', message: 'working' };
    await new Promise((resolve) => setTimeout(resolve, ms));
    if (context.signal.aborted) return;
    yield { type: 'status', state: 'TASK_STATE_COMPLETED', message: 'done' };
  };
}

async function call(handler: A2AHandler, method: string, params: unknown): Promise<unknown> {
  const result = await handler.handle(
    { jsonrpc: '2.0', id: 1, method, params },
    { version: '1.0' },
  );
  if (result.type !== 'json') throw new Error(`${method} answered a stream`);
  const body = result.body as { result?: unknown; error?: { message: string } };
  if (body.error !== undefined) throw new Error(body.error.message);
  return body.result;
}

async function follow(handler: A2AHandler, id: string): Promise<StreamResponse[]> {
  const result = await handler.handle(
    { jsonrpc: '2.0', id: 's', method: 'SubscribeToTask', params: { id } },
    { version: '1.0' },
  );
  if (result.type !== 'stream') throw new Error(JSON.stringify(result.body));
  const events: StreamResponse[] = [];
  for await (const envelope of result.events) events.push(envelope.result as StreamResponse);
  return events;
}

/** A task some replica started and then died in the middle of: WORKING, no lease. */
function strandedTask(changedAt: Date): Task {
  const contextId = randomUUID();
  const id = randomUUID();
  return {
    id,
    contextId,
    status: { state: 'TASK_STATE_WORKING', timestamp: changedAt.toISOString() },
    history: [{ ...createMessage({ parts: [textPart('go')], contextId }), taskId: id }],
    artifacts: [],
  };
}

describe('turn leases: a task whose replica died ends FAILED, a live one is left alone', () => {
  const keyPrefix = `test:a2a:lease:${randomUUID()}`;
  let redis: Redis;
  let store: RedisTaskStore;
  let replicaA: A2AHandler;
  let replicaB: A2AHandler;

  beforeAll(() => {
    redis = new Redis({ host: '127.0.0.1', port: 6379 });
    store = new RedisTaskStore({ redis, keyPrefix });
    const options = { card, store, turnLeaseMs: LEASE_MS };
    replicaA = createA2AHandler({ ...options, execute: slowAgent(LEASE_MS * 3) });
    replicaB = createA2AHandler({ ...options, execute: slowAgent(LEASE_MS * 3) });
  });

  afterAll(async () => {
    await replicaA.close();
    await replicaB.close();
    await store.close();
    const keys = await redis.keys(`${keyPrefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('GetTask on another replica fails a task left WORKING with no lease, saying why', async () => {
    const task = strandedTask(new Date(Date.now() - LEASE_MS * 2));
    await store.save({ task, version: 3 });
    const read = (await call(replicaB, 'GetTask', { id: task.id })) as Task;
    expect(read.status.state).toBe('TASK_STATE_FAILED');
    expect(partsText(read.status.message?.parts ?? [])).toBe(LOST_TURN_MESSAGE);
    expect((await store.load(task.id))?.version).toBe(4);
  });

  it('SubscribeToTask gets the failed task rather than waiting for ever', async () => {
    const task = strandedTask(new Date(Date.now() - LEASE_MS * 2));
    await store.save({ task, version: 1 });
    const events = await follow(replicaB, task.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ task: { status: { state: 'TASK_STATE_FAILED' } } });
  });

  it('leaves a task that has just changed alone (its turn may not hold the lease yet)', async () => {
    const task = strandedTask(new Date());
    await store.save({ task, version: 1 });
    const read = (await call(replicaB, 'GetTask', { id: task.id })) as Task;
    expect(read.status.state).toBe('TASK_STATE_WORKING');
  });

  it('ends a followed task once the lease of the replica running it lapses', async () => {
    const task = strandedTask(new Date(Date.now() - LEASE_MS * 2));
    await store.save({ task, version: 1 });
    // Its replica still renews the lease when the follower arrives…
    await store.holdTurn(task.id, LEASE_MS);
    const started = Date.now();
    const following = follow(replicaB, task.id);
    // …and then dies: no more renewals.
    const events = await following;
    expect(events[0]).toMatchObject({ task: { status: { state: 'TASK_STATE_WORKING' } } });
    expect(events.at(-1)).toMatchObject({
      statusUpdate: { status: { state: 'TASK_STATE_FAILED' } },
    });
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(LEASE_MS * 0.9);
    expect(waited).toBeLessThan(LEASE_MS * 4);
  });

  it('never fails a live turn running on another replica, however long it works', async () => {
    const message = createMessage({ parts: [textPart('work')] });
    const sent = (await call(replicaA, 'SendMessage', {
      message,
      configuration: { returnImmediately: true },
    })) as { task: Task };
    const id = sent.task.id;
    // Reads from the other replica while the turn runs, past a whole lease.
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS * 1.5));
    expect(((await call(replicaB, 'GetTask', { id })) as Task).status.state).toBe(
      'TASK_STATE_WORKING',
    );
    const events = await follow(replicaB, id);
    expect(events.at(-1)).toMatchObject({
      statusUpdate: { status: { state: 'TASK_STATE_COMPLETED' } },
    });
    // The lease went with the turn.
    expect(await store.turnHeld(id)).toBe(false);
  });
});

describe('turn leases with lostTurns "take-over": a lost turn is carried on, never failed', () => {
  const keyPrefix = `test:a2a:takeover:${randomUUID()}`;
  let redis: Redis;
  let store: RedisTaskStore;
  let replicaA: A2AHandler;
  let replicaB: A2AHandler;
  /** Every turn the durable agent ran: the task and the text of the message that started it. */
  const turns: { taskId: string; text: string; continuation: boolean }[] = [];

  /** Records the turn, works for a moment, then completes saying which message it ran. */
  /** Holds a turn whose text is `held` until the test lets it go. */
  let letHeldGo: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    letHeldGo = resolve;
  });
  const durableAgent: AgentExecute = async function* (context) {
    const text = partsText(context.message.parts);
    turns.push({ taskId: context.taskId, text, continuation: context.isContinuation });
    yield { type: 'status', state: 'TASK_STATE_WORKING', message: `carrying on from ${text}` };
    await (text === 'held' ? held : new Promise((resolve) => setTimeout(resolve, LEASE_MS / 2)));
    yield { type: 'status', state: 'TASK_STATE_COMPLETED', message: `done: ${text}` };
  };

  beforeAll(() => {
    redis = new Redis({ host: '127.0.0.1', port: 6379 });
    store = new RedisTaskStore({ redis, keyPrefix });
    const options = {
      card,
      store,
      turnLeaseMs: LEASE_MS,
      lostTurns: 'take-over' as const,
      execute: durableAgent,
    };
    replicaA = createA2AHandler(options);
    replicaB = createA2AHandler(options);
  });

  afterAll(async () => {
    await replicaA.close();
    await replicaB.close();
    await store.close();
    const keys = await redis.keys(`${keyPrefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  const takeOver = (handler: A2AHandler, taskId: string, text = 'take over') =>
    handler.handle(
      {
        jsonrpc: '2.0',
        id: randomUUID(),
        method: 'SendMessage',
        params: {
          message: { ...createMessage({ parts: [textPart(text)] }), taskId },
          configuration: { returnImmediately: true },
        },
      },
      { version: '1.0' },
    );

  it('GetTask and SubscribeToTask leave a lost turn WORKING, and a follower gets the take-over to its end', async () => {
    const task = strandedTask(new Date(Date.now() - LEASE_MS * 2));
    await store.save({ task, version: 3 });
    const read = (await call(replicaB, 'GetTask', { id: task.id })) as Task;
    expect(read.status.state).toBe('TASK_STATE_WORKING');

    const following = follow(replicaB, task.id);
    // Past two lease checks of a failing follower: nothing ends the task.
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS * 1.5));
    expect((await store.load(task.id))?.task.status.state).toBe('TASK_STATE_WORKING');

    const reply = await takeOver(replicaA, task.id);
    expect(reply.type === 'json' && 'result' in reply.body).toBe(true);
    const events = await following;
    expect(events[0]).toMatchObject({ task: { status: { state: 'TASK_STATE_WORKING' } } });
    expect(
      events.map((event) => ('statusUpdate' in event ? event.statusUpdate.status.state : 'task')),
    ).toEqual(['task', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
    expect(turns.filter((turn) => turn.taskId === task.id)).toEqual([
      { taskId: task.id, text: 'take over', continuation: true },
    ]);
  });

  it('refuses a message to a task whose turn still runs (here or elsewhere), and to one that just changed', async () => {
    const sent = (await call(replicaA, 'SendMessage', {
      message: createMessage({ parts: [textPart('held')] }),
      configuration: { returnImmediately: true },
    })) as { task: Task };
    const id = sent.task.id;
    // Past a whole lease: the turn still runs (and renews its lease), so nothing takes it over.
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS * 1.5));
    for (const handler of [replicaA, replicaB]) {
      const reply = await takeOver(handler, id);
      expect(
        reply.type === 'json' && 'error' in reply.body ? reply.body.error : undefined,
      ).toMatchObject({
        code: -32004,
        message: expect.stringContaining('its turn is still running') as unknown,
      });
    }
    const fresh = strandedTask(new Date());
    await store.save({ task: fresh, version: 1 });
    const reply = await takeOver(replicaB, fresh.id);
    expect(reply.type === 'json' && 'error' in reply.body ? reply.body.error.code : undefined).toBe(
      -32004,
    );
    letHeldGo();
    for (let waited = 0; waited < LEASE_MS * 5; waited += 20) {
      if ((await store.load(id))?.task.status.state === 'TASK_STATE_COMPLETED') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect((await store.load(id))?.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(turns.filter((turn) => turn.taskId === id)).toHaveLength(1);
  });

  it('endLostTurn ends a lost task in the caller’s words, announced to its followers, and leaves a live one alone', async () => {
    const task = strandedTask(new Date(Date.now() - LEASE_MS * 2));
    await store.save({ task, version: 1 });
    const following = follow(replicaB, task.id);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const ended = await endLostTurn({
      store,
      taskId: task.id,
      leaseMs: LEASE_MS,
      message: 'Carried on under task X.',
      metadata: { handedOver: true },
    });
    expect(ended?.task.status.state).toBe('TASK_STATE_FAILED');
    const events = await following;
    expect(events.at(-1)).toMatchObject({
      statusUpdate: {
        status: { state: 'TASK_STATE_FAILED' },
        metadata: { handedOver: true },
      },
    });
    const live = strandedTask(new Date(Date.now() - LEASE_MS * 2));
    await store.save({ task: live, version: 1 });
    await store.holdTurn(live.id, LEASE_MS);
    expect(
      await endLostTurn({ store, taskId: live.id, leaseMs: LEASE_MS, message: 'no' }),
    ).toBeUndefined();
    expect((await store.load(live.id))?.task.status.state).toBe('TASK_STATE_WORKING');
  });

  it('lets exactly one of two replicas take a lost turn over', async () => {
    const task = strandedTask(new Date(Date.now() - LEASE_MS * 2));
    await store.save({ task, version: 1 });
    const replies = await Promise.all([
      takeOver(replicaA, task.id, 'from A'),
      takeOver(replicaB, task.id, 'from B'),
    ]);
    const accepted = replies.filter((reply) => reply.type === 'json' && 'result' in reply.body);
    expect(accepted).toHaveLength(1);
    for (let waited = 0; waited < LEASE_MS * 5; waited += 20) {
      if ((await store.load(task.id))?.task.status.state === 'TASK_STATE_COMPLETED') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect((await store.load(task.id))?.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(turns.filter((turn) => turn.taskId === task.id)).toHaveLength(1);
  });
});
