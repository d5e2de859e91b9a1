import { randomUUID } from 'node:crypto';
import {
  InvalidParamsError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '../../../errors/a2a-errors';
import type { Message, Task } from '../../../schemas/core';
import { isInterruptedState, isTerminalState } from '../../../schemas/helpers';
import type { SendMessageRequest } from '../../../schemas/methods';
import type { A2ALogger } from '../../handler-types';
import type { TaskRecord, TaskStore } from '../../task-store';
import { timestamp, withStatus } from '../task-updates';
import { CAS_ATTEMPTS } from './turn';
import { isRunningState, isTurnLost, type FailLostTurnOptions } from './turn-lease';

/**
 * What a message leads to: a new turn, or (`duplicate`) nothing, because the message is already
 * in its task's history and `record` is the task as it stands.
 */
export type PreparedTurn =
  | { type: 'turn'; record: TaskRecord; message: Message; isContinuation: boolean }
  | { type: 'duplicate'; record: TaskRecord };

/** What {@link prepareTurn} needs besides the request. */
export interface PrepareTurnOptions {
  store: TaskStore;
  logger: A2ALogger | undefined;
  /** File parts (`raw`) longer than this are kept in the history without their bytes. */
  maxStoredPartBytes: number;
  /**
   * Set when the agent takes lost turns over (`lostTurns: 'take-over'`): a message to a task whose
   * turn was lost starts a new turn of it instead of being refused.
   */
  takeOver?: FailLostTurnOptions | undefined;
}

/**
 * The copy of a message kept in the task's history: file parts over `maxStoredPartBytes` keep
 * their name and type but not their bytes (the agent gets the full message; the store — Redis,
 * for every replica, for days — does not keep a 25 MB upload).
 */
function forHistory(message: Message, maxStoredPartBytes: number): Message {
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

/** Saves a new task (SUBMITTED) holding the message that starts it. */
async function createTask(
  message: Message,
  { store, maxStoredPartBytes }: PrepareTurnOptions,
): Promise<PreparedTurn> {
  const contextId = message.contextId ?? randomUUID();
  const id = randomUUID();
  const stored: Message = { ...message, taskId: id, contextId };
  const task: Task = {
    id,
    contextId,
    status: { state: 'TASK_STATE_SUBMITTED', timestamp: timestamp() },
    history: [forHistory(stored, maxStoredPartBytes)],
  };
  const record = { task, version: 1 };
  await store.save(record, { expectedVersion: 0 });
  return { type: 'turn', record, message: stored, isContinuation: false };
}

/**
 * Why a task takes no message now, or undefined when it does: it is interrupted, or (with
 * `takeOver`) its turn was lost.
 */
async function refusal(
  record: TaskRecord,
  takeOver: FailLostTurnOptions | undefined,
): Promise<UnsupportedOperationError | undefined> {
  const { id, status } = record.task;
  const { state } = status;
  if (isTerminalState(state)) {
    return new UnsupportedOperationError(
      `Task ${id} is ${state} and takes no more messages; start a new task (the contextId can stay).`,
    );
  }
  if (isInterruptedState(state)) return undefined;
  if (takeOver !== undefined && isRunningState(state)) {
    if (await isTurnLost(record, takeOver)) return undefined;
    return new UnsupportedOperationError(
      `Task ${id} is ${state}: its turn is still running, here or on another replica; follow it with SubscribeToTask.`,
    );
  }
  return new UnsupportedOperationError(
    `Task ${id} is ${state}: it takes a message only when it is input- or auth-required.`,
  );
}

/**
 * Continues an interrupted task with the message (compare-and-set, WORKING), or one whose turn was
 * lost when the agent takes such turns over; answers `duplicate` when the message is already in
 * its history (docs/a2a.md §3).
 */
async function continueTask(
  message: Message & { taskId: string },
  { store, logger, maxStoredPartBytes, takeOver }: PrepareTurnOptions,
): Promise<PreparedTurn> {
  const { taskId } = message;
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
    const refused = await refusal(current, takeOver);
    if (refused !== undefined) throw refused;
    const stored: Message = { ...message, taskId, contextId: task.contextId };
    const next = withStatus(task, { state: 'TASK_STATE_WORKING' });
    const record = {
      task: { ...next, history: [...(next.history ?? []), forHistory(stored, maxStoredPartBytes)] },
      version: current.version + 1,
    };
    if (await store.save(record, { expectedVersion: current.version })) {
      return { type: 'turn', record, message: stored, isContinuation: true };
    }
  }
  throw new UnsupportedOperationError(`Task ${taskId} is being continued by another message.`);
}

/**
 * Records the message of a `SendMessage` / `SendStreamingMessage` before its turn runs: a new task
 * when it names none, else the continuation of an interrupted task (or a `duplicate`).
 */
export async function prepareTurn(
  request: SendMessageRequest,
  options: PrepareTurnOptions,
): Promise<PreparedTurn> {
  const message: Message = { ...request.message };
  // ProtoJSON peers may send empty strings for unset ids.
  if (message.taskId === '') delete message.taskId;
  if (message.contextId === '') delete message.contextId;
  const { taskId } = message;
  if (taskId === undefined) return createTask(message, options);
  return continueTask({ ...message, taskId }, options);
}
