import { describe, expect, it } from '@jest/globals';
import { createTestAgent } from '../__fixtures__/test-agent';
import { createMessage, partsText, textPart } from '../schemas/helpers';
import type { StreamResponse, Task } from '../schemas/core';
import type { AgentExecute } from './agent';
import { buildAgentCard } from './build-agent-card';
import { createA2AHandler, type A2AHandler } from './create-a2a-handler';
import { InMemoryTaskStore } from './in-memory-task-store';

const card = buildAgentCard({
  name: 'core-agent',
  description: 'd',
  version: '1',
  url: 'http://agent.test',
  skills: [],
});

function setup(execute: AgentExecute = createTestAgent().execute) {
  const store = new InMemoryTaskStore();
  return { handler: createA2AHandler({ card, execute, store }), store };
}

async function call(handler: A2AHandler, method: string, params: unknown) {
  const result = await handler.handle(
    { jsonrpc: '2.0', id: 1, method, params },
    { version: '1.0' },
  );
  if (result.type !== 'json') throw new Error(`${method} answered a stream`);
  return result.body as { result?: unknown; error?: { code: number; message: string } };
}

async function stream(handler: A2AHandler, method: string, params: unknown) {
  const result = await handler.handle(
    { jsonrpc: '2.0', id: 'stream', method, params },
    { version: '1.0' },
  );
  if (result.type !== 'stream') return { error: result.body, events: [] as StreamResponse[] };
  const events: StreamResponse[] = [];
  try {
    for await (const envelope of result.events) events.push(envelope.result as StreamResponse);
  } catch (error) {
    return { error: result.renderError(error).body, events };
  }
  return { error: undefined, events };
}

async function send(
  handler: A2AHandler,
  text: string,
  extra: { taskId?: string; contextId?: string } = {},
) {
  const body = await call(handler, 'SendMessage', {
    message: createMessage({ parts: text, ...extra }),
  });
  if (body.error) throw new Error(body.error.message);
  return (body.result as { task: Task }).task;
}

describe('createA2AHandler', () => {
  it('gives the agent a large file part whole but keeps only its name in the task history', async () => {
    const seen: number[] = [];
    const store = new InMemoryTaskStore();
    const handler = createA2AHandler({
      card,
      store,
      maxStoredPartBytes: 1000,
      async *execute(context) {
        seen.push(...context.message.parts.map((part) => part.raw?.length ?? 0));
        await Promise.resolve();
        yield { type: 'status', state: 'TASK_STATE_COMPLETED' };
      },
    });
    const raw = Buffer.alloc(3000, 7).toString('base64');
    const body = await call(handler, 'SendMessage', {
      message: createMessage({
        parts: [
          { raw, filename: 'big.bin', mediaType: 'application/octet-stream' },
          textPart('keep me'),
        ],
      }),
    });
    const task = (body.result as { task: Task }).task;
    expect(seen).toEqual([raw.length, 0]);
    const stored = (await store.load(task.id))?.task.history?.[0]?.parts;
    expect(stored?.[0]).toMatchObject({
      filename: 'big.bin',
      text: '[big.bin: 3000 bytes, not kept in the task history]',
      metadata: { omittedBytes: 3000 },
    });
    expect(stored?.[0]?.raw).toBeUndefined();
    expect(stored?.[1]).toMatchObject({ text: 'keep me' });
  });

  it('answers a message whose taskId is unknown with -32001', async () => {
    const { handler } = setup();
    const body = await call(handler, 'SendMessage', {
      message: createMessage({ parts: 'echo', taskId: 'nope' }),
    });
    expect(body.error?.code).toBe(-32001);
  });

  it('answers a message to a terminal task with -32004', async () => {
    const { handler } = setup();
    const task = await send(handler, 'echo done');
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const body = await call(handler, 'SendMessage', {
      message: createMessage({ parts: 'more', taskId: task.id }),
    });
    expect(body.error?.code).toBe(-32004);
  });

  it('answers a continuation with another contextId with -32602', async () => {
    const { handler } = setup();
    const task = await send(handler, 'ask');
    const body = await call(handler, 'SendMessage', {
      message: createMessage({ parts: 'Ada', taskId: task.id, contextId: 'other' }),
    });
    expect(body.error?.code).toBe(-32602);
  });

  it('answers a message without messageId with -32602', async () => {
    const { handler } = setup();
    const body = await call(handler, 'SendMessage', {
      message: { role: 'ROLE_USER', parts: [{ text: 'hi' }] },
    });
    expect(body.error?.code).toBe(-32602);
  });

  it('answers a message to a running task with -32004', async () => {
    const agent = createTestAgent();
    const { handler } = setup(agent.execute);
    const body = await call(handler, 'SendMessage', {
      message: createMessage({ parts: 'slow' }),
      configuration: { returnImmediately: true },
    });
    const task = (body.result as { task: Task }).task;
    await agent.probe.waitForStart(task.id);
    const again = await call(handler, 'SendMessage', {
      message: createMessage({ parts: 'more', taskId: task.id }),
    });
    expect(again.error?.code).toBe(-32004);
    await handler.close();
  });

  it('treats empty ids as absent and keeps the context of a new task', async () => {
    const { handler } = setup();
    const task = await send(handler, 'echo a', { taskId: '', contextId: 'ctx-1' });
    expect(task.contextId).toBe('ctx-1');
    expect(task.history?.[0]).toMatchObject({ taskId: task.id, contextId: 'ctx-1' });
  });

  it('starts every streamed turn with the task, continuations included', async () => {
    const { handler } = setup();
    const first = await stream(handler, 'SendStreamingMessage', {
      message: createMessage({ parts: 'ask' }),
    });
    const head = first.events[0];
    if (!head || !('task' in head)) throw new Error('expected a task first');
    expect(first.events.at(-1)).toMatchObject({
      statusUpdate: { status: { state: 'TASK_STATE_INPUT_REQUIRED' } },
    });
    const second = await stream(handler, 'SendStreamingMessage', {
      message: createMessage({ parts: 'Ada', taskId: head.task.id }),
    });
    expect(second.events[0]).toMatchObject({
      task: { id: head.task.id, status: { state: 'TASK_STATE_WORKING' } },
    });
    expect(second.events.at(-1)).toMatchObject({
      statusUpdate: { status: { state: 'TASK_STATE_COMPLETED' } },
    });
  });

  it('gets tasks with historyLength', async () => {
    const { handler } = setup();
    const task = await send(handler, 'ask');
    await send(handler, 'Ada', { taskId: task.id });
    const all = (await call(handler, 'GetTask', { id: task.id })).result as Task;
    expect(all.history?.map((message) => partsText(message.parts))).toEqual([
      'ask',
      'working on ask',
      'What is your name?',
      'Ada',
      'working on Ada',
    ]);
    const last = (await call(handler, 'GetTask', { id: task.id, historyLength: 2 })).result as Task;
    expect(last.history?.map((message) => partsText(message.parts))).toEqual([
      'Ada',
      'working on Ada',
    ]);
    expect((await call(handler, 'GetTask', { id: 'unknown' })).error?.code).toBe(-32001);
  });

  it('lists tasks by context and status, a page at a time', async () => {
    const { handler } = setup();
    for (const text of ['echo 1', 'echo 2', 'echo 3', 'ask']) {
      await send(handler, text, { contextId: 'listed' });
    }
    await send(handler, 'echo elsewhere', { contextId: 'other' });
    type Page = { tasks: Task[]; nextPageToken: string; pageSize: number; totalSize: number };
    const first = (await call(handler, 'ListTasks', { contextId: 'listed', pageSize: 3 }))
      .result as Page;
    expect(first.tasks).toHaveLength(3);
    expect(first.totalSize).toBe(4);
    expect(first.tasks[0]?.artifacts).toBeUndefined();
    const second = (
      await call(handler, 'ListTasks', {
        contextId: 'listed',
        pageSize: 3,
        pageToken: first.nextPageToken,
      })
    ).result as Page;
    expect(second.tasks).toHaveLength(1);
    expect(second.nextPageToken).toBe('');
    const ids = new Set([...first.tasks, ...second.tasks].map((task) => task.id));
    expect(ids.size).toBe(4);
    const waiting = (
      await call(handler, 'ListTasks', {
        status: 'TASK_STATE_INPUT_REQUIRED',
        includeArtifacts: true,
      })
    ).result as Page;
    expect(waiting.tasks.map((task) => task.status.state)).toEqual(['TASK_STATE_INPUT_REQUIRED']);
    expect((await call(handler, 'ListTasks', { pageToken: '!!' })).error?.code).toBe(-32602);
  });

  it('cancels a running task, refuses to cancel a completed one, and cancels an interrupted one', async () => {
    const agent = createTestAgent();
    const { handler } = setup(agent.execute);
    const body = await call(handler, 'SendMessage', {
      message: createMessage({ parts: 'slow' }),
      configuration: { returnImmediately: true },
    });
    const slow = (body.result as { task: Task }).task;
    await agent.probe.waitForStart(slow.id);
    const canceled = (await call(handler, 'CancelTask', { id: slow.id })).result as Task;
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    expect(agent.probe.aborted).toContain(slow.id);
    expect(((await call(handler, 'CancelTask', { id: slow.id })).result as Task).status.state).toBe(
      'TASK_STATE_CANCELED',
    );
    const done = await send(handler, 'echo x');
    expect((await call(handler, 'CancelTask', { id: done.id })).error?.code).toBe(-32002);
    const asked = await send(handler, 'ask');
    const stopped = (await call(handler, 'CancelTask', { id: asked.id })).result as Task;
    expect(stopped.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('subscribes: terminal -32004, unknown -32001, interrupted gives the snapshot only', async () => {
    const { handler } = setup();
    const done = await send(handler, 'echo x');
    expect((await stream(handler, 'SubscribeToTask', { id: done.id })).error).toMatchObject({
      id: 'stream',
      error: { code: -32004 },
    });
    expect((await stream(handler, 'SubscribeToTask', { id: 'nope' })).error).toMatchObject({
      error: { code: -32001 },
    });
    const asked = await send(handler, 'ask');
    const snapshot = await stream(handler, 'SubscribeToTask', { id: asked.id });
    expect(snapshot.events).toEqual([{ task: expect.objectContaining({ id: asked.id }) }]);
  });

  it('refuses calls without A2A-Version 1.0 with -32009', async () => {
    const { handler } = setup();
    for (const version of [undefined, '0.3', '1.0.0']) {
      const result = await handler.handle(
        { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } },
        { version },
      );
      expect(result.type === 'json' && result.body).toMatchObject({ error: { code: -32009 } });
    }
  });

  it('fails the task when the agent yields an invalid part', async () => {
    const { handler } = setup(async function* invalid() {
      await Promise.resolve();
      yield { type: 'artifact', artifact: { parts: [{ text: 'a', url: 'b' }] } };
    });
    const task = await send(handler, 'anything');
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(partsText(task.status.message?.parts ?? [])).toMatch(/invalid artifact/);
  });

  it('completes a task whose agent returns without a terminal state', async () => {
    const { handler } = setup(async function* quiet() {
      await Promise.resolve();
      yield { type: 'artifact', artifact: { name: 'result', parts: [textPart('done')] } };
    });
    const task = await send(handler, 'anything');
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts?.[0]?.artifactId).toMatch(/[0-9a-f-]{36}/);
  });

  it('fails running tasks on close, aborting their signal', async () => {
    const agent = createTestAgent();
    const { handler, store } = setup(agent.execute);
    const body = await call(handler, 'SendMessage', {
      message: createMessage({ parts: 'slow' }),
      configuration: { returnImmediately: true },
    });
    const task = (body.result as { task: Task }).task;
    await agent.probe.waitForStart(task.id);
    await handler.close();
    expect(agent.probe.aborted).toContain(task.id);
    const stored = await store.load(task.id);
    expect(stored?.task.status.state).toBe('TASK_STATE_FAILED');
    expect(partsText(stored?.task.status.message?.parts ?? [])).toMatch(/shut down/);
  });

  it('cancels the turn of a blocking call whose client goes away', async () => {
    const agent = createTestAgent();
    const { handler, store } = setup(agent.execute);
    const disconnect = new AbortController();
    const pending = handler.handle(
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: createMessage({ parts: 'slow' }) },
      },
      { version: '1.0', signal: disconnect.signal },
    );
    const taskId = await agent.probe.waitForStart();
    disconnect.abort();
    const result = await pending;
    expect(result.type === 'json' && result.body).toMatchObject({
      result: { task: { id: taskId, status: { state: 'TASK_STATE_CANCELED' } } },
    });
    expect((await store.load(taskId))?.task.status.state).toBe('TASK_STATE_CANCELED');
  });
});
