import { randomUUID } from 'node:crypto';
import {
  dataPart,
  findData,
  orchestrateRequestSchema,
  partsText,
  textPart,
  type OrchestrateRequest,
  type ProgressEvent,
} from '@fleet/a2a';
import type { AgentContext, AgentEvent, AgentExecute } from '@fleet/a2a/server';
import { FleetError, NotFoundError, ValidationError } from '@fleet/errors';
import type { Lease, Session, SessionStore } from '@fleet/sessions';
import {
  SpanKind,
  setSessionAttributes,
  setSpanOutput,
  withBaggage,
  withSpan,
} from '@fleet/telemetry';
import type { ComposerLlm } from '../composing';
import type { AvailableAgent } from '../discovery';
import {
  RunHandover,
  type AgentBreakers,
  type CancelAgentTask,
  type InvokeAgent,
  type RetryOptions,
  type Scheduling,
} from '../execution';
import { readMemoryUser, type MemoryServices } from '../memory';
import type { AskPlanner } from '../planning';
import { describeProgress } from './describe-progress';
import { EventQueue } from './event-queue';
import { orchestrateRun } from './orchestrate-run';
import type { RunContext, RunLogger } from './run-context';
import { storedResult } from './run-result';
import { watchSession } from './session-watch';
import { createSessionWriter } from './session-writer';

/** Everything the orchestrator agent is built from. */
export interface OrchestratorAgentOptions {
  sessions: SessionStore;
  /** The healthy agents (discovery). */
  availableAgents: () => Promise<AvailableAgent[]>;
  askPlanner: AskPlanner;
  invokeAgent: InvokeAgent;
  /** Cancels a node's agent task (a run canceled while the node waits for approval). */
  cancelAgentTask?: CancelAgentTask | undefined;
  /** Shared by every run of this process. */
  breakers: AgentBreakers;
  /**
   * Undefined in offline mode: answers are composed from the agents' own results and approvers'
   * instructions always `enhance` the task.
   */
  llm?: ComposerLlm | undefined;
  logger: RunLogger;
  /** @default 'dependency' */
  scheduling?: Scheduling | undefined;
  /** Per attempt of a node. @default 120000 */
  nodeTimeoutMs?: number | undefined;
  retry?: RetryOptions | undefined;
  /** How long a person has to decide an approval (HITL_TIMEOUT_SECONDS). @default 120 */
  hitlTimeoutSeconds?: number | undefined;
  /** This process, in the owner of its runner leases. @default a random UUID */
  instanceId?: string | undefined;
  /** The runner lease's TTL; the lease is renewed every third of it. @default 15000 */
  runnerLeaseMs?: number | undefined;
  /**
   * Long-term memory: read for every run's user (`fleet.user`), extracted from the request beside
   * planning, given to every node and to the composer. Undefined: no memory.
   */
  memory?: MemoryServices | undefined;
}

/** The orchestrator agent: its A2A `execute`, and the hand-over of its runs at shutdown. */
export interface OrchestratorAgent {
  execute: AgentExecute;
  /**
   * Stops every run of this process without ending its session (graceful shutdown): agent tasks
   * are left running, nothing more is recorded, and the runner leases are released, so another
   * orchestrator can resume the sessions (`resumeSessionId`). Resolves once the runs stopped.
   */
  handOver(): Promise<void>;
}

/** The reason a run is canceled with when its session is canceled elsewhere. */
const SESSION_CANCELED = 'The session was canceled.';

/**
 * The orchestrator as an A2A agent (docs/architecture.md §4–6). The message's text part is the
 * request and its data part `{ fleet: { tenant, history?, plan?, planApproval?, resumeSessionId? } }`.
 *
 * A new run creates its session, takes the session's runner lease (renewed while it runs), streams
 * progress as WORKING status updates (a readable line plus `{ progress: ProgressEvent }`), plans
 * (or takes the given plan), asks for plan approval when required, executes the DAG — a node
 * whose agent asks for approval waits for a person while the other branches go on — composes the
 * answer, and ends with the `result` artifact (text: the answer; data: a `RunResult`) and
 * COMPLETED.
 *
 * `resumeSessionId` continues a session instead (the text part is ignored):
 * - unknown, expired or another tenant's session: FAILED (`Session … does not exist or has expired.`);
 * - completed: its stored result at once (`run-start`, `run-end`, the `result` artifact, COMPLETED);
 *   failed or canceled: `run-end` and FAILED / CANCELED with the session's error;
 * - run by another live orchestrator (its runner lease is held): FAILED at once, with a data part
 *   `{ runningElsewhere: { sessionId, taskId? } }` naming the orchestrator task that runs it (the
 *   session's `taskId`), to follow with SubscribeToTask;
 * - otherwise the run goes on from the recorded state, streaming `run-start`, a line saying where
 *   the session stands, `plan-end` with the recorded plan, and then the same events as a new run.
 *
 * The run does not belong to the stream: it goes on, and records everything in its session, when
 * the caller stops reading (or sent `returnImmediately`). CancelTask, or `session-canceled` on the
 * session's channel, stops it: pending approvals are marked `denied` ("session canceled"), the
 * session `canceled`, and `session-canceled` is published so a run on another replica stops too.
 *
 * @example
 * const agent = createOrchestratorAgent(options);
 * const handler = createA2AHandler({ card, execute: agent.execute, store, cancelOnDisconnect: false });
 */
export function createOrchestratorAgent(options: OrchestratorAgentOptions): OrchestratorAgent {
  const {
    sessions,
    logger,
    instanceId = randomUUID(),
    runnerLeaseMs = 15_000,
    hitlTimeoutSeconds = 120,
  } = options;
  const active = new Map<string, { stop: (reason: RunHandover) => void; done: Promise<void> }>();

  async function* execute(context: AgentContext): AsyncGenerator<AgentEvent> {
    const input = findData(context.message.parts, orchestrateRequestSchema);
    if (input === undefined) {
      throw new ValidationError(
        'The message needs a data part { "fleet": { "tenant": "…", "history"?: […], "plan"?: {…}, "planApproval"?: "required" | "none", "resumeSessionId"?: "…" } } beside the request text.',
      );
    }
    const fleet = input.fleet;
    const memoryUser = readMemoryUser(context.message.parts);
    let session: Session;
    const resumed = fleet.resumeSessionId !== undefined;
    if (fleet.resumeSessionId !== undefined) {
      session = await sessions.getForTenant(fleet.resumeSessionId, fleet.tenant);
      const finished = finishedSessionEvents(session);
      if (finished !== undefined) {
        yield* finished;
        return;
      }
    } else {
      const request = partsText(context.message.parts).trim();
      if (request === '') throw new ValidationError('The message has no request text.');
      session = await sessions.create({
        tenant: fleet.tenant,
        request,
        history: fleet.history,
        planApproval: fleet.planApproval === 'required',
      });
    }

    const lease = await sessions.acquireRunner(
      session.id,
      `${instanceId}:${context.taskId}`,
      runnerLeaseMs,
    );
    if (lease === undefined) {
      yield runningElsewhere(session);
      return;
    }
    if (resumed) {
      // Read it again under the lease: the previous runner may have finished it in between.
      const current = await sessions.get(session.id);
      const finished = current === undefined ? undefined : finishedSessionEvents(current);
      if (current === undefined || finished !== undefined) {
        await lease.release().catch(() => undefined);
        if (current === undefined) {
          throw new NotFoundError(`Session ${session.id} does not exist or has expired.`);
        }
        yield* finished ?? [];
        return;
      }
      session = current;
    }

    const queue = new EventQueue<AgentEvent>();
    const controller = new AbortController();
    // Not awaited here: the run outlives this generator if the caller stops reading.
    const done = runInBackground({
      options: { ...options, hitlTimeoutSeconds, runnerLeaseMs },
      context,
      input: fleet,
      memoryUser,
      session,
      resumed,
      lease,
      queue,
      controller,
    }).finally(() => active.delete(context.taskId));
    active.set(context.taskId, {
      stop: (reason) => {
        if (!controller.signal.aborted) controller.abort(reason);
      },
      done,
    });
    for await (const event of queue) yield event;
  }

  return {
    execute,
    async handOver() {
      const runs = [...active.values()];
      const reason = new RunHandover(
        'The orchestrator is shutting down; the session can be resumed by another one.',
      );
      for (const run of runs) run.stop(reason);
      await Promise.all(runs.map((run) => run.done.catch(() => undefined)));
      logger.info({ runs: runs.length, instanceId }, 'handed the running sessions over');
    },
  };
}

/** The answer to a resume of a session that has ended; undefined while it is still open. */
function finishedSessionEvents(session: Session): AgentEvent[] | undefined {
  const metadata = { sessionId: session.id };
  const line = (event: ProgressEvent): AgentEvent => ({
    type: 'status',
    state: 'TASK_STATE_WORKING',
    message: [textPart(describeProgress(event)), dataPart({ progress: event })],
    metadata,
  });
  const start = line({ type: 'run-start', sessionId: session.id });
  switch (session.status) {
    case 'running':
    case 'waiting_approval':
    case 'waiting_input':
      return undefined;
    case 'completed': {
      const stored = storedResult(session);
      if (stored !== undefined) {
        return [
          start,
          line({ type: 'run-end', state: 'completed' }),
          {
            type: 'artifact',
            artifact: { name: 'result', parts: [textPart(stored.text), dataPart(stored.result)] },
            lastChunk: true,
          },
          { type: 'status', state: 'TASK_STATE_COMPLETED', metadata },
        ];
      }
      return [
        start,
        line({ type: 'run-end', state: 'failed' }),
        {
          type: 'status',
          state: 'TASK_STATE_FAILED',
          message: `Session ${session.id} completed, but its result is missing.`,
          metadata,
        },
      ];
    }
    case 'failed': {
      // A run whose every step failed keeps its answer (what failed and why) beside the failure.
      const stored = storedResult(session);
      return [
        start,
        line({ type: 'run-end', state: 'failed' }),
        ...(stored === undefined
          ? []
          : [
              {
                type: 'artifact' as const,
                artifact: {
                  name: 'result',
                  parts: [textPart(stored.text), dataPart(stored.result)],
                },
                lastChunk: true,
              },
            ]),
        {
          type: 'status',
          state: 'TASK_STATE_FAILED',
          message: session.error ?? `Session ${session.id} failed.`,
          metadata,
        },
      ];
    }
    case 'canceled':
      return [
        start,
        line({ type: 'run-end', state: 'canceled' }),
        {
          type: 'status',
          state: 'TASK_STATE_CANCELED',
          message: session.error ?? SESSION_CANCELED,
          metadata,
        },
      ];
  }
}

/** The answer to a resume of a session another orchestrator is running. */
function runningElsewhere(session: Session): AgentEvent {
  const taskId = session.taskId;
  return {
    type: 'status',
    state: 'TASK_STATE_FAILED',
    message: [
      textPart(
        `Session ${session.id} is running on another orchestrator${taskId === undefined ? '' : ` (task ${taskId})`}; follow that task (SubscribeToTask) instead of resuming it.`,
      ),
      dataPart({
        runningElsewhere: { sessionId: session.id, ...(taskId === undefined ? {} : { taskId }) },
      }),
    ],
    metadata: {
      sessionId: session.id,
      runningElsewhere: true,
      ...(taskId === undefined ? {} : { runnerTaskId: taskId }),
    },
  };
}

interface BackgroundRun {
  options: OrchestratorAgentOptions & { hitlTimeoutSeconds: number; runnerLeaseMs: number };
  context: AgentContext;
  input: OrchestrateRequest;
  /** `fleet.user`, whose long-term memory the run uses. */
  memoryUser: string | undefined;
  session: Session;
  resumed: boolean;
  lease: Lease;
  queue: EventQueue<AgentEvent>;
  /** The run's own signal: aborted by CancelTask, `session-canceled`, or a hand-over. */
  controller: AbortController;
}

/** Runs a session to its end (or hand-over), holding its runner lease the whole time. */
async function runInBackground(background: BackgroundRun): Promise<void> {
  const { options, context, session, queue, controller, lease } = background;
  const { logger, sessions } = options;
  const sessionId = session.id;
  const log = { sessionId, taskId: context.taskId };
  let canceledElsewhere = false;
  let leaseLost = false;
  const abort = (reason: unknown): void => {
    if (!controller.signal.aborted) controller.abort(reason);
  };
  const onTaskAbort = (): void => abort(context.signal.reason);
  context.signal.addEventListener('abort', onTaskAbort, { once: true });
  if (context.signal.aborted) onTaskAbort();

  // Renewed every third of its TTL. A lease that could not be renewed for half its TTL (Redis is
  // unreachable) is as good as lost: the run stops here — its client gets a clear end instead of
  // keep-alives forever — and the recovery sweep resumes the session once Redis is back.
  let renewedAt = Date.now();
  const renewal = setInterval(
    () => {
      lease.renew().then(
        (held) => {
          if (held) {
            renewedAt = Date.now();
            return;
          }
          leaseLost = true;
          logger.warn(log, 'lost the runner lease; handing the session over');
          abort(new RunHandover('This orchestrator lost the session’s runner lease.'));
        },
        (error: unknown) => {
          logger.warn({ ...log, err: error }, 'could not renew the runner lease');
          // Half a TTL without a renewal: stop while the lease surely still holds (no other
          // runner can have taken over), rather than at its very end.
          if (Date.now() - renewedAt < options.runnerLeaseMs / 2 || leaseLost) return;
          leaseLost = true;
          abort(
            new RunHandover(
              'Redis is unreachable, so the session cannot be kept; it goes on where it stopped once Redis is back.',
            ),
          );
        },
      );
    },
    Math.max(1, Math.floor(options.runnerLeaseMs / 3)),
  );
  renewal.unref();

  const progress = (event: ProgressEvent): void => {
    queue.push({
      type: 'status',
      state: 'TASK_STATE_WORKING',
      message: [textPart(describeProgress(event)), dataPart({ progress: event })],
      metadata: { sessionId },
    });
  };
  const writer = createSessionWriter({ sessions, sessionId, logger, log });
  try {
    const watch = await watchSession({
      sessions,
      sessionId,
      logger,
      onCanceled: () => {
        canceledElsewhere = true;
        abort(new Error(SESSION_CANCELED));
      },
    });
    try {
      const run: RunContext = {
        sessions,
        sessionId,
        signal: controller.signal,
        writer,
        watch,
        progress,
        hitlTimeoutMs: options.hitlTimeoutSeconds * 1000,
        llm: options.llm,
        cancelAgentTask: options.cancelAgentTask,
        logger,
        log,
      };
      await withBaggage({ 'session.id': sessionId, 'user.id': session.tenant }, () =>
        withSpan(
          {
            name: background.resumed ? 'orchestrator.resume' : 'orchestrator.run',
            kind: SpanKind.CHAIN,
            input: session.request,
          },
          async (span) => {
            setSessionAttributes(span, { sessionId, userId: session.tenant });
            const answer = await orchestrateRun({
              run,
              options,
              session,
              input: background.input,
              resumed: background.resumed,
              taskId: context.taskId,
              queue,
              canceledElsewhere: () => canceledElsewhere,
              memoryUser: background.memoryUser,
            });
            setSpanOutput(span, answer ?? '');
          },
        ),
      );
    } finally {
      await watch.close().catch(() => undefined);
    }
  } catch (error) {
    logger.error({ ...log, err: error }, 'the run failed unexpectedly');
    const message = `The run failed: ${FleetError.isInstance(error) ? error.message : 'internal error'}`;
    if (!controller.signal.aborted) {
      writer.record((draft) => {
        draft.status = 'failed';
        draft.error = message;
      });
      await writer.written();
    }
    queue.push({
      type: 'status',
      state: 'TASK_STATE_FAILED',
      message,
      metadata: { sessionId },
    });
  } finally {
    clearInterval(renewal);
    context.signal.removeEventListener('abort', onTaskAbort);
    if (!leaseLost) await lease.release().catch(() => undefined);
    queue.close();
  }
}
