// One call to a step's agent, with its time-out, its cancel, the run's callbacks and the
// outcome of a call that threw; and the small waits the executor shares.
import type { NodeInput, Part, PlanNode, TokenUsage } from '@fleet/a2a';
import { AbortError, UpstreamTimeoutError } from '@fleet/errors';
import { isBrokenCircuit, type AgentBreakers } from './agent-breakers';
import { AgentUnavailableError } from './agent-unavailable-error';
import { classifyFailure } from './classify-failure';
import type { ExecutePlanOptions } from './execute-plan-types';
import type { ExistingTask, NodeOutcome } from './node-outcome';
import type { AgentProgress } from './read-agent-progress';
import { isRunHandover } from './run-handover';

/** One call to the agent; thrown failures are turned into `failed` outcomes here. */
export async function callAgent({
  node,
  input,
  attempt,
  options,
  breakers,
  onTask,
  existingTask,
  files,
}: {
  node: PlanNode;
  input: NodeInput;
  attempt: number;
  files?: readonly Part[];
  options: ExecutePlanOptions;
  /** Undefined for continuations and follows, which the circuit breaker neither counts nor refuses. */
  breakers: AgentBreakers | undefined;
  onTask?: (taskId: string) => void;
  existingTask?: ExistingTask;
}): Promise<NodeOutcome> {
  const { signal, invokeAgent, timeoutMs = 120_000 } = options;
  const controller = new AbortController();
  const onRunAbort = (): void =>
    controller.abort(
      isRunHandover(signal?.reason) ? signal?.reason : new AbortError('The run was canceled.'),
    );
  signal?.addEventListener('abort', onRunAbort, { once: true });
  const timer = setTimeout(() => {
    controller.abort(
      new UpstreamTimeoutError(
        `no answer from ${node.agent} within ${timeoutMs} ms (attempt ${attempt})`,
      ),
    );
  }, timeoutMs);
  // Once the agent has created a task it has the node's message and may act on it: a failure after
  // that (a time-out, a cut stream) is not retried by sending the message again.
  let taskCreated = false;
  const call = (): Promise<NodeOutcome> =>
    untilAborted(
      invokeAgent({
        node,
        input,
        attempt,
        ...(files === undefined || files.length === 0 ? {} : { files }),
        signal: controller.signal,
        onTask: (taskId) => {
          taskCreated = true;
          onTask?.(taskId);
        },
        ...nodeStreamCallbacks(node, options),
        ...(existingTask === undefined ? {} : { existingTask }),
      }),
      controller.signal,
    );
  const onUsage = (usage: TokenUsage | undefined): void =>
    options.onNodeUsage?.({ nodeId: node.id, agent: node.agent, usage });
  try {
    const outcome = await (breakers === undefined
      ? call()
      : breakers.forAgent(node.agent).execute(call));
    onUsage(outcome.usage);
    return outcome;
  } catch (error) {
    // The agent had the task and may have called a model: what it cost is unknown.
    const reached = taskCreated || existingTask !== undefined;
    if (reached && !(error instanceof AgentUnavailableError)) onUsage(undefined);
    return failedCallOutcome(error, {
      node,
      runAborted: signal?.aborted === true,
      callSignal: controller.signal,
      existingTask,
      taskCreated,
    });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onRunAbort);
  }
}

/** The agent call's callbacks for the text it streams and the progress it reports, when wanted. */
function nodeStreamCallbacks(
  node: PlanNode,
  options: ExecutePlanOptions,
): { onText?: (text: string) => void; onProgress?: (progress: AgentProgress) => void } {
  return {
    ...(options.onNodeText === undefined
      ? {}
      : {
          onText: (text: string) =>
            options.onNodeText?.({ nodeId: node.id, agent: node.agent, text }),
        }),
    ...(options.onNodeProgress === undefined
      ? {}
      : {
          onProgress: ({ text, stage }: AgentProgress) =>
            options.onNodeProgress?.({
              nodeId: node.id,
              agent: node.agent,
              text,
              ...(stage === undefined ? {} : { stage }),
            }),
        }),
  };
}

/**
 * The `failed` outcome of an agent call that threw: an open circuit, a canceled run, or the
 * classified failure — retryable only when transient and the agent never had the message.
 */
function failedCallOutcome(
  error: unknown,
  {
    node,
    runAborted,
    callSignal,
    existingTask,
    taskCreated,
  }: {
    node: PlanNode;
    runAborted: boolean;
    callSignal: AbortSignal;
    existingTask: ExistingTask | undefined;
    taskCreated: boolean;
  },
): NodeOutcome {
  if (isBrokenCircuit(error)) {
    return {
      status: 'failed',
      error: `${node.agent} is failing repeatedly, so its circuit breaker is open; not calling it until it recovers`,
      retryable: false,
      failure: 'fleet',
    };
  }
  if (runAborted) {
    return {
      status: 'failed',
      error: 'the run was canceled',
      retryable: false,
      failure: 'fleet',
    };
  }
  const failure = classifyFailure(callSignal.aborted ? callSignal.reason : error);
  const notSent = error instanceof AgentUnavailableError;
  return {
    status: 'failed',
    error: failure.message,
    retryable: ((existingTask === undefined && !taskCreated) || notSent) && failure.transient,
    failure: notSent ? 'fleet' : failure.failure,
    ...(notSent ? { notSent } : {}),
    ...(existingTask === undefined ? {} : { taskId: existingTask.taskId }),
  };
}

/**
 * Settles with `work`, or rejects with the signal's reason as soon as it aborts: an agent call
 * that ignores its signal must not hold the run past its time-out.
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(toError(signal.reason));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(toError(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(toError(error));
      },
    );
  });
}

/** Reads `aborted` through a call, so TypeScript does not keep a narrowing across awaits. */
export function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

/** Waits `ms` milliseconds; resolves early when the signal aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) {
      resolve();
      return;
    }
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
