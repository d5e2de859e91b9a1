import type { Message, Part, Task, TaskState } from '../schemas/core';

/** What an agent's `execute` receives for one turn of a task. */
export interface AgentContext {
  taskId: string;
  contextId: string;
  /** This turn's incoming message. */
  message: Message;
  /** The current snapshot; its history includes this message. */
  task: Task;
  /** True when the message continues an interrupted (input- or auth-required) task. */
  isContinuation: boolean;
  /** Aborted by `CancelTask`, by the client going away, or by shutdown. */
  signal: AbortSignal;
  /**
   * Claims a side effect of this task before performing it: true the first time `key` is claimed
   * for the task, on any replica, false ever after. Call it right before sending the mail or running
   * the code, so a repeated continuation or a restarted replica never does it twice.
   *
   * @example
   * if (await context.claimOnce('send-mail')) await smtp.send(mail);
   */
  claimOnce(key: string): Promise<boolean>;
}

/** A status change: a string message becomes one text part of an agent message. */
export interface AgentStatusEvent {
  type: 'status';
  state: TaskState;
  message?: string | Part[];
  metadata?: Record<string, unknown>;
  /**
   * A progress line, not a state change (docs/a2a.md §3, "Progress lines"): the caller's stream
   * gets it as soon as every earlier event is there, before it is saved, and its save may wait a
   * moment to go with the next one. `GetTask` and `SubscribeToTask` may show it late, or — when
   * the process dies before that save — never. Only for `TASK_STATE_WORKING`; any other state is
   * saved before it is announced whatever this says.
   * @default false
   */
  progressLine?: boolean;
}

/** An artifact, or more parts of one (`append: true` with the same `artifactId`). */
export interface AgentArtifactEvent {
  type: 'artifact';
  artifact: {
    /** @default a new UUID */
    artifactId?: string;
    name?: string;
    description?: string;
    parts: Part[];
    metadata?: Record<string, unknown>;
  };
  append?: boolean;
  lastChunk?: boolean;
}

/** What an agent yields. */
export type AgentEvent = AgentStatusEvent | AgentArtifactEvent;

/**
 * An agent: one call per turn. The server sends the Task first, then one event per yielded
 * `AgentEvent`. Returning without a terminal state completes the task; throwing fails it with the
 * error's message; yielding an interrupted state (input/auth-required) ends the turn.
 *
 * @example
 * const execute: AgentExecute = async function* ({ message }) {
 *   yield { type: 'status', state: 'TASK_STATE_WORKING' };
 *   yield { type: 'artifact', artifact: { name: 'result', parts: [textPart(partsText(message.parts))] } };
 * };
 */
export type AgentExecute = (context: AgentContext) => AsyncIterable<AgentEvent>;
