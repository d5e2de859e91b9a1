import {
  createMessage,
  dataPart,
  isInterruptedState,
  isTerminalState,
  partsText,
  RESULT_ARTIFACT_NAME,
  TaskNotFoundError,
  textPart,
  UnsupportedOperationError,
  type Artifact,
  type Message,
  type Part,
  type StreamResponse,
  type Task,
  type TaskState,
} from '@fleet/a2a';
import { A2AClient } from '@fleet/a2a/client';
import { NotFoundError, StreamInterruptedError } from '@fleet/errors';
import type { AvailableAgent } from '../discovery';
import type { CancelAgentTask, InvokeAgent, NodeOutcome } from './node-outcome';
import { AgentUnavailableError } from './agent-unavailable-error';
import { renderNodeText } from './render-node-text';
import { isRunHandover } from './run-handover';

/** The A2A invoker: an {@link InvokeAgent} that can also cancel a node's agent task. */
export type A2AAgentInvoker = InvokeAgent & { cancelTask: CancelAgentTask };

/** How often a follow of an existing task re-reads it when its stream ends early. */
const FOLLOW_ROUNDS = 3;

/** The logging the invoker needs. */
export interface InvokerLogger {
  warn(object: object, message?: string): void;
  debug(object: object, message?: string): void;
}

/** Options for {@link createA2AAgentInvoker}. */
export interface A2AAgentInvokerOptions {
  /** The healthy agent with this card name (discovery). */
  findAgent: (name: string) => Promise<AvailableAgent | undefined>;
  /** FLEET_INTERNAL_TOKEN, sent as the bearer token. */
  token: string;
  logger: InvokerLogger;
  /**
   * The client's connect and idle time-out: the longest silence on a stream (agents send
   * keep-alives every 15 s). The node's own time-out is the executor's. @default 60000
   */
  timeoutMs?: number;
  /** How long the best-effort `CancelTask` of an aborted node may take. @default 3000 */
  cancelTimeoutMs?: number;
}

/**
 * The production {@link InvokeAgent}: sends the node's message (text part: task plus the
 * dependencies' summaries; data part: `{ fleet: … }`) with `SendStreamingMessage` to one replica of
 * the agent (round-robin), follows the task to its end — recovering with `GetTask` /
 * `SubscribeToTask` when a stream is cut — and reads the `result` artifact. When the node is
 * aborted (time-out or cancel) it cancels the remote task, best-effort.
 *
 * Retry policy: transport failures are thrown (the executor retries them); a task the agent
 * reported FAILED is not retried, because the agent may have started side effects — unless its
 * status message carries a data part `{ retryable: true }`, the agent's own statement that
 * nothing happened and trying again may help.
 *
 * With `existingTask` nothing new is sent: the approval decision goes to the same task as its
 * continuation (`{ approvalDecision }` data part), or the task is only followed (a resumed run);
 * a task the agent no longer knows fails the node with a clear reason. A run handed over to
 * another orchestrator ({@link isRunHandover}) leaves the agent task running.
 *
 * @example
 * const invokeAgent = createA2AAgentInvoker({ findAgent: directory.findAgent, token, logger });
 */
export function createA2AAgentInvoker({
  findAgent,
  token,
  logger,
  timeoutMs = 60_000,
  cancelTimeoutMs = 3000,
}: A2AAgentInvokerOptions): A2AAgentInvoker {
  const clients = new Map<string, A2AClient>();
  const turns = new Map<string, number>();

  const clientFor = (replica: AvailableAgent['replicas'][number]): A2AClient => {
    let client = clients.get(replica.url);
    if (client === undefined || client.card !== replica.card) {
      // The executor owns retries: the client must not retry on its own as well.
      client = new A2AClient({ card: replica.card, token, timeoutMs, maxRetries: 0 });
      clients.set(replica.url, client);
    }
    return client;
  };

  const pickReplica = (agent: AvailableAgent): AvailableAgent['replicas'][number] => {
    const turn = turns.get(agent.name) ?? 0;
    turns.set(agent.name, turn + 1);
    return agent.replicas[turn % agent.replicas.length] ?? { url: agent.url, card: agent.card };
  };

  const cancelRemote = (client: A2AClient, taskId: string): void => {
    client.cancelTask({ id: taskId }, { timeoutMs: cancelTimeoutMs }).then(
      () => logger.debug({ taskId, agent: client.card?.name }, 'canceled the agent task'),
      (error: unknown) =>
        logger.debug(
          { taskId, agent: client.card?.name, err: error },
          'could not cancel the agent task',
        ),
    );
  };

  const clientForAgent = async (name: string): Promise<A2AClient> => {
    const agent = await findAgent(name);
    if (agent === undefined) {
      throw new AgentUnavailableError(name);
    }
    return clientFor(pickReplica(agent));
  };

  const invokeAgent: InvokeAgent = async ({
    node,
    input,
    signal,
    onTask,
    existingTask,
  }): Promise<NodeOutcome> => {
    const client = await clientForAgent(node.agent);
    const tracker = new TaskTracker(onTask);
    try {
      if (existingTask === undefined) {
        const message = createMessage({
          parts: [
            textPart(renderNodeText({ node, dependencyOutputs: input.fleet.dependencyOutputs })),
            dataPart(input),
          ],
        });
        await tracker.follow(client.sendStreamingMessage({ message }, { signal }));
        if (!tracker.done && tracker.taskId !== undefined) {
          await recover({ client, tracker, signal });
        }
      } else {
        tracker.adopt(existingTask.taskId);
        try {
          if (existingTask.decision !== undefined) {
            const message = createMessage({
              taskId: existingTask.taskId,
              parts: [dataPart({ approvalDecision: existingTask.decision })],
            });
            await tracker.follow(client.sendStreamingMessage({ message }, { signal }));
          }
          if (!tracker.done) await recover({ client, tracker, signal });
        } catch (error) {
          if (error instanceof TaskNotFoundError) {
            throw new NotFoundError(
              `its agent task ${existingTask.taskId} is gone (${node.agent} no longer knows it), so what became of the step is unknown; it is not sent again`,
              { cause: error },
            );
          }
          throw error;
        }
      }
    } catch (error) {
      if (
        tracker.taskId !== undefined &&
        !tracker.done &&
        signal.aborted &&
        !isRunHandover(signal.reason)
      ) {
        cancelRemote(client, tracker.taskId);
      }
      throw error;
    }
    return tracker.outcome();
  };

  const cancelTask: CancelAgentTask = async ({ agent, taskId }) => {
    try {
      cancelRemote(await clientForAgent(agent), taskId);
    } catch (error) {
      logger.debug({ taskId, agent, err: error }, 'could not cancel the agent task');
    }
  };

  return Object.assign(invokeAgent, { cancelTask });
}

/**
 * A task to follow (a stream that stopped early, or a resumed run's node): read it, and follow it
 * again while it runs. A task that ends between the read and the subscription is read again.
 */
async function recover({
  client,
  tracker,
  signal,
}: {
  client: A2AClient;
  tracker: TaskTracker;
  signal: AbortSignal;
}): Promise<void> {
  const id = tracker.taskId as string;
  for (let round = 0; round < FOLLOW_ROUNDS && !tracker.done; round += 1) {
    tracker.applyTask(await client.getTask({ id, historyLength: 0 }, { signal }));
    if (tracker.done) return;
    try {
      await tracker.follow(client.subscribeToTask({ id }, { signal }));
    } catch (error) {
      // It ended between the read and the subscription: the next read sees how.
      if (!(error instanceof UnsupportedOperationError)) throw error;
    }
  }
}

/** Folds a task's stream events into its final state and result. */
class TaskTracker {
  private id: string | undefined;
  private state: TaskState | undefined;
  private statusMessage: Message | undefined;
  private directMessage: Message | undefined;
  private readonly artifacts = new Map<string, Artifact>();

  constructor(private readonly onTask: ((taskId: string) => void) | undefined) {}

  get taskId(): string | undefined {
    return this.id;
  }

  private setTaskId(taskId: string): void {
    if (this.id !== undefined) return;
    this.id = taskId;
    this.onTask?.(taskId);
  }

  /** Follows a task that already exists (its id is known, nobody needs telling). */
  adopt(taskId: string): void {
    this.id = taskId;
  }

  get done(): boolean {
    return (
      this.directMessage !== undefined ||
      (this.state !== undefined && (isTerminalState(this.state) || isInterruptedState(this.state)))
    );
  }

  /** Consumes a stream; a stream cut before the end is not an error here (the caller recovers). */
  async follow(events: AsyncIterable<StreamResponse>): Promise<void> {
    try {
      for await (const event of events) {
        this.apply(event);
        if (this.done) return;
      }
    } catch (error) {
      if (error instanceof StreamInterruptedError && this.taskId !== undefined) return;
      throw error;
    }
  }

  apply(event: StreamResponse): void {
    if ('task' in event) this.applyTask(event.task);
    else if ('message' in event) this.directMessage = event.message;
    else if ('statusUpdate' in event) {
      this.setTaskId(event.statusUpdate.taskId);
      this.state = event.statusUpdate.status.state;
      this.statusMessage = event.statusUpdate.status.message;
    } else {
      const { artifact, append } = event.artifactUpdate;
      const existing = this.artifacts.get(artifact.artifactId);
      this.artifacts.set(
        artifact.artifactId,
        append === true && existing !== undefined
          ? { ...existing, parts: [...existing.parts, ...artifact.parts] }
          : artifact,
      );
    }
  }

  applyTask(task: Task): void {
    this.setTaskId(task.id);
    this.state = task.status.state;
    this.statusMessage = task.status.message;
    for (const artifact of task.artifacts ?? []) this.artifacts.set(artifact.artifactId, artifact);
  }

  outcome(): NodeOutcome {
    const taskId = this.taskId;
    const ids = taskId === undefined ? {} : { taskId };
    if (this.directMessage !== undefined) {
      return {
        status: 'completed',
        summary: partsText(this.directMessage.parts),
        ...dataOf(this.directMessage.parts),
        ...ids,
      };
    }
    const statusText =
      this.statusMessage === undefined ? '' : partsText(this.statusMessage.parts).trim();
    switch (this.state) {
      case 'TASK_STATE_COMPLETED': {
        const artifacts = [...this.artifacts.values()];
        const result = artifacts.find((artifact) => artifact.name === RESULT_ARTIFACT_NAME);
        // Agents outside the fleet may not name their artifact `result`: take what they sent.
        const parts = result?.parts ?? artifacts.flatMap((artifact) => artifact.parts);
        const summary = partsText(parts).trim() || statusText;
        return { status: 'completed', summary, ...dataOf(parts), ...ids };
      }
      case 'TASK_STATE_FAILED':
        return {
          status: 'failed',
          error: statusText || 'the agent reported the task as failed',
          retryable: this.statusMessage !== undefined && saysRetryable(this.statusMessage.parts),
          ...ids,
        };
      case 'TASK_STATE_REJECTED':
        return {
          status: 'failed',
          error: `the agent rejected the task${statusText ? `: ${statusText}` : ''}`,
          ...ids,
        };
      case 'TASK_STATE_CANCELED':
        return {
          status: 'failed',
          error: `the agent task was canceled${statusText ? `: ${statusText}` : ''}`,
          ...ids,
        };
      case 'TASK_STATE_AUTH_REQUIRED':
      case 'TASK_STATE_INPUT_REQUIRED':
        return {
          status: 'interrupted',
          reason: this.state === 'TASK_STATE_AUTH_REQUIRED' ? 'auth-required' : 'input-required',
          message: statusText,
          ...(this.statusMessage === undefined ? {} : dataOf(this.statusMessage.parts)),
          ...ids,
        };
      case 'TASK_STATE_SUBMITTED':
      case 'TASK_STATE_WORKING':
      case undefined:
        // A stream that ended before any task, or a task that never ended: the connection was lost.
        throw new StreamInterruptedError('The agent’s stream ended before its task finished.', {
          retryable: taskId === undefined,
        });
    }
  }
}

function dataOf(parts: readonly Part[]): { data?: unknown } {
  const part = parts.find((entry) => entry.data !== undefined);
  return part === undefined ? {} : { data: part.data };
}

/** The agent's own statement that a failure is transient: a data part `{ retryable: true }`. */
function saysRetryable(parts: readonly Part[]): boolean {
  return parts.some(
    (part) =>
      typeof part.data === 'object' &&
      part.data !== null &&
      (part.data as Record<string, unknown>)['retryable'] === true,
  );
}
