/**
 * Interop (c): our client against our server, on real sockets: SSE details (keep-alives, early
 * errors as JSON, error frames), disconnects reaching the agent, two replicas sharing one Redis
 * task store, the legacy card path, and the bearer token.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import { Redis } from 'ioredis';
import { UnauthenticatedError } from '@fleet/errors';
import {
  A2AInternalError,
  createMessage,
  partsText,
  type StreamResponse,
  type Task,
  TaskNotFoundError,
} from '../index';
import { A2AClient, discoverAgentCard, parseSseStream } from '../client';
import {
  buildAgentCard,
  createA2AHandler,
  InMemoryTaskStore,
  RedisTaskStore,
  type A2AHandler,
  type AgentExecute,
  type TaskStore,
} from '../server';
import { a2aRouter } from '../server/express';
import {
  createTestAgent,
  listen,
  type AgentProbe,
  type RunningTestServer,
} from '../__fixtures__/test-agent';

async function collect<T>(events: AsyncIterable<T>): Promise<T[]> {
  const seen: T[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

function kinds(events: readonly StreamResponse[]): string[] {
  return events.map((event) => {
    if ('task' in event) return `task:${event.task.status.state}`;
    if ('statusUpdate' in event) return `status:${event.statusUpdate.status.state}`;
    if ('artifactUpdate' in event) {
      return `artifact:${partsText(event.artifactUpdate.artifact.parts)}`;
    }
    return 'message';
  });
}

function taskIdOf(event: StreamResponse | undefined): string {
  if (event === undefined || !('task' in event)) throw new Error('expected a task event');
  return event.task.id;
}

interface AgentServer {
  running: RunningTestServer;
  handler: A2AHandler;
}

async function startAgentServer({
  execute,
  store,
  internalToken,
}: {
  execute: AgentExecute;
  store: TaskStore;
  internalToken?: string;
}): Promise<AgentServer> {
  let handler: A2AHandler | undefined;
  const running = await listen((baseUrl) => {
    handler = createA2AHandler({
      card: buildAgentCard({
        name: 'test-agent',
        description: 'test',
        version: '0.0.1',
        url: baseUrl,
        skills: [{ id: 'echo', name: 'Echo', description: 'echoes' }],
        internalToken: internalToken !== undefined,
      }),
      execute,
      store,
    });
    const app = express();
    app.use(a2aRouter({ handler, internalToken, keepAliveMs: 20 }));
    return app;
  });
  if (handler === undefined) throw new Error('no handler');
  return { running, handler };
}

describe('A2AClient against a2aRouter', () => {
  let server: AgentServer;
  let probe: AgentProbe;
  let client: A2AClient;

  beforeAll(async () => {
    const agent = createTestAgent();
    probe = agent.probe;
    server = await startAgentServer({ execute: agent.execute, store: new InMemoryTaskStore() });
    client = new A2AClient({
      card: await discoverAgentCard(server.running.baseUrl),
      timeoutMs: 5000,
    });
  });

  afterAll(async () => {
    await server.handler.close();
    await server.running.close();
  });

  it('streams a task from submitted to completed', async () => {
    const events = await collect(
      client.sendStreamingMessage({ message: createMessage({ parts: 'echo hi there' }) }),
    );
    expect(kinds(events)).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_WORKING',
      'artifact:echo: hi there',
      'status:TASK_STATE_COMPLETED',
    ]);
  });

  it('blocks on sendMessage until the task completes, and trims history on request', async () => {
    const task = (await client.sendMessage({
      message: createMessage({ parts: 'echo yo' }),
    })) as Task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(partsText(task.artifacts?.[0]?.parts ?? [])).toBe('echo: yo');
    const fetched = await client.getTask({ id: task.id, historyLength: 0 });
    expect(fetched.history).toBeUndefined();
    expect(fetched.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('returns the submitted task at once with returnImmediately', async () => {
    const task = (await client.sendMessage({
      message: createMessage({ parts: 'gate immediate' }),
      configuration: { returnImmediately: true },
    })) as Task;
    expect(task.status.state).toBe('TASK_STATE_SUBMITTED');
    const subscription = client.subscribeToTask({ id: task.id });
    const head = await subscription.next();
    expect(head.done === true ? undefined : taskIdOf(head.value)).toBe(task.id);
    probe.open('immediate');
    const events = await collect(subscription);
    expect(kinds(events).at(-1)).toBe('status:TASK_STATE_COMPLETED');
  });

  it('appends artifact chunks into one artifact', async () => {
    const task = (await client.sendMessage({
      message: createMessage({ parts: 'chunks' }),
    })) as Task;
    expect(task.artifacts).toHaveLength(1);
    expect(partsText(task.artifacts?.[0]?.parts ?? [])).toBe('a\nb\nc');
  });

  it('fails the task with the error message when the agent throws', async () => {
    const events = await collect(
      client.sendStreamingMessage({ message: createMessage({ parts: 'fail' }) }),
    );
    const last = events.at(-1);
    expect(kinds(events).at(-1)).toBe('status:TASK_STATE_FAILED');
    expect(
      last && 'statusUpdate' in last && partsText(last.statusUpdate.status.message?.parts ?? []),
    ).toBe('boom');
  });

  it('sends keep-alive comments while the agent is quiet', async () => {
    const response = await fetch(`${server.running.baseUrl}/a2a`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        'a2a-version': '1.0',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'keepalive',
        method: 'SendStreamingMessage',
        params: { message: createMessage({ parts: 'gate keepalive' }) },
      }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes(': ping\n\n')) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    probe.open('keepalive');
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text).toContain(': ping\n\n');
    const frames = text.split('\n\n').filter((frame) => frame.startsWith('data: '));
    for (const frame of frames) {
      expect(frame.split('\n')).toHaveLength(1);
      expect(JSON.parse(frame.slice('data: '.length))).toMatchObject({
        jsonrpc: '2.0',
        id: 'keepalive',
      });
    }
    expect(frames.at(-1)).toContain('TASK_STATE_COMPLETED');
  });

  it('answers an error before the first event as JSON, not SSE', async () => {
    const response = await fetch(`${server.running.baseUrl}/a2a`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        'a2a-version': '1.0',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'SendStreamingMessage',
        params: { message: createMessage({ parts: 'echo x', taskId: 'missing' }) },
      }),
    });
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await response.json()) as { id: unknown; error: { code: number; data: unknown } };
    expect(body.id).toBe(7);
    expect(body.error.code).toBe(-32001);
    expect(body.error.data).toEqual([
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'TASK_NOT_FOUND',
        domain: 'a2a-protocol.org',
      },
    ]);
    await expect(
      collect(
        client.sendStreamingMessage({
          message: createMessage({ parts: 'echo x', taskId: 'missing' }),
        }),
      ),
    ).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('refuses a call without A2A-Version: 1.0 (missing, or 1.0.0 as the SDK does)', async () => {
    for (const headers of [{}, { 'a2a-version': '1.0.0' }, { 'a2a-version': '0.3' }]) {
      const response = await fetch(client.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }),
      });
      const body = (await response.json()) as { id: unknown; error: { code: number } };
      expect(body).toMatchObject({ id: 1, error: { code: -32009 } });
    }
  });

  it("reaches the agent's finally when the client breaks out of the stream", async () => {
    const stream = client.sendStreamingMessage({ message: createMessage({ parts: 'slow' }) });
    let taskId = '';
    const finished = probe.nextFinish();
    for await (const event of stream) {
      taskId = taskIdOf(event);
      await probe.waitForStart(taskId);
      break;
    }
    expect(await finished).toBe(taskId);
    expect(probe.aborted).toContain(taskId);
    const task = await client.getTask({ id: taskId });
    expect(task.status.state).toBe('TASK_STATE_CANCELED');
  });

  it("reaches the agent's finally when the caller's signal aborts", async () => {
    const controller = new AbortController();
    const stream = client.sendStreamingMessage(
      { message: createMessage({ parts: 'slow' }) },
      { signal: controller.signal },
    );
    const first = await stream.next();
    const taskId = taskIdOf(first.done === true ? undefined : first.value);
    await probe.waitForStart(taskId);
    const finished = probe.nextFinish();
    controller.abort();
    await expect(stream.next()).rejects.toMatchObject({ code: 'CLIENT_CLOSED_REQUEST' });
    expect(await finished).toBe(taskId);
  });
});

describe('a2aRouter mid-stream failures', () => {
  it('sends an error frame and ends the stream when the store fails mid-turn', async () => {
    const agent = createTestAgent();
    const inner = new InMemoryTaskStore();
    let broken = false;
    const failing: TaskStore = {
      load: (taskId) => inner.load(taskId),
      // Creating the task and recording WORKING work; from the artifact on, every write fails.
      save: (record, options) => {
        broken ||= record.task.artifacts !== undefined;
        return broken ? Promise.reject(new Error('disk full')) : inner.save(record, options);
      },
      list: (query) => inner.list(query),
      publish: (taskId, message) => inner.publish(taskId, message),
      subscribe: (taskId, listener) => inner.subscribe(taskId, listener),
      claim: (taskId, key) => inner.claim(taskId, key),
      close: () => inner.close(),
    };
    const server = await startAgentServer({ execute: agent.execute, store: failing });
    try {
      const client = new A2AClient({ url: `${server.running.baseUrl}/a2a` });
      const seen: StreamResponse[] = [];
      let failure: unknown;
      try {
        for await (const event of client.sendStreamingMessage({
          message: createMessage({ parts: 'echo doomed' }),
        })) {
          seen.push(event);
        }
      } catch (error) {
        failure = error;
      }
      // WORKING and the artifact come in one turn of the event loop: one write, which fails, so
      // neither is announced (an event is announced only once a write holding it returned).
      expect(kinds(seen)).toEqual(['task:TASK_STATE_SUBMITTED']);
      expect(failure).toBeInstanceOf(A2AInternalError);

      broken = false;
      const response = await fetch(`${server.running.baseUrl}/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 'frame',
          method: 'SendStreamingMessage',
          params: { message: createMessage({ parts: 'echo doomed again' }) },
        }),
      });
      const text = await response.text();
      expect(text).toMatch(
        /event: error\ndata: \{"jsonrpc":"2.0","id":"frame","error":\{"code":-32603/,
      );
      await expect(collect(parseSseStream(new Response(text)))).rejects.toBeInstanceOf(
        A2AInternalError,
      );
    } finally {
      await server.handler.close();
      await server.running.close();
    }
  });
});

describe('two replicas sharing a RedisTaskStore', () => {
  const keyPrefix = `test:a2a:replicas:${randomUUID()}`;
  const agent = createTestAgent();
  let redis: Redis;
  const stores: RedisTaskStore[] = [];
  let first: AgentServer;
  let second: AgentServer;
  let clientA: A2AClient;
  let clientB: A2AClient;

  beforeAll(async () => {
    redis = new Redis({ host: '127.0.0.1', port: 6379 });
    stores.push(new RedisTaskStore({ redis, keyPrefix }), new RedisTaskStore({ redis, keyPrefix }));
    first = await startAgentServer({ execute: agent.execute, store: stores[0]! });
    second = await startAgentServer({ execute: agent.execute, store: stores[1]! });
    clientA = new A2AClient({ url: `${first.running.baseUrl}/a2a`, timeoutMs: 5000 });
    clientB = new A2AClient({ url: `${second.running.baseUrl}/a2a`, timeoutMs: 5000 });
  });

  afterAll(async () => {
    await Promise.all([first.handler.close(), second.handler.close()]);
    await Promise.all([first.running.close(), second.running.close()]);
    await Promise.all(stores.map((store) => store.close()));
    const keys = await redis.keys(`${keyPrefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('lets a subscriber on one replica follow a task running on the other', async () => {
    const task = (await clientA.sendMessage({
      message: createMessage({ parts: 'gate replicas' }),
      configuration: { returnImmediately: true },
    })) as Task;
    await agent.probe.waitForStart(task.id);
    const subscription = clientB.subscribeToTask({ id: task.id });
    const head = await subscription.next();
    expect(head.done === true ? undefined : taskIdOf(head.value)).toBe(task.id);
    agent.probe.open('replicas');
    const rest = await collect(subscription);
    expect(kinds(rest)).toEqual(['artifact:passed replicas', 'status:TASK_STATE_COMPLETED']);
  });

  it('cancels from one replica a task running on the other', async () => {
    const task = (await clientA.sendMessage({
      message: createMessage({ parts: 'slow' }),
      configuration: { returnImmediately: true },
    })) as Task;
    await agent.probe.waitForStart(task.id);
    const finished = agent.probe.nextFinish();
    const canceled = await clientB.cancelTask({ id: task.id });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    expect(await finished).toBe(task.id);
    expect(agent.probe.aborted).toContain(task.id);
  });

  it('runs a continuation on the replica that receives it', async () => {
    const asked = (await clientA.sendMessage({ message: createMessage({ parts: 'ask' }) })) as Task;
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const done = (await clientB.sendMessage({
      message: createMessage({ parts: 'Grace', taskId: asked.id }),
    })) as Task;
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(partsText(done.artifacts?.[0]?.parts ?? [])).toBe('hello Grace');
    const history = (await clientA.getTask({ id: asked.id })).history ?? [];
    expect(history.map((message) => partsText(message.parts))).toEqual([
      'ask',
      'working on ask',
      'What is your name?',
      'Grace',
      'working on Grace',
    ]);
  });
});

describe('discoverAgentCard and the bearer token', () => {
  it('falls back to the legacy agent.json path', async () => {
    const card = buildAgentCard({
      name: 'legacy',
      description: 'serves only agent.json',
      version: '1',
      url: 'http://127.0.0.1:1',
      skills: [],
    });
    const running = await listen(() => {
      const app = express();
      app.get('/.well-known/agent.json', (_req, res) => {
        res.json(card);
      });
      return app;
    });
    try {
      const found = await discoverAgentCard(running.baseUrl);
      expect(found.name).toBe('legacy');
      expect(found.supportedInterfaces[0]?.url).toBe('http://127.0.0.1:1/a2a');
    } finally {
      await running.close();
    }
  });

  it('refuses calls without the token but serves the card', async () => {
    const agent = createTestAgent();
    const server = await startAgentServer({
      execute: agent.execute,
      store: new InMemoryTaskStore(),
      internalToken: 'secret-token',
    });
    try {
      const card = await discoverAgentCard(server.running.baseUrl);
      expect(card.securitySchemes).toEqual({
        fleetInternal: { httpAuthSecurityScheme: { scheme: 'bearer' } },
      });
      const anonymous = new A2AClient({ card });
      await expect(anonymous.getTask({ id: 'x' })).rejects.toBeInstanceOf(UnauthenticatedError);
      const wrong = new A2AClient({ card, token: 'wrong-token' });
      await expect(
        wrong.sendMessage({ message: createMessage({ parts: 'echo x' }) }),
      ).rejects.toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
      const trusted = new A2AClient({ card, token: 'secret-token' });
      const task = (await trusted.sendMessage({
        message: createMessage({ parts: 'echo ok' }),
      })) as Task;
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    } finally {
      await server.handler.close();
      await server.running.close();
    }
  });
});
