import { dataPart, textPart, type OrchestrateRequest, type ProgressEvent } from '@fleet/a2a';
import type { AgentContext, AgentEvent } from '@fleet/a2a/server';
import { FleetError } from '@fleet/errors';
import type { Lease, Session } from '@fleet/sessions';
import {
  SpanKind,
  setSessionAttributes,
  setSpanOutput,
  withBaggage,
  withSpan,
} from '@fleet/telemetry';
import { isRunHandover, RunHandover, type StepFilePart } from '../execution';
import type { RunTicket } from '../scheduling';
import { createRunUsageLedger } from '../usage';
import { describeProgress } from './describe-progress';
import type { EventQueue } from './event-queue';
import { orchestrateRun } from './orchestrate-run';
import type { OrchestratorAgentOptions } from './orchestrator-agent-options';
import type { RunContext, RunLogger, RunSlot } from './run-context';
import { watchSession } from './session-watch';
import { createSessionWriter, type SessionWriter } from './session-writer';

/**
 * Progress events that change nothing a reader relies on: announced before they are saved, when
 * the session has nothing unwritten (docs/a2a.md §3, "Progress lines"). Every other event — the
 * plan, node start and end, approvals, questions, the queue position, the end of the run — is a
 * state change: announced once the session and the task hold it.
 */
const PROGRESS_LINES: ReadonlySet<ProgressEvent['type']> = new Set<ProgressEvent['type']>([
  'run-start',
  'plan-start',
  'compose-start',
  'queue-end',
  'node-progress',
]);

/** The reason a run is canceled with when its session is canceled elsewhere. */
export const SESSION_CANCELED = 'The session was canceled.';

/** One run of a session, as the orchestrator agent hands it to {@link runInBackground}. */
export interface BackgroundRun {
  options: OrchestratorAgentOptions & { hitlTimeoutSeconds: number; runnerLeaseMs: number };
  context: AgentContext;
  input: OrchestrateRequest;
  /** `fleet.user`, whose long-term memory the run uses. */
  memoryUser: string | undefined;
  /** The file parts the request brought (attachments), kept at the run's start. */
  attachments?: readonly StepFilePart[] | undefined;
  session: Session;
  resumed: boolean;
  lease: Lease;
  queue: EventQueue<AgentEvent>;
  /** The run's own signal: aborted by CancelTask, `session-canceled`, or a hand-over. */
  controller: AbortController;
  /** Its place with the scheduler: the run waits for its slot, and gives it back at its end. */
  ticket?: RunTicket | undefined;
}

/** Runs a session to its end (or hand-over), holding its runner lease the whole time. */
export async function runInBackground(background: BackgroundRun): Promise<void> {
  const { options, context, session, queue, controller, lease } = background;
  const { logger, sessions } = options;
  const sessionId = session.id;
  const log = { sessionId, taskId: context.taskId };
  let canceledElsewhere = false;
  const abort = (reason: unknown): void => {
    if (!controller.signal.aborted) controller.abort(reason);
  };
  const onTaskAbort = (): void => abort(context.signal.reason);
  context.signal.addEventListener('abort', onTaskAbort, { once: true });
  if (context.signal.aborted) onTaskAbort();
  const renewal = keepLease({ lease, leaseMs: options.runnerLeaseMs, logger, log, abort });

  // The write that ends the session releases the runner lease too (one round trip less).
  let runnerReleased = false;
  const writer = createSessionWriter({
    sessions,
    sessionId,
    logger,
    log,
    session,
    runner: {
      owner: lease.owner,
      onReleased: () => {
        runnerReleased = true;
        renewal.stop();
      },
    },
  });
  const progress = progressToQueue({ queue, writer, sessionId });
  const held = holdSlot(background, { progress, writer });
  // The watch stops listening when the run ends; the UNSUBSCRIBE is awaited after the stream ended.
  let watchClosed: Promise<void> | undefined;
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
      await held.admit();
      const run: RunContext = {
        sessions,
        sessionId,
        signal: controller.signal,
        writer,
        watch,
        progress,
        hitlTimeoutMs: options.hitlTimeoutSeconds * 1000,
        slot: held.slot,
        llm: options.llm,
        cancelAgentTask: options.cancelAgentTask,
        agentTaskState: options.agentTaskState,
        agentTaskCheckMs: options.agentTaskCheckMs,
        logger,
        usage: createRunUsageLedger({
          recorded: session.usage,
          onChange: (steps) =>
            writer.record((draft) => {
              draft.usage = steps;
            }),
        }),
        log,
      };
      await traceRun(background, { run, canceledElsewhere: () => canceledElsewhere });
    } finally {
      // Its listener goes at once; the round trip is not waited for here.
      watchClosed = watch.close().catch(() => undefined);
    }
  } catch (error) {
    await endUnexpectedly(background, { error, writer, log });
  } finally {
    held.release();
    renewal.stop();
    context.signal.removeEventListener('abort', onTaskAbort);
    const release =
      renewal.lost || runnerReleased ? undefined : lease.release().catch(() => undefined);
    // A session handed over is resumed elsewhere as soon as its client hears so: the lease goes
    // first. An ended one needs no lease to be read, so its stream ends without waiting.
    if (isRunHandover(controller.signal.reason)) await release;
    queue.close();
    await Promise.all([watchClosed, release]);
  }
}

/**
 * The run's progress: each event goes on the task's queue as a working status — a progress line
 * at once, a state change once its session write (and every one before it) is done.
 */
function progressToQueue({
  queue,
  writer,
  sessionId,
}: {
  queue: EventQueue<AgentEvent>;
  writer: SessionWriter;
  sessionId: string;
}): (event: ProgressEvent) => void {
  return (event) => {
    // A progress line goes out before it is saved; a state change once its session write (and
    // every one before it) is done, and its task save follows (docs/a2a.md §3).
    const line = PROGRESS_LINES.has(event.type) && writer.idle();
    queue.push(
      {
        type: 'status',
        state: 'TASK_STATE_WORKING',
        message: [textPart(describeProgress(event)), dataPart({ progress: event })],
        metadata: { sessionId },
        ...(line ? { progressLine: true } : {}),
      },
      { after: writer.idle() ? undefined : writer.written() },
    );
  };
}

/** The run's place with the scheduler, which changes when it gives its slot up to wait for a person. */
interface HeldSlot {
  /** Waits for the first slot. */
  admit(): Promise<void>;
  /** For the run context; undefined without a scheduler. */
  slot: RunSlot | undefined;
  /** Gives the slot (or the place in the queue) back: the run ended. */
  release(): void;
}

/** Holds the run's slot: waited for at the start, given up while the run waits for a person. */
function holdSlot(
  background: BackgroundRun,
  { progress, writer }: { progress: (event: ProgressEvent) => void; writer: SessionWriter },
): HeldSlot {
  const { options, input } = background;
  let ticket = background.ticket;
  const scheduler = options.scheduler;
  return {
    admit: () => waitForSlot(background, { ticket, progress, writer }),
    slot:
      ticket === undefined || scheduler === undefined
        ? undefined
        : {
            async parkWhile(wait) {
              const parked = ticket;
              parked?.park();
              try {
                return await wait();
              } finally {
                parked?.unpark();
              }
            },
            async whileWaiting(wait) {
              ticket?.release();
              try {
                return await wait();
              } finally {
                // Admitted once: back at the front of its tenant's queue.
                ticket = scheduler.enqueue(input.tenant, { front: true });
                await waitForSlot(background, { ticket, progress, writer });
              }
            },
          },
    release: () => ticket?.release(),
  };
}

/**
 * Waits for the run's slot when the orchestrator is running as many runs as it may: streams
 * `queue-start` (its position in its tenant's queue), then `queue-end` once admitted. A cancel or
 * a hand-over while it waits leaves the queue; the run then ends as an aborted run does.
 */
async function waitForSlot(
  { controller, session, options, context }: BackgroundRun,
  {
    ticket,
    progress,
    writer,
  }: {
    ticket: RunTicket | undefined;
    progress: (event: ProgressEvent) => void;
    writer: SessionWriter;
  },
): Promise<void> {
  const position = ticket?.position() ?? 0;
  if (ticket === undefined || position === 0) return;
  const started = performance.now();
  // A client that follows the session (X-Session-ID) finds the task that runs it while it waits
  // (a new run's session was created with it).
  if (session.taskId !== context.taskId) {
    writer.record((draft) => {
      draft.taskId = context.taskId;
    });
  }
  progress({
    type: 'queue-start',
    sessionId: session.id,
    position,
    maxActiveRuns: options.scheduler?.maxActiveRuns ?? 1,
  });
  const leave = (): void => ticket.release();
  controller.signal.addEventListener('abort', leave, { once: true });
  if (controller.signal.aborted) leave();
  try {
    if (await ticket.admitted) {
      progress({ type: 'queue-end', waitedMs: Math.round(performance.now() - started) });
    }
  } finally {
    controller.signal.removeEventListener('abort', leave);
  }
}

/**
 * Renews the runner lease every third of its TTL. A lease that could not be renewed for half its
 * TTL (Redis is unreachable) is as good as lost: the run stops here — its client gets a clear end
 * instead of keep-alives forever — and the recovery sweep resumes the session once Redis is back.
 */
function keepLease({
  lease,
  leaseMs,
  logger,
  log,
  abort,
}: {
  lease: Lease;
  leaseMs: number;
  logger: RunLogger;
  log: object;
  abort: (reason: unknown) => void;
}): { stop(): void; readonly lost: boolean } {
  let lost = false;
  let renewedAt = Date.now();
  const renewal = setInterval(
    () => {
      lease.renew().then(
        (held) => {
          if (held) {
            renewedAt = Date.now();
            return;
          }
          lost = true;
          logger.warn(log, 'lost the runner lease; handing the session over');
          abort(new RunHandover('This orchestrator lost the session’s runner lease.'));
        },
        (error: unknown) => {
          logger.warn({ ...log, err: error }, 'could not renew the runner lease');
          // Half a TTL without a renewal: stop while the lease surely still holds (no other
          // runner can have taken over), rather than at its very end.
          if (Date.now() - renewedAt < leaseMs / 2 || lost) return;
          lost = true;
          abort(
            new RunHandover(
              'Redis is unreachable, so the session cannot be kept; it goes on where it stopped once Redis is back.',
            ),
          );
        },
      );
    },
    Math.max(1, Math.floor(leaseMs / 3)),
  );
  renewal.unref();
  return {
    stop: () => clearInterval(renewal),
    get lost() {
      return lost;
    },
  };
}

/** The run itself, under the session's baggage and its `orchestrator.run` (or `.resume`) span. */
async function traceRun(
  background: BackgroundRun,
  { run, canceledElsewhere }: { run: RunContext; canceledElsewhere: () => boolean },
): Promise<void> {
  const { session, options, context, queue } = background;
  await withBaggage({ 'session.id': session.id, 'user.id': session.tenant }, () =>
    withSpan(
      {
        name: background.resumed ? 'orchestrator.resume' : 'orchestrator.run',
        kind: SpanKind.CHAIN,
        input: session.request,
      },
      async (span) => {
        setSessionAttributes(span, { sessionId: session.id, userId: session.tenant });
        const answer = await orchestrateRun({
          run,
          options,
          session,
          input: background.input,
          resumed: background.resumed,
          taskId: context.taskId,
          queue,
          canceledElsewhere,
          memoryUser: background.memoryUser,
          attachments: background.attachments,
        });
        setSpanOutput(span, answer ?? '');
      },
    ),
  );
}

/** A run that threw: logged in full, recorded as failed (unless it was stopped), its task FAILED. */
async function endUnexpectedly(
  { options, controller, queue, session }: BackgroundRun,
  { error, writer, log }: { error: unknown; writer: SessionWriter; log: object },
): Promise<void> {
  options.logger.error({ ...log, err: error }, 'the run failed unexpectedly');
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
    metadata: { sessionId: session.id },
  });
}
