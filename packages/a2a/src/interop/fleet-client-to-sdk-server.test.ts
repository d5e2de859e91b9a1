/**
 * Interop (b): our `A2AClient`, after `discoverAgentCard`, drives an agent built with the official
 * `@a2a-js/sdk` 1.3.0 server (`DefaultRequestHandler`, `agentCardHandler`, `jsonRpcHandler`, as in
 * docs/a2a.md §5), behind a bearer-token check.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import {
  AGENT_CARD_PATH,
  type AgentCard as SdkAgentCard,
  Message as SdkMessage,
  Task as SdkTask,
  TaskArtifactUpdateEvent,
  TaskStatusUpdateEvent,
} from '@a2a-js/sdk';
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBus,
  InMemoryTaskStore,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import {
  createMessage,
  partsText,
  type StreamResponse,
  type Task,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '../index';
import { A2AClient, discoverAgentCard } from '../client';
import { listen, type RunningTestServer } from '../__fixtures__/test-agent';

const TOKEN = 'fleet-to-sdk-token';

function now(): string {
  return new Date().toISOString();
}

/** The SDK-side agent: `echo <text>`, `ask` (input-required, then `hello <reply>`), `slow`. */
class TestExecutor implements AgentExecutor {
  private readonly waiting = new Map<string, () => void>();

  execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId, userMessage, task } = context;
    const input = userMessage.parts
      .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
      .join(' ');
    const status = (state: string, text?: string) =>
      AgentEvent.statusUpdate(
        TaskStatusUpdateEvent.fromJSON({
          taskId,
          contextId,
          status: {
            state,
            timestamp: now(),
            ...(text === undefined
              ? {}
              : {
                  message: {
                    messageId: `${taskId}-${state}`,
                    role: 'ROLE_AGENT',
                    parts: [{ text }],
                    taskId,
                    contextId,
                  },
                }),
          },
        }),
      );
    const artifact = (text: string) =>
      AgentEvent.artifactUpdate(
        TaskArtifactUpdateEvent.fromJSON({
          taskId,
          contextId,
          lastChunk: true,
          artifact: { artifactId: `${taskId}-result`, name: 'result', parts: [{ text }] },
        }),
      );
    bus.publish(
      AgentEvent.task(
        task ??
          SdkTask.fromJSON({
            id: taskId,
            contextId,
            status: { state: 'TASK_STATE_SUBMITTED', timestamp: now() },
            history: [SdkMessage.toJSON(userMessage)],
          }),
      ),
    );
    bus.publish(status('TASK_STATE_WORKING'));
    if (task !== undefined) {
      bus.publish(artifact(`hello ${input}`));
      bus.publish(status('TASK_STATE_COMPLETED'));
      return Promise.resolve();
    }
    if (input.startsWith('echo')) {
      bus.publish(artifact(`echo: ${input.slice(5)}`));
      bus.publish(status('TASK_STATE_COMPLETED'));
      return Promise.resolve();
    }
    if (input === 'ask') {
      bus.publish(status('TASK_STATE_INPUT_REQUIRED', 'What is your name?'));
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.set(taskId, resolve));
  }

  cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    this.waiting.get(taskId)?.();
    bus.publish(
      AgentEvent.statusUpdate(
        TaskStatusUpdateEvent.fromJSON({
          taskId,
          status: { state: 'TASK_STATE_CANCELED', timestamp: now() },
        }),
      ),
    );
    return Promise.resolve();
  }
}

function kinds(events: readonly StreamResponse[]): string[] {
  return events.map((event) => {
    if ('task' in event) return `task:${event.task.status.state}`;
    if ('statusUpdate' in event) return `status:${event.statusUpdate.status.state}`;
    if ('artifactUpdate' in event)
      return `artifact:${partsText(event.artifactUpdate.artifact.parts)}`;
    return 'message';
  });
}

async function collect(events: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const seen: StreamResponse[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

describe('A2AClient against the @a2a-js/sdk server', () => {
  let running: RunningTestServer;
  let client: A2AClient;

  beforeAll(async () => {
    running = await listen((baseUrl) => {
      const card = {
        name: 'sdk-agent',
        description: 'An agent built with the SDK',
        version: '1.0.0',
        provider: undefined,
        supportedInterfaces: [
          { url: `${baseUrl}/a2a`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
        ],
        capabilities: {
          streaming: true,
          pushNotifications: false,
          extensions: [],
          extendedAgentCard: false,
        },
        securitySchemes: {},
        securityRequirements: [],
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
        skills: [
          {
            id: 'echo',
            name: 'Echo',
            description: 'Echo input',
            tags: ['echo'],
            examples: [],
            inputModes: [],
            outputModes: [],
            securityRequirements: [],
          },
        ],
        signatures: [],
      } satisfies SdkAgentCard;
      const requestHandler = new DefaultRequestHandler(
        card,
        new InMemoryTaskStore(),
        new TestExecutor(),
      );
      const app = express();
      app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
      app.use('/a2a', (req, res, next) => {
        if (req.get('authorization') === `Bearer ${TOKEN}`) next();
        else res.status(401).json({ error: { code: 'UNAUTHENTICATED', message: 'token needed' } });
      });
      app.use(
        '/a2a',
        jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }),
      );
      return app;
    });
    const card = await discoverAgentCard(running.baseUrl);
    client = new A2AClient({ card, token: TOKEN, timeoutMs: 5000 });
  });

  afterAll(async () => {
    await running.close();
  });

  it('discovers the SDK card and picks its JSON-RPC 1.0 interface', () => {
    expect(client.url).toBe(`${running.baseUrl}/a2a`);
    expect(client.card?.capabilities.streaming).toBe(true);
  });

  it('streams submitted, working, the artifact and completed', async () => {
    const events = await collect(
      client.sendStreamingMessage({ message: createMessage({ parts: 'echo streamed' }) }),
    );
    expect(kinds(events)).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_WORKING',
      'artifact:echo: streamed',
      'status:TASK_STATE_COMPLETED',
    ]);
  });

  it('sends a blocking message, then gets the task', async () => {
    const result = await client.sendMessage({ message: createMessage({ parts: 'echo blocking' }) });
    const task = result as Task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(partsText(task.artifacts?.[0]?.parts ?? [])).toBe('echo: blocking');
    const fetched = await client.getTask({ id: task.id });
    expect(fetched.id).toBe(task.id);
    expect(fetched.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('throws TaskNotFoundError for an unknown task', async () => {
    await expect(client.getTask({ id: 'no-such-task' })).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('cancels a running task', async () => {
    const stream = client.sendStreamingMessage({ message: createMessage({ parts: 'slow' }) });
    const first = await stream.next();
    if (first.done === true || !('task' in first.value)) throw new Error('expected a task first');
    const taskId = first.value.task.id;
    const canceled = await client.cancelTask({ id: taskId });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    const rest = await collect(stream);
    expect(kinds(rest).at(-1)).toBe('status:TASK_STATE_CANCELED');
  });

  it('refuses to cancel a completed task', async () => {
    const task = (await client.sendMessage({
      message: createMessage({ parts: 'echo done' }),
    })) as Task;
    await expect(client.cancelTask({ id: task.id })).rejects.toBeInstanceOf(TaskNotCancelableError);
  });

  it('continues an input-required task in the same task', async () => {
    const first = await collect(
      client.sendStreamingMessage({ message: createMessage({ parts: 'ask' }) }),
    );
    expect(kinds(first).at(-1)).toBe('status:TASK_STATE_INPUT_REQUIRED');
    const head = first[0];
    if (head === undefined || !('task' in head)) throw new Error('expected a task first');
    const taskId = head.task.id;
    const second = await collect(
      client.sendStreamingMessage({ message: createMessage({ parts: 'Ada', taskId }) }),
    );
    // The SDK starts the continuation with the task still input-required; the client reads on.
    expect(kinds(second)).toEqual([
      'task:TASK_STATE_INPUT_REQUIRED',
      'status:TASK_STATE_WORKING',
      'artifact:hello Ada',
      'status:TASK_STATE_COMPLETED',
    ]);
    await expect(
      client.sendMessage({ message: createMessage({ parts: 'again', taskId }) }),
    ).rejects.toBeInstanceOf(UnsupportedOperationError);
  });

  it('is refused without the token', async () => {
    const anonymous = new A2AClient({ url: client.url, maxRetries: 0 });
    await expect(
      anonymous.sendMessage({ message: createMessage({ parts: 'echo x' }) }),
    ).rejects.toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
  });
});
