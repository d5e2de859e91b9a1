import { randomUUID } from 'node:crypto';
import {
  Message,
  Task,
  TaskArtifactUpdateEvent,
  TaskStatusUpdateEvent,
  type Part,
} from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutionEvent, type RequestContext } from '@a2a-js/sdk/server';

/**
 * Small helpers over `@a2a-js/sdk` 1.3 for the agents of this folder: events are written as v1.0
 * wire JSON and turned into the SDK's objects with its own codecs (`Task.fromJSON`, …), so what
 * goes on the wire is what an agent written with the SDK alone would send. Nothing here uses the
 * fleet's A2A code.
 */

/** The v1.0 task states, as the wire spells them. */
export type SdkTaskState =
  | 'TASK_STATE_SUBMITTED'
  | 'TASK_STATE_WORKING'
  | 'TASK_STATE_INPUT_REQUIRED'
  | 'TASK_STATE_AUTH_REQUIRED'
  | 'TASK_STATE_COMPLETED'
  | 'TASK_STATE_FAILED'
  | 'TASK_STATE_CANCELED'
  | 'TASK_STATE_REJECTED';

/** A part as v1.0 wire JSON: `{ text }`, `{ data }` or a file `{ raw }` (base64). */
export type WirePart =
  | { text: string }
  | { data: unknown; mediaType?: string }
  | { raw: string; filename?: string; mediaType?: string };

/** The ids an event of the current turn carries. */
export type TurnIds = Pick<RequestContext, 'taskId' | 'contextId'>;

/** The text parts of a message, joined with newlines. */
export function sdkText(parts: readonly Part[]): string {
  return parts
    .map((part) => (part.content?.$case === 'text' ? part.content.value : undefined))
    .filter((text): text is string => text !== undefined)
    .join('\n');
}

/** The value under `key` of the first data part that has it (e.g. `fleet`, `approvalDecision`). */
export function sdkData(parts: readonly Part[], key: string): unknown {
  for (const part of parts) {
    if (part.content?.$case !== 'data') continue;
    const value: unknown = part.content.value;
    if (typeof value === 'object' && value !== null && key in value) {
      return (value as Record<string, unknown>)[key];
    }
  }
  return undefined;
}

/**
 * The event every turn must begin with (the SDK refuses a stream that starts otherwise): the task
 * as stored — on a continuation, still in the state that asked — or a new SUBMITTED one.
 */
export function taskSnapshot(context: RequestContext): AgentExecutionEvent {
  return AgentEvent.task(
    context.task ??
      Task.fromJSON({
        id: context.taskId,
        contextId: context.contextId,
        status: { state: 'TASK_STATE_SUBMITTED', timestamp: new Date().toISOString() },
        history: [Message.toJSON(context.userMessage)],
      }),
  );
}

/** A status update; with `parts`, the status carries an agent message made of them. */
export function statusEvent(
  ids: TurnIds,
  { state, parts }: { state: SdkTaskState; parts?: WirePart[] },
): AgentExecutionEvent {
  return AgentEvent.statusUpdate(
    TaskStatusUpdateEvent.fromJSON({
      taskId: ids.taskId,
      contextId: ids.contextId,
      status: {
        state,
        timestamp: new Date().toISOString(),
        ...(parts === undefined
          ? {}
          : {
              message: {
                messageId: randomUUID(),
                role: 'ROLE_AGENT',
                taskId: ids.taskId,
                contextId: ids.contextId,
                parts,
              },
            }),
      },
    }),
  );
}

/** An artifact update: a whole artifact, or (`append`) one more chunk of one sent before. */
export function artifactEvent(
  ids: TurnIds,
  options: {
    artifactId: string;
    name?: string;
    parts: WirePart[];
    append?: boolean;
    lastChunk?: boolean;
  },
): AgentExecutionEvent {
  const { artifactId, name, parts, append = false, lastChunk = true } = options;
  return AgentEvent.artifactUpdate(
    TaskArtifactUpdateEvent.fromJSON({
      taskId: ids.taskId,
      contextId: ids.contextId,
      append,
      lastChunk,
      artifact: { artifactId, ...(name === undefined ? {} : { name }), parts },
    }),
  );
}

/** A direct reply: one agent Message instead of a task (the whole stream is this one event). */
export function messageEvent(
  ids: Pick<TurnIds, 'contextId'>,
  parts: WirePart[],
): AgentExecutionEvent {
  return AgentEvent.message(
    Message.fromJSON({
      messageId: randomUUID(),
      role: 'ROLE_AGENT',
      contextId: ids.contextId,
      parts,
    }),
  );
}
