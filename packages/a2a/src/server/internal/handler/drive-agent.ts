import { randomUUID } from 'node:crypto';
import { InvalidAgentResponseError } from '../../../errors/a2a-errors';
import { artifactSchema, partSchema, type StreamResponse, type Task } from '../../../schemas/core';
import { isInterruptedState, isTerminalState } from '../../../schemas/helpers';
import type { AgentContext, AgentEvent, AgentExecute } from '../../agent';
import type { TaskStore } from '../../task-store';
import { agentMessage, withArtifact, withStatus } from '../task-updates';
import { TaskWriter } from './task-writer';
import { ABORT_STATUS, type Turn } from './turn';

/** The status message of a task whose agent failed. */
export function errorText(error: unknown): string {
  return error instanceof Error && error.message !== '' ? error.message : 'The agent failed.';
}

/** Resolves when `signal` aborts. */
function abortedPromise(signal: AbortSignal): Promise<'aborted'> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve('aborted');
    else signal.addEventListener('abort', () => resolve('aborted'), { once: true });
  });
}

/** Each turn's writer, made on its first event. */
const writers = new WeakMap<Turn, TaskWriter>();

function writerOf(store: TaskStore, turn: Turn): TaskWriter {
  let writer = writers.get(turn);
  if (writer === undefined) {
    writer = new TaskWriter(store, turn);
    writers.set(turn, writer);
  }
  return writer;
}

/**
 * Applies the next version of the turn's task. Its save and announcement (the caller's stream and
 * the task's channel, after the save; a progress line in the caller's stream before it) follow
 * without holding up the agent, several events to a save (see {@link TaskWriter}); an event that
 * ends the turn — a terminal or interrupted status — resolves only once it and every event before
 * it are saved and announced.
 */
async function commit(
  store: TaskStore,
  turn: Turn,
  { task, event, progressLine }: { task: Task; event: StreamResponse; progressLine: boolean },
): Promise<void> {
  const writer = writerOf(store, turn);
  await writer.apply(task, event, { progressLine });
  const { state } = task.status;
  if ('statusUpdate' in event && (isTerminalState(state) || isInterruptedState(state))) {
    await writer.settled();
  }
}

/**
 * Applies one agent event to the turn's task: a status update or an artifact update, saved and
 * published (an event that ends the turn before this resolves; others soon after). Throws a
 * `ZodError` when the event's parts or artifact are invalid.
 */
export async function applyEvent(store: TaskStore, turn: Turn, event: AgentEvent): Promise<void> {
  const { task } = turn.record;
  if (event.type === 'status') {
    const parts =
      event.message === undefined || typeof event.message === 'string'
        ? event.message
        : event.message.map((part) => partSchema.parse(part));
    const message = parts === undefined ? undefined : agentMessage(task, parts);
    const next = withStatus(task, { state: event.state, message });
    await commit(store, turn, {
      progressLine: event.progressLine === true && event.state === 'TASK_STATE_WORKING',
      task: next,
      event: {
        statusUpdate: {
          taskId: task.id,
          contextId: task.contextId,
          status: next.status,
          ...(event.metadata === undefined ? {} : { metadata: event.metadata }),
        },
      },
    });
    return;
  }
  const artifact = artifactSchema.parse({
    ...event.artifact,
    artifactId: event.artifact.artifactId ?? randomUUID(),
  });
  await commit(store, turn, {
    progressLine: false,
    task: withArtifact(task, artifact, event.append === true),
    event: {
      artifactUpdate: {
        taskId: task.id,
        contextId: task.contextId,
        artifact,
        ...(event.append === undefined ? {} : { append: event.append }),
        ...(event.lastChunk === undefined ? {} : { lastChunk: event.lastChunk }),
      },
    },
  });
}

/** Marks the turn's task FAILED with `message`. */
function failTask(store: TaskStore, turn: Turn, message: string): Promise<void> {
  return applyEvent(store, turn, { type: 'status', state: 'TASK_STATE_FAILED', message });
}

/** What {@link driveAgent} needs besides the turn. */
export interface DriveAgentOptions {
  execute: AgentExecute;
  store: TaskStore;
}

/**
 * Runs the agent for one turn, applying each event it yields to the task. Resolves when the turn
 * has ended, with the error the agent threw (the task is then FAILED); rejects only when the store
 * fails.
 */
export async function driveAgent(
  turn: Turn,
  context: AgentContext,
  { execute, store }: DriveAgentOptions,
): Promise<{ agentError?: unknown }> {
  const { signal } = turn.controller;
  const aborted = abortedPromise(signal);
  let iterator: AsyncIterator<AgentEvent>;
  try {
    iterator = execute(context)[Symbol.asyncIterator]();
  } catch (error) {
    await failTask(store, turn, errorText(error));
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
          await failTask(store, turn, errorText(error));
          return { agentError: error };
        }
      }
      if (step === 'aborted') {
        release();
        const { state, message } = ABORT_STATUS[turn.abortCause ?? 'cancel'];
        await applyEvent(store, turn, { type: 'status', state, message });
        return {};
      }
      if (step.done === true) {
        await applyEvent(store, turn, { type: 'status', state: 'TASK_STATE_COMPLETED' });
        return {};
      }
      const event = step.value;
      try {
        await applyEvent(store, turn, event);
      } catch (error) {
        if (!(error instanceof Error && error.name === 'ZodError')) throw error;
        release();
        const invalid = new InvalidAgentResponseError(
          `The agent yielded an invalid ${event.type} event.`,
          { cause: error },
        );
        await failTask(store, turn, invalid.message);
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
