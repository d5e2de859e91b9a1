/**
 * Interop (a): the official `@a2a-js/sdk` 1.3.0 client, built with `ClientFactory.createFromUrl`
 * from our card, drives an agent served by `createA2AHandler` + `a2aRouter`.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import {
  CancelTaskRequest,
  GetTaskRequest,
  ListTasksRequest,
  SendMessageRequest,
  type StreamResponse as SdkStreamResponse,
  TaskState,
  type Task as SdkTask,
  type Message as SdkMessage,
} from '@a2a-js/sdk';
import { ClientFactory, type Client } from '@a2a-js/sdk/client';
import { buildAgentCard, createA2AHandler, InMemoryTaskStore, type A2AHandler } from '../server';
import { a2aRouter } from '../server/express';
import {
  createTestAgent,
  listen,
  type AgentProbe,
  type RunningTestServer,
} from '../__fixtures__/test-agent';

const TOKEN = 'sdk-interop-token';

function request(text: string, extra: { taskId?: string; contextId?: string } = {}) {
  return SendMessageRequest.fromJSON({
    message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra },
  });
}

function isTask(result: SdkTask | SdkMessage): result is SdkTask {
  return 'status' in result;
}

function texts(
  parts: readonly { content?: { $case: string; value: unknown } | undefined }[],
): string {
  return parts
    .map((part) => (part.content?.$case === 'text' ? String(part.content.value) : ''))
    .join('');
}

function describeEvent(event: SdkStreamResponse): string {
  const payload = event.payload;
  switch (payload?.$case) {
    case 'task':
      return `task:${TaskState[payload.value.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED]}`;
    case 'statusUpdate':
      return `status:${TaskState[payload.value.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED]}`;
    case 'artifactUpdate':
      return `artifact:${texts(payload.value.artifact?.parts ?? [])}`;
    case 'message':
      return 'message';
    case undefined:
      return 'unknown';
  }
}

describe('@a2a-js/sdk client against a2aRouter', () => {
  let running: RunningTestServer;
  let handler: A2AHandler;
  let probe: AgentProbe;
  let client: Client;
  const options = { serviceParameters: { authorization: `Bearer ${TOKEN}` } };

  beforeAll(async () => {
    const agent = createTestAgent();
    probe = agent.probe;
    running = await listen((baseUrl) => {
      handler = createA2AHandler({
        card: buildAgentCard({
          name: 'fleet-test-agent',
          description: 'A fleet agent for SDK interop',
          version: '0.0.1',
          url: baseUrl,
          skills: [{ id: 'echo', name: 'Echo', description: 'echoes', tags: ['test'] }],
          internalToken: true,
        }),
        execute: agent.execute,
        store: new InMemoryTaskStore(),
      });
      const app = express();
      app.use(a2aRouter({ handler, internalToken: TOKEN }));
      return app;
    });
    client = await new ClientFactory().createFromUrl(running.baseUrl);
  });

  afterAll(async () => {
    await handler.close();
    await running.close();
  });

  it('sends a blocking message and gets the completed task', async () => {
    const result = await client.sendMessage(request('echo blocking'), options);
    expect(isTask(result)).toBe(true);
    const task = result as SdkTask;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(texts(task.artifacts[0]?.parts ?? [])).toBe('echo: blocking');
  });

  it('streams submitted, working, the artifact and completed', async () => {
    const events: string[] = [];
    for await (const event of client.sendMessageStream(request('echo streamed'), options)) {
      events.push(describeEvent(event));
    }
    expect(events).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_WORKING',
      'artifact:echo: streamed',
      'status:TASK_STATE_COMPLETED',
    ]);
  });

  it('gets and lists tasks', async () => {
    const contextId = randomUUID();
    const first = (await client.sendMessage(
      request('echo one', { contextId }),
      options,
    )) as SdkTask;
    await client.sendMessage(request('echo two', { contextId }), options);
    const fetched = await client.getTask(
      GetTaskRequest.fromJSON({ id: first.id, historyLength: 1 }),
      options,
    );
    expect(fetched.id).toBe(first.id);
    expect(fetched.contextId).toBe(contextId);
    expect(fetched.history).toHaveLength(1);
    const listed = await client.listTasks(ListTasksRequest.fromJSON({ contextId }), options);
    expect(listed.tasks.map((task) => task.contextId)).toEqual([contextId, contextId]);
    expect(listed.totalSize).toBe(2);
  });

  it('cancels a long-running task and aborts its signal', async () => {
    const stream = client.sendMessageStream(request('slow'), options);
    const first = await stream.next();
    const payload = first.done === true ? undefined : first.value.payload;
    if (payload?.$case !== 'task') throw new Error('expected a task first');
    const taskId = payload.value.id;
    await probe.waitForStart(taskId);
    const finished = probe.nextFinish();
    const canceled = await client.cancelTask(CancelTaskRequest.fromJSON({ id: taskId }), options);
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(await finished).toBe(taskId);
    expect(probe.aborted).toContain(taskId);
    const rest: string[] = [];
    for await (const event of stream) rest.push(describeEvent(event));
    expect(rest.at(-1)).toBe('status:TASK_STATE_CANCELED');
  });

  it('continues an input-required task with a second message', async () => {
    const asked = (await client.sendMessage(request('ask'), options)) as SdkTask;
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(texts(asked.status?.message?.parts ?? [])).toBe('What is your name?');
    const events: string[] = [];
    for await (const event of client.sendMessageStream(
      request('Ada', { taskId: asked.id }),
      options,
    )) {
      events.push(describeEvent(event));
    }
    expect(events).toEqual([
      'task:TASK_STATE_WORKING',
      'status:TASK_STATE_WORKING',
      'artifact:hello Ada',
      'status:TASK_STATE_COMPLETED',
    ]);
    const done = await client.getTask(GetTaskRequest.fromJSON({ id: asked.id }), options);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(done.contextId).toBe(asked.contextId);
  });

  it('is refused without the token, with a JSON-RPC error', async () => {
    await expect(client.sendMessage(request('echo no token'))).rejects.toThrow(/Bearer/);
  });
});
