import type { z } from 'zod';
import { validationErrorFromZod } from '@fleet/errors';
import {
  type A2AError,
  ExtendedAgentCardNotConfiguredError,
  InvalidParamsError,
  MethodNotFoundError,
  PushNotificationNotSupportedError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '../../../errors/a2a-errors';
import type { AgentCard } from '../../../schemas/agent-card';
import type { StreamResponse, Task } from '../../../schemas/core';
import {
  cancelTaskRequestSchema,
  getTaskRequestSchema,
  listTasksRequestSchema,
  type ListTasksResponse,
  sendMessageRequestSchema,
  type SendMessageRequest,
  type SendMessageResponse,
  subscribeToTaskRequestSchema,
} from '../../../schemas/methods';
import type { A2ALogger, A2ARequestContext } from '../../handler-types';
import type { TaskStore } from '../../task-store';
import { AsyncQueue } from '../async-queue';
import { withHistoryLength } from '../task-updates';
import { cancelTask } from './cancel-task';
import { followTask } from './follow-task';
import type { CallMethod, MethodOutcome } from './handle-json-rpc';
import { prepareTurn } from './prepare-turn';
import type { TaskTurns } from './task-turns';
import {
  failLostTurn,
  isRunningState,
  type FailLostTurnOptions,
  type LostTurnPolicy,
} from './turn-lease';
import { abortTurn } from './turn';

/** Options for {@link createA2AMethods}. */
export interface A2AMethodsOptions {
  card: AgentCard;
  store: TaskStore;
  turns: TaskTurns;
  logger: A2ALogger | undefined;
  /** Cancel a turn when the caller that started it goes away. */
  cancelOnDisconnect: boolean;
  /** How long `CancelTask` waits for the replica running the task. */
  cancelTimeoutMs: number;
  /** File parts longer than this are kept in the task history without their bytes. */
  maxStoredPartBytes: number;
  /** A running turn's lease (see turn-lease.ts). */
  turnLeaseMs: number;
  /** What becomes of a task whose turn was lost (see turn-lease.ts). */
  lostTurnPolicy: LostTurnPolicy;
}

/** How this replica tells a lost turn (its replica died) from one running elsewhere. */
function turnLeases({ store, turns, turnLeaseMs }: A2AMethodsOptions): FailLostTurnOptions {
  return { store, isRunningHere: (id) => turns.get(id) !== undefined, leaseMs: turnLeaseMs };
}

/**
 * What followers and readers end when they meet a lost turn: every such task with the `fail`
 * policy, none with `take-over` (the agent carries the turn on when a message reaches the task).
 */
function lostTurns(options: A2AMethodsOptions): FailLostTurnOptions | undefined {
  return options.lostTurnPolicy === 'fail' ? turnLeases(options) : undefined;
}

/** What {@link prepareTurn} needs from these options. */
function turnPreparation(options: A2AMethodsOptions) {
  return {
    store: options.store,
    logger: options.logger,
    maxStoredPartBytes: options.maxStoredPartBytes,
    ...(options.lostTurnPolicy === 'take-over' ? { takeOver: turnLeases(options) } : {}),
  };
}

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 100;

/** The push notification config methods of A2A v1.0; this server keeps no configs. */
const PUSH_NOTIFICATION_CONFIG_METHODS: ReadonlySet<string> = new Set([
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
]);

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

/**
 * `SendMessage`: blocks until the task is terminal or interrupted unless
 * `configuration.returnImmediately`; a repeated message answers with the task as it stands.
 */
async function sendMessage(
  options: A2AMethodsOptions,
  params: unknown,
  context: A2ARequestContext,
): Promise<SendMessageResponse> {
  const request = parseSendMessageParams(params);
  const { historyLength, returnImmediately } = request.configuration ?? {};
  const prepared = await prepareTurn(request, turnPreparation(options));
  if (prepared.type === 'duplicate') {
    return { task: withHistoryLength(prepared.record.task, historyLength) };
  }
  const turn = options.turns.start(prepared.record, { ...prepared, streaming: false });
  if (returnImmediately === true) {
    return { task: withHistoryLength(prepared.record.task, historyLength) };
  }
  const onAbort = (): void => {
    if (options.cancelOnDisconnect) abortTurn(turn, 'disconnect');
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

/**
 * `SendStreamingMessage`: the task, then the turn's events; a repeated message streams the task
 * and follows it like `SubscribeToTask` while it still runs.
 */
async function* sendStreamingMessage(
  options: A2AMethodsOptions,
  params: unknown,
  signal: AbortSignal | undefined,
): AsyncGenerator<StreamResponse, void, undefined> {
  const request = parseSendMessageParams(params);
  const prepared = await prepareTurn(request, turnPreparation(options));
  if (prepared.type === 'duplicate') {
    yield* followTask(prepared.record.task.id, {
      store: options.store,
      signal,
      onTerminal: 'snapshot',
      lostTurns: lostTurns(options),
      historyLength: request.configuration?.historyLength,
    });
    return;
  }
  const { turns, cancelOnDisconnect } = options;
  const turn = turns.start(prepared.record, { ...prepared, streaming: true });
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
    if (turns.get(turn.taskId) === turn && cancelOnDisconnect) abortTurn(turn, 'disconnect');
    await queue.return();
  }
}

async function* subscribeToTask(
  options: A2AMethodsOptions,
  params: unknown,
  signal: AbortSignal | undefined,
): AsyncGenerator<StreamResponse, void, undefined> {
  const { id } = parseParams(subscribeToTaskRequestSchema, params);
  yield* followTask(id, {
    store: options.store,
    signal,
    onTerminal: 'refuse',
    lostTurns: lostTurns(options),
  });
}

async function getTask(options: A2AMethodsOptions, params: unknown): Promise<Task> {
  const { id, historyLength } = parseParams(getTaskRequestSchema, params);
  let record = await options.store.load(id);
  if (record === undefined) throw new TaskNotFoundError(`Task ${id} was not found.`);
  const lost = lostTurns(options);
  if (lost !== undefined && isRunningState(record.task.status.state)) {
    record = (await failLostTurn(id, lost)) ?? record;
  }
  return withHistoryLength(record.task, historyLength);
}

async function listTasks(
  { store }: A2AMethodsOptions,
  params: unknown,
): Promise<ListTasksResponse> {
  const query = parseParams(listTasksRequestSchema, params);
  // An explicit 0 is refused, not read as "unset" (as the SDK does: a page of nothing is never
  // what a caller meant). ProtoJSON leaves out default values, but `page_size` is a proto3
  // `optional` field, so its presence survives: a peer that means "the default" leaves it out.
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

/** -32003 for the push notification config methods: this server keeps no configs. */
function pushNotificationConfigError(
  card: AgentCard,
  method: string,
): PushNotificationNotSupportedError {
  return new PushNotificationNotSupportedError(
    card.capabilities.pushNotifications === true
      ? `${card.name}'s card declares push notifications, but this server does not implement ${method}.`
      : `${card.name} does not support push notifications (${method}); follow tasks with SubscribeToTask or GetTask.`,
  );
}

/** `GetExtendedAgentCard`: -32004 unless the card declares one (spec §3.3.4), else -32007. */
function extendedAgentCardError(card: AgentCard): A2AError {
  if (card.capabilities.extendedAgentCard !== true) {
    return new UnsupportedOperationError(
      `${card.name} does not declare an extended agent card (capabilities.extendedAgentCard).`,
    );
  }
  return new ExtendedAgentCardNotConfiguredError(
    `${card.name} declares an extended agent card, but none is configured.`,
  );
}

/**
 * The A2A v1.0 methods this server answers, one function each, behind one {@link CallMethod}:
 * `SendMessage`, `SendStreamingMessage`, `SubscribeToTask`, `GetTask`, `ListTasks` and
 * `CancelTask`; the push notification config methods answer -32003, `GetExtendedAgentCard`
 * -32004 or -32007, anything else -32601.
 */
export function createA2AMethods(options: A2AMethodsOptions): CallMethod {
  const result = async (value: Promise<unknown>): Promise<MethodOutcome> => ({
    type: 'result',
    result: await value,
  });
  return async function callMethod(method, params, context) {
    switch (method) {
      case 'SendMessage':
        return result(sendMessage(options, params, context));
      case 'SendStreamingMessage':
        return { type: 'stream', events: sendStreamingMessage(options, params, context.signal) };
      case 'SubscribeToTask':
        return { type: 'stream', events: subscribeToTask(options, params, context.signal) };
      case 'GetTask':
        return result(getTask(options, params));
      case 'ListTasks':
        return result(listTasks(options, params));
      case 'CancelTask':
        return result(cancelTask(parseParams(cancelTaskRequestSchema, params).id, options));
      case 'GetExtendedAgentCard':
        throw extendedAgentCardError(options.card);
      default:
        if (PUSH_NOTIFICATION_CONFIG_METHODS.has(method)) {
          throw pushNotificationConfigError(options.card, method);
        }
        throw new MethodNotFoundError(`Method ${method} not found.`);
    }
  };
}
