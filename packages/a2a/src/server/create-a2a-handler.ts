import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import {
  FleetError,
  isRedisUnavailableError,
  REDIS_RETRY_AFTER_SECONDS,
  toFleetError,
  validationErrorFromZod,
} from '@fleet/errors';
import {
  Attributes,
  recordError,
  setSpanOutput,
  SpanKind,
  withSpan,
  type WithSpanOptions,
} from '@fleet/telemetry';
import {
  A2AError,
  ExtendedAgentCardNotConfiguredError,
  InvalidAgentResponseError,
  InvalidParamsError,
  InvalidRequestError,
  MethodNotFoundError,
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  VersionNotSupportedError,
} from '../errors/a2a-errors';
import { toJsonRpcError } from '../errors/json-rpc-error';
import type { AgentCard } from '../schemas/agent-card';
import {
  A2A_VERSION,
  artifactSchema,
  type Message,
  partSchema,
  type StreamResponse,
  type Task,
  type TaskState,
} from '../schemas/core';
import { isInterruptedState, isTerminalState, partsText } from '../schemas/helpers';
import {
  jsonRpcIdSchema,
  jsonRpcRequestSchema,
  type JsonRpcErrorResponse,
  type JsonRpcId,
  type JsonRpcResponse,
  type JsonRpcSuccessResponse,
} from '../schemas/json-rpc';
import {
  cancelTaskRequestSchema,
  getTaskRequestSchema,
  listTasksRequestSchema,
  type ListTasksResponse,
  sendMessageRequestSchema,
  type SendMessageRequest,
  type SendMessageResponse,
  subscribeToTaskRequestSchema,
} from '../schemas/methods';
import type { AgentContext, AgentEvent, AgentExecute } from './agent';
import { AsyncQueue } from './internal/async-queue';
import {
  agentMessage,
  timestamp,
  withArtifact,
  withHistoryLength,
  withStatus,
} from './internal/task-updates';
import type { TaskBusMessage, TaskRecord, TaskStore, Unsubscribe } from './task-store';

/** The logging surface the handler needs; a pino logger satisfies it. */
export interface A2ALogger {
  debug(object: object, message?: string): void;
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
  error(object: object, message?: string): void;
}

/** Options for {@link createA2AHandler}. */
export interface CreateA2AHandlerOptions {
  /** The card served at the well-known paths. */
  card: AgentCard;
  /** The agent: one call per turn. */
  execute: AgentExecute;
  /** Where tasks live and how their events reach other replicas. */
  store: TaskStore;
  logger?: A2ALogger | undefined;
  /**
   * Cancel a turn when the streaming or blocking caller that started it goes away (its
   * `signal` aborts, the generator's `finally` runs). @default true
   */
  cancelOnDisconnect?: boolean | undefined;
  /**
   * How long `CancelTask` waits for the replica running the task to stop it before marking the
   * task canceled itself (that replica may be gone). @default 5000
   */
  cancelTimeoutMs?: number | undefined;
  /** The tracer for the agent spans. @default the global tracer */
  tracer?: WithSpanOptions['tracer'];
  /**
   * File parts (`raw`, base64) longer than this many characters are kept in the task's history
   * without their bytes. @default 65536
   */
  maxStoredPartBytes?: number | undefined;
}

/** What the transport knows about a request. */
export interface A2ARequestContext {
  /** The `A2A-Version` header. */
  version?: string | undefined;
  /** Aborted when the client goes away. */
  signal?: AbortSignal | undefined;
}

/** A JSON reply: the JSON-RPC response and the HTTP status (500 only for -32603, as the SDK). */
export interface A2AJsonResult {
  type: 'json';
  status: number;
  body: JsonRpcResponse;
  /** Extra response headers (`Retry-After` with a 503). */
  headers?: Record<string, string>;
}

/**
 * A streamed reply: success responses to send as SSE events. Errors before the first event must go
 * out as a JSON reply, later ones as an `error` event; `renderError` builds either body.
 */
export interface A2AStreamResult {
  type: 'stream';
  id: JsonRpcId;
  events: AsyncGenerator<JsonRpcSuccessResponse, void, undefined>;
  renderError: (error: unknown) => { status: number; body: JsonRpcErrorResponse };
}

/** The outcome of {@link A2AHandler.handle}. */
export type A2AHandlerResult = A2AJsonResult | A2AStreamResult;

/** The transport-agnostic A2A JSON-RPC server. */
export interface A2AHandler {
  readonly card: AgentCard;
  /** Handles one JSON-RPC request (already parsed from JSON). Never throws. */
  handle(body: unknown, context?: A2ARequestContext): Promise<A2AHandlerResult>;
  /** Stops every turn running here (their tasks fail: the agent shut down) and waits for them. */
  close(): Promise<void>;
}

type AbortCause = 'cancel' | 'disconnect' | 'shutdown';

/** One turn of a task running on this replica. */
interface Turn {
  readonly taskId: string;
  readonly controller: AbortController;
  abortCause: AbortCause | undefined;
  record: TaskRecord;
  /** The events for the caller that started the turn (streaming), if any. */
  readonly queue: AsyncQueue<StreamResponse> | undefined;
  failure: Error | undefined;
  done: Promise<void>;
}

const ABORT_STATUS: Record<AbortCause, { state: TaskState; message: string }> = {
  cancel: { state: 'TASK_STATE_CANCELED', message: 'The task was canceled.' },
  disconnect: {
    state: 'TASK_STATE_CANCELED',
    message: 'The task was canceled: the client that started it went away.',
  },
  shutdown: {
    state: 'TASK_STATE_FAILED',
    message: 'The agent shut down before the task finished.',
  },
};

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 100;
const CAS_ATTEMPTS = 5;

function parseParams<TSchema extends z.ZodType>(
  schema: TSchema,
  params: unknown,
): z.output<TSchema> {
  const parsed = schema.safeParse(params ?? {});
  if (parsed.success) return parsed.data;
  const error = validationErrorFromZod(parsed.error, { subject: 'The params' });
  throw new InvalidParamsError(error.message, {
    ...(error.details === undefined ? {} : { details: error.details }),
    ...(error.param === undefined ? {} : { param: error.param }),
  });
}

/** The push notification config methods of A2A v1.0; this server keeps no configs. */
const PUSH_NOTIFICATION_CONFIG_METHODS: ReadonlySet<string> = new Set([
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
]);

/**
 * Parses `SendMessage` / `SendStreamingMessage` params. A message without parts is invalid
 * (spec §5.7: -32602), and refused before any task exists.
 */
function parseSendMessageParams(params: unknown): SendMessageRequest {
  const request = parseParams(sendMessageRequestSchema, params);
  if (request.message.parts.length === 0) {
    throw new InvalidParamsError('The message has no parts: send at least one part.', {
      param: 'message.parts',
    });
  }
  return request;
}

function isStatusEnd(event: StreamResponse): boolean {
  if (!('statusUpdate' in event)) return false;
  const { state } = event.statusUpdate.status;
  return isTerminalState(state) || isInterruptedState(state);
}

function errorText(error: unknown): string {
  return error instanceof Error && error.message !== '' ? error.message : 'The agent failed.';
}

/** An id the request carried, if it is a valid one (for replies to invalid requests). */
function idOf(body: unknown): JsonRpcId {
  if (typeof body !== 'object' || body === null) return null;
  const parsed = jsonRpcIdSchema.safeParse((body as Record<string, unknown>)['id']);
  return parsed.success ? parsed.data : null;
}

/** Resolves when `signal` aborts. */
function abortedPromise(signal: AbortSignal): Promise<'aborted'> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve('aborted');
    else signal.addEventListener('abort', () => resolve('aborted'), { once: true });
  });
}

/**
 * Creates the A2A v1.0 JSON-RPC server core: `SendMessage` (blocking until the task is terminal or
 * interrupted unless `configuration.returnImmediately`), `SendStreamingMessage`, `GetTask`,
 * `ListTasks`, `CancelTask` and `SubscribeToTask`, with the multi-turn rules of docs/a2a.md §3. The push
 * notification config methods answer -32003 and `GetExtendedAgentCard` -32004 (-32007 when the
 * card declares an extended card: this server has none to give).
 *
 * A message whose `messageId` is already in its task's history (a continuation re-sent after a
 * crash) does not run the agent again: `SendMessage` answers with the task as it stands,
 * `SendStreamingMessage` streams it and follows it like `SubscribeToTask` while it still runs.
 *
 * A turn runs on the replica that received its message; its events are saved and published
 * through the store, so `GetTask`, `SubscribeToTask` and `CancelTask` work on any replica, and a
 * continuation may run on another replica than the turn before it. Each turn runs in an AGENT
 * span (a child of the request's span).
 *
 * @example
 * const handler = createA2AHandler({ card, execute, store: new RedisTaskStore({ redis }), logger });
 * app.use(a2aRouter({ handler, internalToken: config.internalToken }));
 */
export function createA2AHandler({
  card,
  execute,
  store,
  logger,
  cancelOnDisconnect = true,
  cancelTimeoutMs = 5000,
  tracer,
  maxStoredPartBytes = 65_536,
}: CreateA2AHandlerOptions): A2AHandler {
  const running = new Map<string, Turn>();

  function logFailure(error: unknown, where: Record<string, unknown>): void {
    if (A2AError.isA2AError(error) && error.jsonRpcCode !== -32603) {
      logger?.debug({ ...where, code: error.jsonRpcCode }, error.message);
    } else if (FleetError.isInstance(error) && error.code !== 'INTERNAL') {
      logger?.warn({ ...where, code: error.code }, error.message);
    } else {
      logger?.error({ ...where, err: error }, 'A2A request failed');
    }
  }

  function errorResponse(
    id: JsonRpcId,
    error: unknown,
  ): { status: number; body: JsonRpcErrorResponse; headers?: Record<string, string> } {
    const rendered = toJsonRpcError(error);
    const body: JsonRpcErrorResponse = { jsonrpc: '2.0', id, error: rendered };
    // A dependency outage (Redis) is a 503 the caller may retry after a while, not a 500.
    const fleetError =
      FleetError.isInstance(error) || isRedisUnavailableError(error)
        ? toFleetError(error)
        : undefined;
    if (fleetError?.code === 'SERVICE_UNAVAILABLE') {
      const retryAfter = fleetError.retryAfterSeconds ?? REDIS_RETRY_AFTER_SECONDS;
      return { status: 503, body, headers: { 'retry-after': String(retryAfter) } };
    }
    return { status: rendered.code === -32603 ? 500 : 200, body };
  }

  // ---- turns -------------------------------------------------------------------------------

  async function commit(turn: Turn, task: Task, event: StreamResponse): Promise<void> {
    const record = { task, version: turn.record.version + 1 };
    await store.save(record);
    turn.record = record;
    turn.queue?.push(event);
    await store.publish(task.id, { type: 'event', version: record.version, event });
  }

  async function applyEvent(turn: Turn, event: AgentEvent): Promise<void> {
    const { task } = turn.record;
    if (event.type === 'status') {
      const parts =
        event.message === undefined || typeof event.message === 'string'
          ? event.message
          : event.message.map((part) => partSchema.parse(part));
      const message = parts === undefined ? undefined : agentMessage(task, parts);
      const next = withStatus(task, { state: event.state, message });
      await commit(turn, next, {
        statusUpdate: {
          taskId: task.id,
          contextId: task.contextId,
          status: next.status,
          ...(event.metadata === undefined ? {} : { metadata: event.metadata }),
        },
      });
      return;
    }
    const artifact = artifactSchema.parse({
      ...event.artifact,
      artifactId: event.artifact.artifactId ?? randomUUID(),
    });
    await commit(turn, withArtifact(task, artifact, event.append === true), {
      artifactUpdate: {
        taskId: task.id,
        contextId: task.contextId,
        artifact,
        ...(event.append === undefined ? {} : { append: event.append }),
        ...(event.lastChunk === undefined ? {} : { lastChunk: event.lastChunk }),
      },
    });
  }

  function abortTurn(turn: Turn, cause: AbortCause): void {
    if (turn.controller.signal.aborted) return;
    turn.abortCause = cause;
    turn.controller.abort(new Error(ABORT_STATUS[cause].message));
  }

  /**
   * Runs the agent for one turn. Resolves when the turn has ended, with the error the agent threw
   * (the task is then FAILED); rejects only when the store fails.
   */
  async function driveAgent(turn: Turn, context: AgentContext): Promise<{ agentError?: unknown }> {
    const { signal } = turn.controller;
    const aborted = abortedPromise(signal);
    let iterator: AsyncIterator<AgentEvent>;
    try {
      iterator = execute(context)[Symbol.asyncIterator]();
    } catch (error) {
      await applyEvent(turn, {
        type: 'status',
        state: 'TASK_STATE_FAILED',
        message: errorText(error),
      });
      return { agentError: error };
    }
    const release = (): void => {
      // Reaches the generator's `finally` at once when it is paused at a `yield`, or as soon as
      // its current await settles.
      void Promise.resolve()
        .then(() => iterator.return?.())
        .catch(() => undefined);
    };
    try {
      for (;;) {
        let step: IteratorResult<AgentEvent> | 'aborted';
        if (signal.aborted) {
          step = 'aborted';
        } else {
          const next = iterator.next();
          next.catch(() => undefined);
          try {
            step = await Promise.race([next, aborted]);
          } catch (error) {
            await applyEvent(turn, {
              type: 'status',
              state: 'TASK_STATE_FAILED',
              message: errorText(error),
            });
            return { agentError: error };
          }
        }
        if (step === 'aborted') {
          release();
          const { state, message } = ABORT_STATUS[turn.abortCause ?? 'cancel'];
          await applyEvent(turn, { type: 'status', state, message });
          return {};
        }
        if (step.done === true) {
          await applyEvent(turn, { type: 'status', state: 'TASK_STATE_COMPLETED' });
          return {};
        }
        const event = step.value;
        try {
          await applyEvent(turn, event);
        } catch (error) {
          if (!(error instanceof Error && error.name === 'ZodError')) throw error;
          release();
          const invalid = new InvalidAgentResponseError(
            `The agent yielded an invalid ${event.type} event.`,
            { cause: error },
          );
          await applyEvent(turn, {
            type: 'status',
            state: 'TASK_STATE_FAILED',
            message: invalid.message,
          });
          return { agentError: invalid };
        }
        if (
          event.type === 'status' &&
          (isTerminalState(event.state) || isInterruptedState(event.state))
        ) {
          release();
          return {};
        }
      }
    } catch (error) {
      release();
      throw error;
    }
  }

  /** Starts a turn on this replica. */
  function startTurn(
    record: TaskRecord,
    {
      message,
      isContinuation,
      streaming,
    }: { message: Message; isContinuation: boolean; streaming: boolean },
  ): Turn {
    const { task } = record;
    const turn: Turn = {
      taskId: task.id,
      controller: new AbortController(),
      abortCause: undefined,
      record,
      queue: streaming ? new AsyncQueue<StreamResponse>() : undefined,
      failure: undefined,
      done: Promise.resolve(),
    };
    running.set(task.id, turn);
    const context: AgentContext = {
      taskId: task.id,
      contextId: task.contextId,
      message: structuredClone(message),
      task: structuredClone(task),
      isContinuation,
      signal: turn.controller.signal,
      claimOnce: (key) => store.claim(task.id, key),
    };
    turn.done = (async () => {
      let unsubscribe: Unsubscribe | undefined;
      try {
        // Cancel requests from other replicas arrive on the task's channel.
        unsubscribe = await store.subscribe(task.id, (busMessage: TaskBusMessage) => {
          if (busMessage.type === 'cancel') abortTurn(turn, 'cancel');
        });
      } catch (error) {
        logger?.warn({ taskId: task.id, err: error }, 'cannot listen for cancel requests');
      }
      try {
        await withSpan(
          {
            name: card.name,
            kind: SpanKind.AGENT,
            input: partsText(message.parts) || message.parts,
            attributes: {
              [Attributes.AGENT_NAME]: card.name,
              'a2a.task_id': task.id,
              'a2a.context_id': task.contextId,
              'a2a.continuation': isContinuation,
            },
            tracer,
          },
          async (span) => {
            try {
              const { agentError } = await driveAgent(turn, context);
              if (agentError !== undefined) {
                recordError(span, agentError);
                logger?.warn({ taskId: task.id, err: agentError }, 'the agent failed');
              }
            } finally {
              const { status } = turn.record.task;
              setSpanOutput(
                span,
                status.message ? partsText(status.message.parts) || status.state : status.state,
              );
              span.setAttribute('a2a.task_state', status.state);
            }
          },
        );
      } catch (error) {
        turn.failure = error instanceof Error ? error : new Error(String(error));
        logFailure(error, { taskId: task.id });
        if (!isTerminalState(turn.record.task.status.state)) {
          // The store failed mid-turn: record the failure if it is reachable again.
          await applyEvent(turn, {
            type: 'status',
            state: 'TASK_STATE_FAILED',
            message: errorText(error),
          }).catch(() => undefined);
        }
      } finally {
        running.delete(task.id);
        await unsubscribe?.().catch(() => undefined);
        if (turn.failure !== undefined) {
          turn.queue?.fail(turn.failure);
        } else {
          turn.queue?.end();
        }
      }
    })();
    return turn;
  }

  // ---- message preparation -----------------------------------------------------------------

  /**
   * What a message leads to: a new turn, or (`duplicate`) nothing, because the message is already
   * in its task's history and `record` is the task as it stands.
   */
  type PreparedTurn =
    | { type: 'turn'; record: TaskRecord; message: Message; isContinuation: boolean }
    | { type: 'duplicate'; record: TaskRecord };

  /**
   * The copy of a message kept in the task's history: file parts over `maxStoredPartBytes` keep
   * their name and type but not their bytes (the agent gets the full message; the store — Redis,
   * for every replica, for days — does not keep a 25 MB upload).
   */
  function forHistory(message: Message): Message {
    if (
      !message.parts.some((part) => part.raw !== undefined && part.raw.length > maxStoredPartBytes)
    ) {
      return message;
    }
    return {
      ...message,
      parts: message.parts.map((part) => {
        if (part.raw === undefined || part.raw.length <= maxStoredPartBytes) return part;
        const { raw, ...rest } = part;
        return {
          ...rest,
          text: `[${part.filename ?? 'file'}: ${Math.floor((raw.length * 3) / 4)} bytes, not kept in the task history]`,
          metadata: { ...part.metadata, omittedBytes: Math.floor((raw.length * 3) / 4) },
        };
      }),
    };
  }

  async function prepareTurn(request: SendMessageRequest): Promise<PreparedTurn> {
    const message: Message = { ...request.message };
    // ProtoJSON peers may send empty strings for unset ids.
    if (message.taskId === '') delete message.taskId;
    if (message.contextId === '') delete message.contextId;
    const { taskId } = message;
    if (taskId === undefined) {
      const contextId = message.contextId ?? randomUUID();
      const id = randomUUID();
      const stored: Message = { ...message, taskId: id, contextId };
      const task: Task = {
        id,
        contextId,
        status: { state: 'TASK_STATE_SUBMITTED', timestamp: timestamp() },
        history: [forHistory(stored)],
      };
      const record = { task, version: 1 };
      await store.save(record, { expectedVersion: 0 });
      return { type: 'turn', record, message: stored, isContinuation: false };
    }
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt += 1) {
      const current = await store.load(taskId);
      if (current === undefined) throw new TaskNotFoundError(`Task ${taskId} was not found.`);
      const { task } = current;
      if (message.contextId !== undefined && message.contextId !== task.contextId) {
        throw new InvalidParamsError(
          `The message's contextId ${message.contextId} is not the context of task ${taskId}.`,
          { param: 'message.contextId' },
        );
      }
      // The same message again (a continuation re-sent after a crash, before or after its turn
      // ended): answer with the task rather than run the agent twice or refuse a terminal task.
      if (task.history?.some((entry) => entry.messageId === message.messageId) === true) {
        logger?.info(
          { taskId, messageId: message.messageId, state: task.status.state },
          'a repeated message: answering with the task, not running the agent again',
        );
        return { type: 'duplicate', record: current };
      }
      const { state } = task.status;
      if (isTerminalState(state)) {
        throw new UnsupportedOperationError(
          `Task ${taskId} is ${state} and takes no more messages; start a new task (the contextId can stay).`,
        );
      }
      if (!isInterruptedState(state)) {
        throw new UnsupportedOperationError(
          `Task ${taskId} is ${state}: it takes a message only when it is input- or auth-required.`,
        );
      }
      const stored: Message = { ...message, taskId, contextId: task.contextId };
      const next = withStatus(task, { state: 'TASK_STATE_WORKING' });
      const record = {
        task: { ...next, history: [...(next.history ?? []), forHistory(stored)] },
        version: current.version + 1,
      };
      if (await store.save(record, { expectedVersion: current.version })) {
        return { type: 'turn', record, message: stored, isContinuation: true };
      }
    }
    throw new UnsupportedOperationError(`Task ${taskId} is being continued by another message.`);
  }

  // ---- methods -----------------------------------------------------------------------------

  async function sendMessage(
    params: unknown,
    context: A2ARequestContext,
  ): Promise<SendMessageResponse> {
    const request = parseSendMessageParams(params);
    const { historyLength, returnImmediately } = request.configuration ?? {};
    const prepared = await prepareTurn(request);
    if (prepared.type === 'duplicate') {
      return { task: withHistoryLength(prepared.record.task, historyLength) };
    }
    const turn = startTurn(prepared.record, { ...prepared, streaming: false });
    if (returnImmediately === true) {
      return { task: withHistoryLength(prepared.record.task, historyLength) };
    }
    const onAbort = (): void => {
      if (cancelOnDisconnect) abortTurn(turn, 'disconnect');
    };
    context.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await turn.done;
    } finally {
      context.signal?.removeEventListener('abort', onAbort);
    }
    if (turn.failure !== undefined) throw turn.failure;
    return { task: withHistoryLength(turn.record.task, historyLength) };
  }

  async function* sendStreamingMessage(
    params: unknown,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const request = parseSendMessageParams(params);
    const prepared = await prepareTurn(request);
    if (prepared.type === 'duplicate') {
      yield* followTask(prepared.record.task.id, signal, {
        onTerminal: 'snapshot',
        historyLength: request.configuration?.historyLength,
      });
      return;
    }
    const turn = startTurn(prepared.record, { ...prepared, streaming: true });
    const queue = turn.queue ?? new AsyncQueue<StreamResponse>();
    // A pending `next()` of a generator cannot be interrupted by `return()`; closing the queue
    // when the client goes away can.
    const onAbort = (): void => void queue.return();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted === true) onAbort();
    try {
      yield {
        task: withHistoryLength(prepared.record.task, request.configuration?.historyLength),
      };
      for await (const event of queue) yield event;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      // Still running here: the caller left before the turn ended.
      if (running.get(turn.taskId) === turn && cancelOnDisconnect) abortTurn(turn, 'disconnect');
      await queue.return();
    }
  }

  /**
   * Streams a task's snapshot, then, unless it is interrupted (its turn is over) or terminal, its
   * events until one ends the turn. A terminal task is refused with -32004 (`onTerminal:
   * 'refuse'`, `SubscribeToTask`) or streamed as its snapshot alone (`'snapshot'`).
   */
  async function* followTask(
    id: string,
    signal: AbortSignal | undefined,
    {
      onTerminal,
      historyLength,
    }: { onTerminal: 'refuse' | 'snapshot'; historyLength?: number | undefined },
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const queue = new AsyncQueue<TaskBusMessage>();
    const onAbort = (): void => void queue.return();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted === true) onAbort();
    // Subscribe before reading the snapshot, so no event falls between the two.
    const unsubscribe = await store.subscribe(id, (busMessage) => {
      if (busMessage.type === 'event') queue.push(busMessage);
    });
    try {
      const record = await store.load(id);
      if (record === undefined) throw new TaskNotFoundError(`Task ${id} was not found.`);
      const { state } = record.task.status;
      if (isTerminalState(state) && onTerminal === 'refuse') {
        throw new UnsupportedOperationError(
          `Task ${id} is ${state}: there is nothing to subscribe to.`,
        );
      }
      yield { task: withHistoryLength(record.task, historyLength) };
      // An interrupted task runs nowhere until a message continues it: the turn is over.
      if (isTerminalState(state) || isInterruptedState(state)) return;
      for await (const busMessage of queue) {
        if (busMessage.type !== 'event' || busMessage.version <= record.version) continue;
        yield busMessage.event;
        if (isStatusEnd(busMessage.event)) return;
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
      await queue.return();
      await unsubscribe();
    }
  }

  async function* subscribeToTask(
    params: unknown,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const { id } = parseParams(subscribeToTaskRequestSchema, params);
    yield* followTask(id, signal, { onTerminal: 'refuse' });
  }

  async function getTask(params: unknown): Promise<Task> {
    const { id, historyLength } = parseParams(getTaskRequestSchema, params);
    const record = await store.load(id);
    if (record === undefined) throw new TaskNotFoundError(`Task ${id} was not found.`);
    return withHistoryLength(record.task, historyLength);
  }

  async function listTasks(params: unknown): Promise<ListTasksResponse> {
    const query = parseParams(listTasksRequestSchema, params);
    // An explicit 0 is refused, not read as "unset", as the issue this follows asks (and as the
    // SDK does). ProtoJSON leaves out default values, but `page_size` is a proto3 `optional`
    // field, so its presence survives: a peer that means "the default" leaves it out.
    if (query.pageSize !== undefined && (query.pageSize < 1 || query.pageSize > MAX_PAGE_SIZE)) {
      throw new InvalidParamsError(
        `pageSize must be between 1 and ${MAX_PAGE_SIZE} (got ${query.pageSize}); leave it out for ${DEFAULT_PAGE_SIZE}.`,
        { param: 'pageSize' },
      );
    }
    if (
      query.statusTimestampAfter !== undefined &&
      Number.isNaN(Date.parse(query.statusTimestampAfter))
    ) {
      throw new InvalidParamsError(
        `statusTimestampAfter must be an ISO-8601 timestamp (got ${JSON.stringify(query.statusTimestampAfter)}).`,
        { param: 'statusTimestampAfter' },
      );
    }
    const pageSize = query.pageSize ?? DEFAULT_PAGE_SIZE;
    const page = await store.list({
      contextId: query.contextId || undefined,
      status: query.status,
      statusTimestampAfter: query.statusTimestampAfter,
      pageSize,
      pageToken: query.pageToken,
    });
    return {
      tasks: page.tasks.map((task) => {
        const trimmed = withHistoryLength(task, query.historyLength);
        if (query.includeArtifacts === true) return trimmed;
        const { artifacts: _artifacts, ...rest } = trimmed;
        return rest;
      }),
      nextPageToken: page.nextPageToken,
      pageSize,
      totalSize: page.totalSize,
    };
  }

  /** Waits for a terminal event of a task running elsewhere; false after `cancelTimeoutMs`. */
  async function requestRemoteCancel(taskId: string): Promise<boolean> {
    let settle: (stopped: boolean) => void = () => undefined;
    const stopped = new Promise<boolean>((resolve) => {
      settle = resolve;
    });
    const unsubscribe = await store.subscribe(taskId, (busMessage) => {
      if (busMessage.type !== 'event' || !('statusUpdate' in busMessage.event)) return;
      if (isTerminalState(busMessage.event.statusUpdate.status.state)) settle(true);
    });
    const timer = setTimeout(() => settle(false), cancelTimeoutMs);
    try {
      await store.publish(taskId, { type: 'cancel' });
      const current = await store.load(taskId);
      if (current && isTerminalState(current.task.status.state)) return true;
      return await stopped;
    } finally {
      clearTimeout(timer);
      await unsubscribe();
    }
  }

  async function cancelTask(params: unknown): Promise<Task> {
    const { id } = parseParams(cancelTaskRequestSchema, params);
    const notCancelable = (state: TaskState): TaskNotCancelableError =>
      new TaskNotCancelableError(`Task ${id} is ${state} and cannot be canceled.`);
    let record = await store.load(id);
    if (record === undefined) throw new TaskNotFoundError(`Task ${id} was not found.`);
    // Canceling twice answers the canceled task, as the SDK does.
    if (record.task.status.state === 'TASK_STATE_CANCELED') return record.task;
    if (isTerminalState(record.task.status.state)) throw notCancelable(record.task.status.state);
    const local = running.get(id);
    if (local) {
      abortTurn(local, 'cancel');
      await local.done;
      return local.record.task;
    }
    if (!isInterruptedState(record.task.status.state) && (await requestRemoteCancel(id))) {
      record = await store.load(id);
      if (record) return record.task;
    }
    // Nothing runs the task (interrupted, or its replica is gone): cancel it here.
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt += 1) {
      const current = await store.load(id);
      if (current === undefined) throw new TaskNotFoundError(`Task ${id} was not found.`);
      const { state } = current.task.status;
      if (isTerminalState(state)) {
        if (state === 'TASK_STATE_CANCELED') return current.task;
        throw notCancelable(state);
      }
      const task = withStatus(current.task, {
        state: 'TASK_STATE_CANCELED',
        message: agentMessage(current.task, ABORT_STATUS.cancel.message),
      });
      const version = current.version + 1;
      if (await store.save({ task, version }, { expectedVersion: current.version })) {
        await store.publish(id, {
          type: 'event',
          version,
          event: { statusUpdate: { taskId: id, contextId: task.contextId, status: task.status } },
        });
        return task;
      }
    }
    throw new TaskNotCancelableError(`Task ${id} changed while it was being canceled.`);
  }

  /** -32003 for the push notification config methods: this server keeps no configs. */
  function pushNotificationConfigError(method: string): PushNotificationNotSupportedError {
    return new PushNotificationNotSupportedError(
      card.capabilities.pushNotifications === true
        ? `${card.name}'s card declares push notifications, but this server does not implement ${method}.`
        : `${card.name} does not support push notifications (${method}); follow tasks with SubscribeToTask or GetTask.`,
    );
  }

  /** `GetExtendedAgentCard`: -32004 unless the card declares one (spec §3.3.4), else -32007. */
  function extendedAgentCardError(): A2AError {
    if (card.capabilities.extendedAgentCard !== true) {
      return new UnsupportedOperationError(
        `${card.name} does not declare an extended agent card (capabilities.extendedAgentCard).`,
      );
    }
    return new ExtendedAgentCardNotConfiguredError(
      `${card.name} declares an extended agent card, but none is configured.`,
    );
  }

  // ---- dispatch ----------------------------------------------------------------------------

  function stream(
    id: JsonRpcId,
    method: string,
    events: AsyncGenerator<StreamResponse, void, undefined>,
  ): A2AStreamResult {
    async function* envelopes(): AsyncGenerator<JsonRpcSuccessResponse, void, undefined> {
      try {
        for await (const result of events) yield { jsonrpc: '2.0', id, result };
      } catch (error) {
        logFailure(error, { method });
        throw error;
      }
    }
    return {
      type: 'stream',
      id,
      events: envelopes(),
      renderError: (error) => errorResponse(id, error),
    };
  }

  async function handle(body: unknown, context: A2ARequestContext = {}): Promise<A2AHandlerResult> {
    const request = jsonRpcRequestSchema.safeParse(body);
    if (!request.success) {
      return {
        type: 'json',
        ...errorResponse(
          idOf(body),
          new InvalidRequestError(
            'Invalid JSON-RPC request: expected { jsonrpc: "2.0", method, id, params }.',
          ),
        ),
      };
    }
    const { method, params } = request.data;
    const id = request.data.id ?? null;
    const ok = (result: unknown): A2AJsonResult => ({
      type: 'json',
      status: 200,
      body: { jsonrpc: '2.0', id, result },
    });
    try {
      // SDK 1.x behaviour: only the exact string "1.0" is accepted. A missing header means 0.3
      // (spec §3.2.6), which this server does not speak, so it is refused too; "1.0.0" is refused
      // like the SDK does, although the spec says patch versions should be ignored.
      if (context.version?.trim() !== A2A_VERSION) {
        throw new VersionNotSupportedError(
          context.version === undefined
            ? 'The A2A-Version header is missing (which means 0.3); this agent speaks A2A 1.0: send A2A-Version: 1.0.'
            : `A2A version ${context.version} is not supported; send A2A-Version: 1.0.`,
        );
      }
      switch (method) {
        case 'SendMessage':
          return ok(await sendMessage(params, context));
        case 'SendStreamingMessage':
          return stream(id, method, sendStreamingMessage(params, context.signal));
        case 'SubscribeToTask':
          return stream(id, method, subscribeToTask(params, context.signal));
        case 'GetTask':
          return ok(await getTask(params));
        case 'ListTasks':
          return ok(await listTasks(params));
        case 'CancelTask':
          return ok(await cancelTask(params));
        case 'GetExtendedAgentCard':
          throw extendedAgentCardError();
        default:
          if (PUSH_NOTIFICATION_CONFIG_METHODS.has(method)) {
            throw pushNotificationConfigError(method);
          }
          throw new MethodNotFoundError(`Method ${method} not found.`);
      }
    } catch (error) {
      logFailure(error, { method });
      return { type: 'json', ...errorResponse(id, error) };
    }
  }

  async function close(): Promise<void> {
    const turns = [...running.values()];
    for (const turn of turns) abortTurn(turn, 'shutdown');
    await Promise.all(turns.map((turn) => turn.done));
  }

  return { card, handle, close };
}
