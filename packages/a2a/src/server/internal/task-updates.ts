import { randomUUID } from 'node:crypto';
import type { Artifact, Message, Part, Task, TaskState } from '../../schemas/core';
import { textPart } from '../../schemas/helpers';

/** The current time as ProtoJSON writes timestamps. */
export function timestamp(): string {
  return new Date().toISOString();
}

/** An agent message for a task's status. */
export function agentMessage(task: Task, content: string | Part[]): Message {
  return {
    messageId: randomUUID(),
    role: 'ROLE_AGENT',
    parts: typeof content === 'string' ? [textPart(content)] : content,
    taskId: task.id,
    contextId: task.contextId,
  };
}

/**
 * The task with a new status. The previous status message moves into the history, so a question
 * the agent asked (input-required) stays readable after the answer arrives.
 */
export function withStatus(
  task: Task,
  { state, message }: { state: TaskState; message?: Message | undefined },
): Task {
  const previous = task.status.message;
  const history = previous === undefined ? task.history : [...(task.history ?? []), previous];
  return {
    ...task,
    status: { state, ...(message === undefined ? {} : { message }), timestamp: timestamp() },
    ...(history === undefined ? {} : { history }),
  };
}

/** The task with an artifact added, replaced, or (`append`) extended by more parts. */
export function withArtifact(task: Task, artifact: Artifact, append: boolean): Task {
  const artifacts = [...(task.artifacts ?? [])];
  const index = artifacts.findIndex((existing) => existing.artifactId === artifact.artifactId);
  const existing = index === -1 ? undefined : artifacts[index];
  if (existing === undefined) artifacts.push(artifact);
  else if (append)
    artifacts[index] = { ...existing, parts: [...existing.parts, ...artifact.parts] };
  else artifacts[index] = artifact;
  return { ...task, artifacts };
}

/** `historyLength`: unset keeps all, 0 drops the history, n keeps the last n messages. */
export function withHistoryLength(task: Task, historyLength: number | undefined): Task {
  if (historyLength === undefined || task.history === undefined) return task;
  const { history, ...rest } = task;
  return historyLength === 0 ? rest : { ...rest, history: history.slice(-historyLength) };
}
