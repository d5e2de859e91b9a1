import { describe, expect, it } from '@jest/globals';
import { createTestAgent } from '../__fixtures__/test-agent';
import { createMessage, partsText, textPart } from '../schemas/helpers';
import type { AgentCard } from '../schemas/agent-card';
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

/** The v1.0 `ErrorInfo` the server puts in `error.data` for an A2A reason. */
function errorInfo(reason: string, metadata?: Record<string, string>) {
  return [
    {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason,
      domain: 'a2a-protocol.org',
      ...(metadata === undefined ? {} : { metadata }),
    },
  ];
}

/**
 * An agent whose first turn asks a question and whose continuation waits for `release()` before
 * completing (or, for the answer `again`, asks once more); it counts its continuations.
 */
function questionAgent() {
  const continuations: string[] = [];
  let release = (): void => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const execute: AgentExecute = async function* questioner(context) {
    await Promise.resolve();
    if (!context.isContinuation) {
      yield { type: 'status', state: 'TASK_STATE_INPUT_REQUIRED', message: 'Approve?' };
      return;
    }
    continuations.push(context.message.messageId);
    yield { type: 'status', state: 'TASK_STATE_WORKING', message: 'resuming' };
    if (partsText(context.message.parts) === 'again') {
      yield { type: 'status', state: 'TASK_STATE_INPUT_REQUIRED', message: 'Sure?' };
      return;
    }
    await released;
    yield { type: 'artifact', artifact: { name: 'result', parts: [textPart('approved')] } };
  };
  return { execute, continuations, release };
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

  it('answers the push notification config methods with -32003 when the card does not declare them', async () => {
    const { handler } = setup();
    for (const method of [
      'CreateTaskPushNotificationConfig',
      'GetTaskPushNotificationConfig',
      'ListTaskPushNotificationConfigs',
      'DeleteTaskPushNotificationConfig',
    ]) {
      const body = await call(handler, method, { taskId: 't1', id: 'c1', url: 'http://hook' });
      expect(body.error).toMatchObject({
        code: -32003,
        data: errorInfo('PUSH_NOTIFICATION_NOT_SUPPORTED'),
      });
    }
  });

  it('answers GetExtendedAgentCard with -32004 unless the card declares an extended card', async () => {
    const { handler } = setup();
    expect((await call(handler, 'GetExtendedAgentCard', {})).error).toMatchObject({
      code: -32004,
      data: errorInfo('UNSUPPORTED_OPERATION'),
    });
    const extended: AgentCard = {
      ...card,
      capabilities: { ...card.capabilities, extendedAgentCard: true },
    };
    const declaring = createA2AHandler({
      card: extended,
      execute: createTestAgent().execute,
      store: new InMemoryTaskStore(),
    });
    expect((await call(declaring, 'GetExtendedAgentCard', undefined)).error).toMatchObject({
      code: -32007,
      data: errorInfo('EXTENDED_AGENT_CARD_NOT_CONFIGURED'),
    });
    expect((await call(handler, 'NoSuchMethod', {})).error?.code).toBe(-32601);
  });

  it('refuses a ListTasks pageSize of 0 or over 100 with -32602 naming pageSize', async () => {
    const { handler } = setup();
    await send(handler, 'echo listed');
    for (const pageSize of [0, 101, -1]) {
      const body = await call(handler, 'ListTasks', { pageSize });
      expect(body.error).toMatchObject({
        code: -32602,
        message: expect.stringContaining('pageSize') as unknown,
        data: [
          expect.objectContaining({ metadata: expect.objectContaining({ param: 'pageSize' }) }),
        ],
      });
    }
    type Page = { tasks: Task[]; pageSize: number };
    expect(((await call(handler, 'ListTasks', {})).result as Page).pageSize).toBe(50);
    expect(((await call(handler, 'ListTasks', { pageSize: 100 })).result as Page).pageSize).toBe(
      100,
    );
    expect(((await call(handler, 'ListTasks', { pageSize: 1 })).result as Page).tasks).toHaveLength(
      1,
    );
  });

  it('refuses an unparseable statusTimestampAfter with -32602', async () => {
    const { handler } = setup();
    await send(handler, 'echo listed');
    const body = await call(handler, 'ListTasks', { statusTimestampAfter: 'yesterday-ish' });
    expect(body.error).toMatchObject({
      code: -32602,
      data: [
        expect.objectContaining({
          metadata: expect.objectContaining({ param: 'statusTimestampAfter' }),
        }),
      ],
    });
    const after = (
      await call(handler, 'ListTasks', { statusTimestampAfter: '2000-01-01T00:00:00Z' })
    ).result as { tasks: Task[] };
    expect(after.tasks).toHaveLength(1);
  });

  it('refuses a message with empty or missing parts with -32602 and creates no task', async () => {
    const agent = createTestAgent();
    const { handler, store } = setup(agent.execute);
    const messages = [
      { messageId: 'm-empty', role: 'ROLE_USER', parts: [] },
      { messageId: 'm-missing', role: 'ROLE_USER' },
    ];
    for (const message of messages) {
      const body = await call(handler, 'SendMessage', { message });
      expect(body.error).toMatchObject({
        code: -32602,
        data: [
          expect.objectContaining({
            metadata: expect.objectContaining({ param: 'message.parts' }),
          }),
        ],
      });
      const streamed = await stream(handler, 'SendStreamingMessage', { message });
      expect(streamed.events).toEqual([]);
      expect(streamed.error).toMatchObject({ error: { code: -32602 } });
    }
    const asked = await send(handler, 'ask');
    const continuation = await call(handler, 'SendMessage', {
      message: { messageId: 'm-empty-answer', role: 'ROLE_USER', parts: [], taskId: asked.id },
    });
    expect(continuation.error?.code).toBe(-32602);
    expect((await store.list({ pageSize: 10 })).totalSize).toBe(1);
    expect((await store.load(asked.id))?.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(agent.probe.started).toEqual([asked.id]);
  });

  it('answers a re-sent SendMessage continuation with the task without running the agent again', async () => {
    const agent = questionAgent();
    const { handler } = setup(agent.execute);
    const asked = await send(handler, 'deploy?');
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const answer = { ...createMessage({ parts: 'yes', taskId: asked.id }), messageId: 'answer-1' };
    const first = call(handler, 'SendMessage', { message: answer });
    agent.release();
    const done = ((await first).result as { task: Task }).task;
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    const again = await call(handler, 'SendMessage', {
      message: answer,
      configuration: { historyLength: 1 },
    });
    expect(again.error).toBeUndefined();
    const task = (again.result as { task: Task }).task;
    expect(task).toMatchObject({ id: asked.id, status: { state: 'TASK_STATE_COMPLETED' } });
    expect(task.history).toHaveLength(1);
    expect(task.artifacts?.[0]?.parts).toEqual([textPart('approved')]);
    expect(agent.continuations).toEqual(['answer-1']);
    const fresh = await call(handler, 'SendMessage', {
      message: createMessage({ parts: 'yes', taskId: asked.id }),
    });
    expect(fresh.error?.code).toBe(-32004);
    expect(agent.continuations).toEqual(['answer-1']);
  });

  it('answers a re-sent continuation to a task that is interrupted again with the task as it stands', async () => {
    const agent = questionAgent();
    const { handler } = setup(agent.execute);
    const asked = await send(handler, 'deploy?');
    const answer = { ...createMessage({ parts: 'again', taskId: asked.id }), messageId: 'again-1' };
    const first = (
      (await call(handler, 'SendMessage', { message: answer })).result as { task: Task }
    ).task;
    expect(first.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const again = await call(handler, 'SendMessage', { message: answer });
    expect(again.result).toEqual({ task: first });
    const streamed = await stream(handler, 'SendStreamingMessage', { message: answer });
    expect(streamed.error).toBeUndefined();
    expect(streamed.events).toEqual([{ task: first }]);
    expect(agent.continuations).toEqual(['again-1']);
  });

  it('streams a re-sent continuation as the task snapshot, then follows the running turn to its end', async () => {
    const agent = questionAgent();
    const { handler } = setup(agent.execute);
    const asked = await send(handler, 'deploy?');
    const answer = { ...createMessage({ parts: 'yes', taskId: asked.id }), messageId: 'answer-1' };
    const started = await call(handler, 'SendMessage', {
      message: answer,
      configuration: { returnImmediately: true },
    });
    expect(started.error).toBeUndefined();
    const result = await handler.handle(
      {
        jsonrpc: '2.0',
        id: 'dup',
        method: 'SendStreamingMessage',
        params: { message: answer, configuration: { historyLength: 0 } },
      },
      { version: '1.0' },
    );
    if (result.type !== 'stream') throw new Error(`expected a stream: ${JSON.stringify(result)}`);
    const head = await result.events.next();
    expect(head.value?.result).toMatchObject({
      task: { id: asked.id, status: { state: 'TASK_STATE_WORKING' } },
    });
    expect((head.value?.result as { task: Task }).task.history).toBeUndefined();
    agent.release();
    const rest: StreamResponse[] = [];
    for await (const envelope of result.events) rest.push(envelope.result as StreamResponse);
    expect(rest.at(-1)).toMatchObject({
      statusUpdate: { taskId: asked.id, status: { state: 'TASK_STATE_COMPLETED' } },
    });
    expect(rest.some((event) => 'artifactUpdate' in event)).toBe(true);
    expect(agent.continuations).toEqual(['answer-1']);

    const terminal = await stream(handler, 'SendStreamingMessage', { message: answer });
    expect(terminal.error).toBeUndefined();
    expect(terminal.events).toEqual([
      {
        task: expect.objectContaining({
          status: expect.objectContaining({ state: 'TASK_STATE_COMPLETED' }),
        }),
      },
    ]);
    expect(agent.continuations).toEqual(['answer-1']);
    const fresh = await stream(handler, 'SendStreamingMessage', {
      message: createMessage({ parts: 'yes', taskId: asked.id }),
    });
    expect(fresh.error).toMatchObject({ error: { code: -32004 } });
  });

  it('streams progress lines to the caller before they are saved; a follower misses no state change and gets none twice', async () => {
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const execute: AgentExecute = async function* withProgressLines() {
      yield { type: 'status', state: 'TASK_STATE_WORKING', message: 'line 1', progressLine: true };
      await released;
      yield { type: 'status', state: 'TASK_STATE_WORKING', message: 'change 2' };
      yield { type: 'status', state: 'TASK_STATE_WORKING', message: 'line 3', progressLine: true };
      yield { type: 'artifact', artifact: { name: 'result', parts: [textPart('done')] } };
    };
    const { handler } = setup(execute);
    const result = await handler.handle(
      {
        jsonrpc: '2.0',
        id: 'run',
        method: 'SendStreamingMessage',
        params: { message: createMessage({ parts: 'go' }) },
      },
      { version: '1.0' },
    );
    if (result.type !== 'stream') throw new Error('expected a stream');
    const head = (await result.events.next()).value?.result as { task: Task };
    const first = (await result.events.next()).value?.result as StreamResponse;
    expect(first).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_WORKING' } } });
    // The caller has the line; the stored task may not have it yet.
    const stored = (await call(handler, 'GetTask', { id: head.task.id })).result as Task;
    expect(stored.status.state).toBe('TASK_STATE_SUBMITTED');

    const following = stream(handler, 'SubscribeToTask', { id: head.task.id });
    await new Promise((resolve) => setImmediate(resolve));
    release();
    const rest: StreamResponse[] = [];
    for await (const envelope of result.events) rest.push(envelope.result as StreamResponse);
    const follower = await following;
    expect(follower.error).toBeUndefined();

    const text = (event: StreamResponse | undefined): string =>
      event === undefined
        ? ''
        : 'statusUpdate' in event
          ? `${event.statusUpdate.status.state}:${partsText(event.statusUpdate.status.message?.parts ?? [])}`
          : 'artifactUpdate' in event
            ? 'artifact'
            : 'task';
    expect(rest.map(text)).toEqual([
      'TASK_STATE_WORKING:change 2',
      'TASK_STATE_WORKING:line 3',
      'artifact',
      'TASK_STATE_COMPLETED:',
    ]);
    // The follower's snapshot (taken before line 1 was saved), then every later event once, in
    // order: line 1 too, with its save.
    expect(follower.events[0]).toMatchObject({
      task: { status: { state: 'TASK_STATE_SUBMITTED' } },
    });
    expect(follower.events.slice(1).map(text)).toEqual([first, ...rest].map(text));
  });
});
