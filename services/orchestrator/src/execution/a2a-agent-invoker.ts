import { setTimeout as delay } from 'node:timers/promises';
import {
  createMessage,
  dataPart,
  isInterruptedState,
  isTerminalState,
  partsText,
  readHandoffs,
  readReportedUsage,
  readUsageFromParts,
  RESULT_ARTIFACT_NAME,
  TaskNotFoundError,
  textPart,
  UnsupportedOperationError,
  type Artifact,
  type HandoffRequest,
  type Message,
  type Part,
  type StreamResponse,
  type Task,
  type TaskStatus,
  type TokenUsage,
} from '@fleet/a2a';
import { A2AClient, isOversizedSseEvent } from '@fleet/a2a/client';
import {
  FleetError,
  NotFoundError,
  PayloadTooLargeError,
  StreamInterruptedError,
} from '@fleet/errors';
import type { AvailableAgent } from '../discovery';
import type {
  AgentTaskState,
  CancelAgentTask,
  ExistingTask,
  InvokeAgent,
  NodeOutcome,
  StatusFingerprint,
  StepFilePart,
} from './node-outcome';
import { AgentUnavailableError } from './agent-unavailable-error';
import { readAgentProgress, type AgentProgress } from './read-agent-progress';
import { MAX_TABLE_ROWS, tableFromFilePart, type StepTable } from '../composing/answer-tables';
import { reportedFailure } from './classify-failure';
import { renderNodeText } from './render-node-text';
import { isRunHandover } from './run-handover';

/** The A2A invoker: an {@link InvokeAgent} that can also cancel a node's agent task. */
export type A2AAgentInvoker = InvokeAgent & {
  cancelTask: CancelAgentTask;
  taskState: AgentTaskState;
};

/** How often a follow of an existing task re-reads it when its stream ends early. */
const FOLLOW_ROUNDS = 3;

/** How often the task of an agent without streaming is read while it runs. */
const POLL_INTERVAL_MS = 1000;

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
  /**
   * Largest event an agent's stream may carry, in bytes: an answer whose files (base64) are
   * larger fails its step ("too large") and the stream is cut there, so memory stays bounded
   * ({@link maxEventBytesForRunFiles}). @default 4 MiB (the A2A client's)
   */
  maxEventBytes?: number | undefined;
}

/**
 * The event size an agent's answer needs to carry files of `runFileBytes` bytes in all: base64
 * makes four characters of every three bytes, and a MiB is left for the rest of the event.
 *
 * @example
 * maxEventBytesForRunFiles(32 * 1024 * 1024); // 45 MiB
 */
export function maxEventBytesForRunFiles(runFileBytes: number): number {
  return Math.ceil((runFileBytes * 4) / 3) + 1024 * 1024;
}

/**
 * The production {@link InvokeAgent}: sends the node's message (text part: task plus the
 * dependencies' summaries; data part: `{ fleet: … }`) with `SendStreamingMessage` to one replica of
 * the agent (round-robin), follows the task to its end — recovering with `GetTask` /
 * `SubscribeToTask` when a stream is cut — and reads the `result` artifact. An agent that streams
 * its answer (artifact chunks) has each new piece of text reported to `onText` as it arrives, and
 * what it says it is doing (a WORKING status whose message has text) to `onProgress`. When
 * the node is aborted (time-out or cancel) it cancels the remote task, best-effort.
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
  maxEventBytes,
}: A2AAgentInvokerOptions): A2AAgentInvoker {
  const clientForAgent = agentClients({ findAgent, token, timeoutMs, maxEventBytes });
  const cancelRemote = (client: A2AClient, taskId: string): void =>
    cancelRemoteTask(client, taskId, { logger, cancelTimeoutMs });

  const invokeAgent: InvokeAgent = async ({
    node,
    input,
    files = [],
    signal,
    onTask,
    onText,
    onProgress,
    existingTask,
  }): Promise<NodeOutcome> => {
    const client = await clientForAgent(node.agent);
    const tracker = new TaskTracker(onTask, onText, onProgress);
    try {
      if (existingTask === undefined) {
        const message = createMessage({
          parts: [
            textPart(renderNodeText({ node, dependencyOutputs: input.fleet.dependencyOutputs })),
            dataPart(input),
            ...files,
          ],
        });
        await tracker.follow(sendTurn(client, message, signal));
        if (!tracker.done && tracker.taskId !== undefined) {
          await recover({ client, tracker, signal });
        }
      } else {
        await continueExisting({ client, tracker, existingTask, signal, agent: node.agent });
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

  const taskState: AgentTaskState = async ({ agent, taskId, signal }) => {
    let client: A2AClient;
    try {
      client = await clientForAgent(agent);
    } catch {
      return undefined;
    }
    try {
      const task = await client.getTask(
        { id: taskId, historyLength: 0 },
        { timeoutMs: cancelTimeoutMs, ...(signal === undefined ? {} : { signal }) },
      );
      return task.status.state;
    } catch (error) {
      if (FleetError.isInstance(error) && error.code === 'NOT_FOUND') return 'gone';
      logger.debug({ taskId, agent, err: error }, 'could not read the agent task');
      return undefined;
    }
  };
  return Object.assign(invokeAgent, { cancelTask, taskState });
}

/**
 * A client for one replica of the named agent, replicas taken in turn (round-robin); one client
 * per replica URL, made again when the replica's card changes. `AgentUnavailableError` when the
 * directory does not know the agent.
 */
function agentClients({
  findAgent,
  token,
  timeoutMs,
  maxEventBytes,
}: Pick<A2AAgentInvokerOptions, 'findAgent' | 'token' | 'maxEventBytes'> & {
  timeoutMs: number;
}): (name: string) => Promise<A2AClient> {
  const clients = new Map<string, A2AClient>();
  const turns = new Map<string, number>();

  const clientFor = (replica: AvailableAgent['replicas'][number]): A2AClient => {
    let client = clients.get(replica.url);
    if (client === undefined || client.card !== replica.card) {
      // The executor owns retries: the client must not retry on its own as well.
      client = new A2AClient({
        card: replica.card,
        token,
        timeoutMs,
        maxRetries: 0,
        ...(maxEventBytes === undefined ? {} : { maxEventBytes }),
      });
      clients.set(replica.url, client);
    }
    return client;
  };

  const pickReplica = (agent: AvailableAgent): AvailableAgent['replicas'][number] => {
    const turn = turns.get(agent.name) ?? 0;
    turns.set(agent.name, turn + 1);
    return agent.replicas[turn % agent.replicas.length] ?? { url: agent.url, card: agent.card };
  };

  return async (name) => {
    const agent = await findAgent(name);
    if (agent === undefined) {
      throw new AgentUnavailableError(name);
    }
    return clientFor(pickReplica(agent));
  };
}

/** Cancels the agent's task, best-effort: the outcome is only logged, and not waited for. */
function cancelRemoteTask(
  client: A2AClient,
  taskId: string,
  {
    logger,
    cancelTimeoutMs,
  }: { logger: A2AAgentInvokerOptions['logger']; cancelTimeoutMs: number },
): void {
  client.cancelTask({ id: taskId }, { timeoutMs: cancelTimeoutMs }).then(
    () => logger.debug({ taskId, agent: client.card?.name }, 'canceled the agent task'),
    (error: unknown) =>
      logger.debug(
        { taskId, agent: client.card?.name, err: error },
        'could not cancel the agent task',
      ),
  );
}

/**
 * Goes on with a task that exists: sends the continuation (an approval decision or an answer; with
 * `onlyIfStill`, only while the task still shows the very status it answers — a re-send after a
 * crash, with the same message id) and follows the task to its end. Events still showing the
 * status the continuation answers do not count until the agent has taken it.
 */
async function continueExisting({
  client,
  tracker,
  existingTask,
  signal,
  agent,
}: {
  client: A2AClient;
  tracker: TaskTracker;
  existingTask: ExistingTask;
  signal: AbortSignal;
  agent: string;
}): Promise<void> {
  const { taskId, continuation, answered, onlyIfStill = false } = existingTask;
  tracker.adopt(taskId, answered);
  try {
    let send = continuation !== undefined;
    if (send && onlyIfStill) {
      const task = await client.getTask({ id: taskId, historyLength: 0 }, { signal });
      send = answered !== undefined && sameStatus(task.status, answered);
      if (!send) tracker.applyTask(task);
    }
    if (send && continuation !== undefined) {
      const message = createMessage({ taskId, parts: continuation.parts });
      message.messageId = continuation.messageId;
      await tracker.follow(sendTurn(client, message, signal));
    }
    if (!tracker.done) await recover({ client, tracker, signal });
  } catch (error) {
    if (error instanceof TaskNotFoundError) {
      throw new NotFoundError(
        `its agent task ${taskId} is gone (${agent} no longer knows it), so what became of the step is unknown; it is not sent again`,
        { cause: error },
      );
    }
    throw error;
  }
}

/** True when the agent's card declares streaming (SSE); without it only unary calls work. */
function streams(client: A2AClient): boolean {
  return client.card?.capabilities.streaming === true;
}

/**
 * Sends one message: `SendStreamingMessage` to an agent whose card declares streaming, else a
 * blocking `SendMessage` whose answer (the task, or a direct message) is the turn's one event.
 */
async function* sendTurn(
  client: A2AClient,
  message: Message,
  signal: AbortSignal,
): AsyncGenerator<StreamResponse, void, undefined> {
  if (streams(client)) {
    yield* client.sendStreamingMessage({ message }, { signal });
    return;
  }
  const answer = await client.sendMessage({ message }, { signal });
  yield 'status' in answer ? { task: answer } : { message: answer };
}

/** True when a task status is the one recorded (same state; same message id and time where known). */
function sameStatus(status: TaskStatus, recorded: StatusFingerprint): boolean {
  if (status.state !== recorded.state) return false;
  const messageId = status.message?.messageId;
  if (recorded.messageId !== undefined && messageId !== undefined) {
    return recorded.messageId === messageId;
  }
  if (recorded.timestamp !== undefined && status.timestamp !== undefined) {
    return recorded.timestamp === status.timestamp;
  }
  return true;
}

/** How a task status is recognised again. */
function fingerprintOf(status: TaskStatus): StatusFingerprint {
  return {
    state: status.state,
    ...(status.timestamp === undefined ? {} : { timestamp: status.timestamp }),
    ...(status.message?.messageId === undefined ? {} : { messageId: status.message.messageId }),
  };
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
  if (!streams(client)) {
    // No SubscribeToTask without streaming: read the task until it ends (the node's time-out
    // bounds the wait).
    for (;;) {
      tracker.applyTask(await client.getTask({ id, historyLength: 0 }, { signal }));
      if (tracker.done) return;
      await delay(POLL_INTERVAL_MS, undefined, { signal });
    }
  }
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
  private status: TaskStatus | undefined;
  private directMessage: Message | undefined;
  /** The latest message the agent sent alongside a task (not a status): kept as a fallback text. */
  private agentMessage: Message | undefined;
  private readonly artifacts = new Map<string, Artifact>();
  /** The interrupted status a continuation answers, until the agent shows it has taken it. */
  private answered: StatusFingerprint | undefined;

  /** The answer text already reported to `onText`. */
  private surfaced = '';
  /** True once the agent sent an artifact in chunks (it streams its answer). */
  private streaming = false;
  /** The usage on the status update that ended the turn (docs/a2a.md §8, "Usage"). */
  private statusUsage: TokenUsage | undefined;
  /** The usage on the `result` artifact. */
  private artifactUsage: TokenUsage | undefined;

  constructor(
    private readonly onTask: ((taskId: string) => void) | undefined,
    private readonly onText?: ((text: string) => void) | undefined,
    private readonly onProgress?: ((progress: AgentProgress) => void) | undefined,
  ) {}

  get taskId(): string | undefined {
    return this.id;
  }

  private setTaskId(taskId: string): void {
    if (this.id !== undefined) return;
    this.id = taskId;
    this.onTask?.(taskId);
  }

  /**
   * Follows a task that already exists (its id is known, nobody needs telling). With `answered`,
   * the status a continuation answers: until the agent has taken it, a snapshot of that status is
   * not a new request (an `@a2a-js/sdk` agent begins every turn by re-publishing its task).
   */
  adopt(taskId: string, answered?: StatusFingerprint): void {
    this.id = taskId;
    this.answered = answered;
  }

  get done(): boolean {
    const state = this.status?.state;
    return (
      this.directMessage !== undefined ||
      (state !== undefined && (isTerminalState(state) || isInterruptedState(state)))
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
      if (isOversizedSseEvent(error)) {
        // Reading the task again would bring the same answer: the step fails, memory bounded.
        const limit = (error as FleetError).details?.['maxEventBytes'];
        throw new PayloadTooLargeError(
          `the agent's answer is larger than the ${typeof limit === 'number' ? `${limit} bytes` : 'size'} an answer may have (with its files over the run's file limit), so it was cut off`,
          { cause: error, retryable: false },
        );
      }
      if (error instanceof StreamInterruptedError && this.taskId !== undefined) return;
      throw error;
    }
  }

  apply(event: StreamResponse): void {
    if ('task' in event) this.applyTask(event.task);
    else if ('message' in event) {
      // A Message instead of a Task ends the exchange; one that comes beside a task is talk.
      if (this.id === undefined) this.directMessage = event.message;
      else this.agentMessage = event.message;
    } else if ('statusUpdate' in event) {
      this.setTaskId(event.statusUpdate.taskId);
      if (this.applyStatus(event.statusUpdate.status)) {
        this.statusUsage = readReportedUsage(event.statusUpdate.metadata) ?? this.statusUsage;
      }
    } else {
      this.setTaskId(event.artifactUpdate.taskId);
      this.answered = undefined; // the agent is working on it
      const { append, lastChunk } = event.artifactUpdate;
      // A chunk of an answer being written: from here on its text is reported as it grows.
      if (append === true || lastChunk === false) this.streaming = true;
      this.applyArtifact(event.artifactUpdate.artifact, append === true);
    }
  }

  applyTask(task: Task): void {
    this.setTaskId(task.id);
    if (!this.applyStatus(task.status)) return;
    for (const artifact of task.artifacts ?? []) {
      this.artifacts.set(artifact.artifactId, artifact);
      this.noteArtifactUsage(artifact);
    }
    this.surface();
  }

  /**
   * Reports the answer's new text to `onText`, once the agent streams (an artifact chunk came:
   * `append`, or `lastChunk: false`): the `result` artifact's text parts joined (or, from an agent
   * that does not name its artifact, the one artifact it sent), as far as it extends what was
   * reported before. An answer sent whole is not reported: the node's outcome carries it.
   */
  private surface(): void {
    if (this.onText === undefined || !this.streaming) return;
    const artifacts = [...this.artifacts.values()];
    const chosen =
      artifacts.find((artifact) => artifact.name === RESULT_ARTIFACT_NAME) ??
      (artifacts.length === 1 ? artifacts[0] : undefined);
    if (chosen === undefined) return;
    const text = chosen.parts.map((part) => part.text ?? '').join('');
    if (text.length <= this.surfaced.length || !text.startsWith(this.surfaced)) return;
    const piece = text.slice(this.surfaced.length);
    this.surfaced = text;
    this.onText(piece);
  }

  /** Takes a status unless it is the stale one a continuation answered; false when skipped. */
  private applyStatus(status: TaskStatus): boolean {
    const answered = this.answered;
    if (answered !== undefined) {
      // The status we answered, repeated (an `@a2a-js/sdk` agent re-publishes its task first on
      // every turn): same state and, where the agent gave them, same message id or time.
      const stale = sameStatus(status, answered);
      if (stale) return false;
      this.answered = undefined;
    }
    this.status = status;
    if (status.state === 'TASK_STATE_WORKING' && this.onProgress !== undefined) {
      // What the agent says it is doing: read liberally; a status without text says nothing.
      const progress = readAgentProgress(status.message?.parts);
      if (progress !== undefined) this.onProgress(progress);
    }
    return true;
  }

  /** Keeps the usage a `result` artifact (or a chunk of it) reports. */
  private noteArtifactUsage(artifact: Artifact): void {
    if (artifact.name !== undefined && artifact.name !== RESULT_ARTIFACT_NAME) return;
    this.artifactUsage = readReportedUsage(artifact.metadata) ?? this.artifactUsage;
  }

  /**
   * The usage the agent reported for the turns followed: the status update that ended the turn
   * (the whole turn's calls), else the `result` artifact's metadata, else — liberal in what we
   * accept — a `usage` field in the result's data part (an agent outside the fleet).
   */
  private reportedUsage(parts: readonly Part[]): TokenUsage | undefined {
    return this.statusUsage ?? this.artifactUsage ?? readUsageFromParts(parts);
  }

  /** Adds an artifact, or — `append` — its parts to the one sent before (text chunks joined). */
  private applyArtifact(artifact: Artifact, append: boolean): void {
    this.noteArtifactUsage(artifact);
    const existing = this.artifacts.get(artifact.artifactId);
    if (!append || existing === undefined) {
      this.artifacts.set(artifact.artifactId, artifact);
      this.surface();
      return;
    }
    const parts = [...existing.parts];
    for (const part of artifact.parts) {
      const last = parts.at(-1);
      if (isPlainText(last) && isPlainText(part)) {
        parts[parts.length - 1] = { ...last, text: `${last.text}${part.text}` };
      } else {
        parts.push(part);
      }
    }
    this.artifacts.set(artifact.artifactId, { ...existing, ...artifact, parts });
    this.surface();
  }

  outcome(): NodeOutcome {
    const outcome = this.endedAs();
    const usage =
      this.directMessage === undefined
        ? this.reportedUsage(outcome.status === 'completed' ? this.resultParts() : [])
        : (readReportedUsage(this.directMessage.metadata) ??
          readUsageFromParts(this.directMessage.parts));
    return usage === undefined ? outcome : { ...outcome, usage };
  }

  /** The parts of the artifacts the answer is read from (see {@link endedAs}). */
  private resultParts(): Part[] {
    const artifacts = [...this.artifacts.values()];
    const result = artifacts.find((artifact) => artifact.name === RESULT_ARTIFACT_NAME);
    return (result === undefined ? artifacts : [result]).flatMap((artifact) => artifact.parts);
  }

  private endedAs(): NodeOutcome {
    const taskId = this.taskId;
    const ids = taskId === undefined ? {} : { taskId };
    if (this.directMessage !== undefined) {
      return {
        status: 'completed',
        summary: partsText(this.directMessage.parts),
        ...dataOf(this.directMessage.parts),
        ...filesOf(this.directMessage.parts),
        ...handoffsOf(this.directMessage.parts),
        ...ids,
      };
    }
    const status = this.status;
    const statusParts = status?.message?.parts ?? [];
    const statusText =
      partsText(statusParts).trim() ||
      (this.agentMessage === undefined ? '' : partsText(this.agentMessage.parts).trim());
    switch (status?.state) {
      case 'TASK_STATE_COMPLETED': {
        const artifacts = [...this.artifacts.values()];
        const result = artifacts.find((artifact) => artifact.name === RESULT_ARTIFACT_NAME);
        // Agents outside the fleet may not name their artifact `result`: take all they sent.
        const chosen = result === undefined ? artifacts : [result];
        // The text parts of one artifact are one text (chunks appended by streaming agents, or
        // kept as separate parts by a store's snapshot); separate artifacts are paragraphs.
        const summary =
          chosen
            .map((artifact) => artifactText(artifact))
            .filter((text) => text !== '')
            .join('\n\n') || statusText;
        return {
          status: 'completed',
          summary,
          ...dataOf(chosen.flatMap((artifact) => artifact.parts)),
          ...tablesOf(chosen.flatMap((artifact) => artifact.parts)),
          ...filesOf(artifacts.flatMap((artifact) => artifact.parts)),
          // A hand-off may come in any artifact or in the final status message.
          ...handoffsOf([...artifacts.flatMap((artifact) => artifact.parts), ...statusParts]),
          ...ids,
        };
      }
      case 'TASK_STATE_FAILED':
        return {
          status: 'failed',
          error: statusText || 'the agent reported the task as failed',
          retryable: saysRetryable(statusParts),
          failure: reportedFailure(statusParts),
          ...ids,
        };
      case 'TASK_STATE_REJECTED':
        return {
          status: 'failed',
          rejected: true,
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
          reason: status.state === 'TASK_STATE_AUTH_REQUIRED' ? 'auth-required' : 'input-required',
          message: statusText,
          parts: statusParts,
          asked: fingerprintOf(status),
          ...dataOf(statusParts),
          ...ids,
        };
      case 'TASK_STATE_SUBMITTED':
      case 'TASK_STATE_WORKING':
      case undefined:
        // A stream that ended before any task, or a task that never ended: the connection was lost.
        throw new StreamInterruptedError(
          taskId === undefined
            ? 'The agent’s stream ended before it created a task.'
            : 'The agent’s stream ended before its task finished, and the task did not finish when read again.',
          { retryable: taskId === undefined },
        );
    }
  }
}

function artifactText(artifact: Artifact): string {
  return artifact.parts
    .map((part) => part.text ?? '')
    .join('')
    .trim();
}

function isPlainText(part: Part | undefined): part is Part & { text: string } {
  return (
    part !== undefined &&
    part.text !== undefined &&
    part.data === undefined &&
    part.raw === undefined &&
    part.url === undefined
  );
}

/** The first data part's data, a hand-off excepted (it asks for more work; it is not the result's data). */
function dataOf(parts: readonly Part[]): { data?: unknown } {
  const part = parts.find((entry) => entry.data !== undefined && !isHandoffData(entry.data));
  return part === undefined ? {} : { data: part.data };
}

function isHandoffData(data: unknown): boolean {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return false;
  return 'handoff' in data || 'handoffs' in data;
}

/** The hand-offs the parts ask for, and those that did not read (`readHandoffs`); none: nothing. */
function handoffsOf(parts: readonly Part[]): {
  handoffs?: HandoffRequest[];
  handoffsRefused?: string[];
} {
  const { requests, refused } = readHandoffs(parts);
  return {
    ...(requests.length === 0 ? {} : { handoffs: requests }),
    ...(refused.length === 0 ? {} : { handoffsRefused: refused }),
  };
}

/** The tables of the CSV/TSV file parts (each parsed from its first MiB, first rows kept). */
function tablesOf(parts: readonly Part[]): { tables?: StepTable[] } {
  const tables = parts.flatMap((part) => {
    if (part.raw === undefined) return [];
    const table = tableFromFilePart(part, MAX_TABLE_ROWS);
    return table === undefined ? [] : [table];
  });
  return tables.length === 0 ? {} : { tables: tables.slice(0, MAX_FILE_TABLES) };
}

/**
 * The file parts of the task's artifacts, all of them (an agent outside the fleet may name its
 * artifacts otherwise, or send several): inline bytes, or a URL (noted, never fetched).
 */
function filesOf(parts: readonly Part[]): { files?: StepFilePart[] } {
  const files = parts.flatMap((part): StepFilePart[] => {
    if (part.raw === undefined && part.url === undefined) return [];
    return [
      {
        ...(part.filename === undefined ? {} : { filename: part.filename }),
        ...(part.mediaType === undefined ? {} : { mediaType: part.mediaType }),
        ...(part.raw === undefined ? {} : { raw: part.raw }),
        ...(part.raw !== undefined || part.url === undefined ? {} : { url: part.url }),
      },
    ];
  });
  return files.length === 0 ? {} : { files };
}

/** The most CSV/TSV file parts of one result that are read as tables. */
const MAX_FILE_TABLES = 5;

/** The agent's own statement that a failure is transient: a data part `{ retryable: true }`. */
function saysRetryable(parts: readonly Part[]): boolean {
  return parts.some(
    (part) =>
      typeof part.data === 'object' &&
      part.data !== null &&
      (part.data as Record<string, unknown>)['retryable'] === true,
  );
}
