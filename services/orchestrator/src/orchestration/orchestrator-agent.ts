import { randomUUID } from 'node:crypto';
import {
  dataPart,
  findData,
  orchestrateRequestSchema,
  partsText,
  textPart,
  type OrchestrateRequest,
  type Part,
  type ProgressEvent,
} from '@fleet/a2a';
import type { AgentContext, AgentEvent, AgentExecute } from '@fleet/a2a/server';
import { NotFoundError, ValidationError } from '@fleet/errors';
import { isAnswered, type Lease, type Session } from '@fleet/sessions';
import { RunHandover, type StepFilePart } from '../execution';
import type { RunReservation } from '../scheduling';
import { readMemoryUser } from '../memory';
import { describeProgress } from './describe-progress';
import { EventQueue } from './event-queue';
import type { OrchestratorAgentOptions } from './orchestrator-agent-options';
import { runInBackground, SESSION_CANCELED } from './run-in-background';
import { storedResult } from './run-result';
import { agentsUnderToolPolicy, guardToolPolicy } from './run-tool-policy';
import { agentsUnderSteering, withSteering } from './run-steering';

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

/**
 * The orchestrator as an A2A agent (docs/architecture.md §4–6). The message's text part is the
 * request and its data part `{ fleet: { tenant, history?, plan?, planApproval?, resultReview?, resumeSessionId?, toolPolicy?, steering? } }`.
 *
 * `toolPolicy` (else the one stored in the session) says which MCP tools the tenant may use: the
 * planner never sees the others, a step naming one fails unsent, and every node input carries it
 * so the tools agent refuses them too. It is stored in the session; a resume that carries one
 * replaces it. `steering` (else the session's) is kept the same way: the planner never sees what
 * it excludes, and is told what it prefers and requires (docs/architecture.md §5, "Agent
 * steering").
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
 * With `scheduler`, a run (new or resumed) waits for its slot before it plans, streaming
 * `queue-start` and `queue-end` when it had to wait (docs/architecture.md §5, "Scheduling"); a new
 * run uses the place `admission` reserved for its message at the A2A edge.
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
    instanceId = randomUUID(),
    runnerLeaseMs = 15_000,
    hitlTimeoutSeconds = 120,
  } = options;
  const active = new Map<string, ActiveRun>();
  // A step naming an MCP tool the run's tool policy refuses never reaches its agent.
  const invokeAgent = guardToolPolicy({
    invokeAgent: options.invokeAgent,
    availableAgents: options.availableAgents,
  });

  async function* execute(context: AgentContext): AsyncGenerator<AgentEvent> {
    // The place kept for this run at the A2A edge; given back unless the run starts.
    const reservation = options.admission?.take(context.message.messageId);
    try {
      yield* executeRun(context, reservation);
    } finally {
      reservation?.cancel();
    }
  }

  async function* executeRun(
    context: AgentContext,
    reservation: RunReservation | undefined,
  ): AsyncGenerator<AgentEvent> {
    const fleet = readFleetRequest(context.message.parts);
    const resumed = fleet.resumeSessionId !== undefined;
    const memoryUser = readMemoryUser(context.message.parts);
    // Files beside the request (attachments): kept as the run's files when it starts.
    const attachments = resumed ? [] : attachmentsOf(context.message.parts);
    const claim = await claimSession({
      sessions,
      fleet,
      context,
      owner: `${instanceId}:${context.taskId}`,
      runnerLeaseMs,
    });
    if ('finished' in claim) {
      yield* claim.finished;
      return;
    }
    const { session, lease } = claim;
    if (lease === undefined) {
      yield runningElsewhere(session);
      return;
    }
    if (resumed) supersede(options, session, context.taskId);

    // The tenant's tool policy: the request's (the gateway sends its current one), else the one
    // the session was started (or last resumed) with — a recovery resume carries none.
    const toolPolicy = fleet.toolPolicy ?? session.toolPolicy;
    // The request's agent steering, else the session's (a resume without one keeps it).
    const steering = fleet.steering ?? session.steering;
    const queue = new EventQueue<AgentEvent>();
    const controller = new AbortController();
    // A resumed session was admitted once: it waits before its tenant's new runs, never refused.
    const ticket =
      reservation?.enqueue() ?? options.scheduler?.enqueue(fleet.tenant, { front: resumed });
    // Not awaited here: the run outlives this generator if the caller stops reading.
    const done = runInBackground({
      options: steeredRunOptions({
        options,
        hitlTimeoutSeconds,
        runnerLeaseMs,
        invokeAgent,
        toolPolicy,
        steering,
      }),
      context,
      input: {
        ...fleet,
        ...(toolPolicy === undefined ? {} : { toolPolicy }),
        ...(steering === undefined ? {} : { steering }),
      },
      memoryUser,
      attachments,
      session,
      resumed,
      lease,
      queue,
      controller,
      ticket,
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
    handOver: () => handOverRuns([...active.values()], options, instanceId),
  };
}

/** A run of this process: how to stop it, and when it is done. */
interface ActiveRun {
  stop: (reason: RunHandover) => void;
  done: Promise<void>;
}

/** The request's `fleet` data part; a `ValidationError` when the message has none. */
function readFleetRequest(parts: readonly Part[]): OrchestrateRequest {
  const input = findData(parts, orchestrateRequestSchema);
  if (input === undefined) {
    throw new ValidationError(
      'The message needs a data part { "fleet": { "tenant": "…", "history"?: […], "plan"?: {…}, "planApproval"?: "required" | "none", "resultReview"?: "required" | "none", "resumeSessionId"?: "…", "toolPolicy"?: { "allow"?: […], "deny"?: […] }, "steering"?: { "prefer"?: […], "require"?: […], "exclude"?: […] } } } beside the request text.',
    );
  }
  return input.fleet;
}

/** Stops the runs without ending their sessions, and resolves once they stopped. */
async function handOverRuns(
  runs: readonly ActiveRun[],
  options: OrchestratorAgentOptions,
  instanceId: string,
): Promise<void> {
  const reason = new RunHandover(
    'The orchestrator is shutting down; the session can be resumed by another one.',
  );
  for (const run of runs) run.stop(reason);
  await Promise.all(runs.map((run) => run.done.catch(() => undefined)));
  options.logger.info({ runs: runs.length, instanceId }, 'handed the running sessions over');
}

/**
 * A resume carries the session on under `taskId`, not under the task that ran it before (a
 * client resumed it as a new task): that task is ended, pointing here, if its turn was lost.
 */
function supersede(options: OrchestratorAgentOptions, session: Session, taskId: string): void {
  const previous = session.taskId;
  if (previous === undefined || previous === taskId || options.supersedeTask === undefined) {
    return;
  }
  options
    .supersedeTask({ taskId: previous, sessionId: session.id, runnerTaskId: taskId })
    .catch((error: unknown) => {
      options.logger.warn(
        { sessionId: session.id, taskId: previous, err: error },
        'could not end the task the session left',
      );
    });
}

/**
 * The session a run goes on with and its runner lease (undefined while another runner holds
 * it): a new session for a new request, the recorded one for a resume — or, for a resume of a
 * session that has ended, the events that answer it.
 */
async function claimSession({
  sessions,
  fleet,
  context,
  owner,
  runnerLeaseMs,
}: {
  sessions: OrchestratorAgentOptions['sessions'];
  fleet: OrchestrateRequest;
  context: AgentContext;
  owner: string;
  runnerLeaseMs: number;
}): Promise<{ session: Session; lease: Lease | undefined } | { finished: AgentEvent[] }> {
  let session: Session;
  let lease: Lease | undefined;
  if (fleet.resumeSessionId !== undefined) {
    session = await sessions.getForTenant(fleet.resumeSessionId, fleet.tenant);
    const finished = finishedSessionEvents(session);
    if (finished !== undefined) return { finished };
    lease = await sessions.acquireRunner(session.id, owner, runnerLeaseMs);
  } else {
    const request = partsText(context.message.parts).trim();
    if (request === '') throw new ValidationError('The message has no request text.');
    // One script: the session (with the task that runs it) and its runner lease, together or
    // not at all; its index entries are written around it.
    ({ session, lease } = await sessions.createWithRunner(
      {
        tenant: fleet.tenant,
        request,
        history: fleet.history,
        planApproval: fleet.planApproval === 'required',
        resultReview: fleet.resultReview === 'required',
        toolPolicy: fleet.toolPolicy,
        steering: fleet.steering,
        taskId: context.taskId,
      },
      { owner, ttlMs: runnerLeaseMs },
    ));
  }
  if (lease === undefined || fleet.resumeSessionId === undefined) return { session, lease };
  // Read it again under the lease: the previous runner may have finished it in between.
  const current = await sessions.get(session.id);
  const finished = current === undefined ? undefined : finishedSessionEvents(current);
  if (current === undefined || finished !== undefined) {
    await lease.release().catch(() => undefined);
    if (current === undefined) {
      throw new NotFoundError(`Session ${session.id} does not exist or has expired.`);
    }
    return { finished: finished ?? [] };
  }
  return { session: current, lease };
}

/**
 * The options of one run: the planner (and re-planning) sees only the agents and tools the
 * tenant's tool policy and the run's steering leave, and every planner call hears the steering.
 */
function steeredRunOptions({
  options,
  hitlTimeoutSeconds,
  runnerLeaseMs,
  invokeAgent,
  toolPolicy,
  steering,
}: {
  options: OrchestratorAgentOptions;
  hitlTimeoutSeconds: number;
  runnerLeaseMs: number;
  invokeAgent: OrchestratorAgentOptions['invokeAgent'];
  toolPolicy: Session['toolPolicy'];
  steering: Session['steering'];
}): OrchestratorAgentOptions & { hitlTimeoutSeconds: number; runnerLeaseMs: number } {
  const excludes = (steering?.exclude?.length ?? 0) > 0;
  return {
    ...options,
    hitlTimeoutSeconds,
    runnerLeaseMs,
    // The planner (and re-planning) sees only the tools the tenant may use.
    // Excluded agents and skills (`fleet.steering.exclude`) are not seen either.
    availableAgents: async () =>
      agentsUnderSteering(
        agentsUnderToolPolicy(await options.availableAgents(), toolPolicy),
        steering,
      ),
    // Every planner call of the run (re-plans after a denied or uncertain plan too) hears
    // what the steering prefers and requires.
    askPlanner: withSteering(options.askPlanner, steering),
    agentsBeforeSteering: excludes
      ? async () => agentsUnderToolPolicy(await options.availableAgents(), toolPolicy)
      : undefined,
    invokeAgent,
  };
}

/**
 * The file parts of the request's message (attachments: `raw` bytes with `filename` and
 * `mediaType`, or a `url` the fleet does not fetch). How many the run keeps is its keeper's call.
 */
function attachmentsOf(parts: readonly Part[]): StepFilePart[] {
  return parts.flatMap((part): StepFilePart[] =>
    part.raw === undefined && part.url === undefined
      ? []
      : [
          {
            ...(part.filename === undefined ? {} : { filename: part.filename }),
            ...(part.mediaType === undefined ? {} : { mediaType: part.mediaType }),
            ...(part.raw === undefined ? { url: part.url } : { raw: part.raw }),
          },
        ],
  );
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
      const stored = storedResult(session);
      // A run answered though its steps failed for reasons of their tasks: the answer, COMPLETED.
      if (stored !== undefined && isAnswered(session)) {
        return [
          start,
          line({ type: 'run-end', state: 'failed' }),
          {
            type: 'artifact',
            artifact: { name: 'result', parts: [textPart(stored.text), dataPart(stored.result)] },
            lastChunk: true,
          },
          {
            type: 'status',
            state: 'TASK_STATE_COMPLETED',
            metadata: { ...metadata, runState: stored.result.state ?? 'failed' },
          },
        ];
      }
      // The fleet's failure keeps its answer (what failed and why) beside the failure.
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
