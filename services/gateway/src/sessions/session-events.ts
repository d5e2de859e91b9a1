import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import {
  dataPart,
  findData,
  RESULT_ARTIFACT_NAME,
  textPart,
  type Part,
  type StreamResponse,
  type TaskState,
  type ToolPolicy,
} from '@fleet/a2a';
import type { A2AClient } from '@fleet/a2a/client';
import { FleetError, NotFoundError, ServiceUnavailableError } from '@fleet/errors';
import { isAnswered, type Session, type SessionStore } from '@fleet/sessions';
import type { RunEventSource } from '../orchestration';
import { ENDED_STATUSES } from './resume-in-background';
import { resumeMessage, resumeTaskOf } from './resume-message';
import { isRunnerLive } from './runner-probe';
import { storedRunResult } from './session-views';

/**
 * Event sources for a resumed session (`X-Session-ID`), in the orchestrator's own A2A event shapes,
 * so the one translation (`answerRun`) renders them exactly like a new run.
 */

function statusEvent(
  session: Session,
  { state, parts }: { state: TaskState; parts: Part[] },
): StreamResponse {
  return {
    statusUpdate: {
      taskId: session.taskId ?? session.id,
      contextId: '',
      status: { state, message: { messageId: randomUUID(), role: 'ROLE_AGENT', parts } },
      metadata: { sessionId: session.id },
    },
  };
}

/**
 * An answered session's stored answer as the events of a run (`isAnswered`: completed, or failed
 * for reasons of its tasks): one progress line (`run-end`), then the `result` artifact with the
 * answer and its `RunResult`.
 */
export function storedAnswerEvents(session: Session): RunEventSource {
  return async function* storedAnswer(): AsyncGenerator<StreamResponse, void, undefined> {
    await Promise.resolve();
    const completed = session.status === 'completed';
    yield statusEvent(session, {
      state: 'TASK_STATE_WORKING',
      parts: [
        textPart(
          completed
            ? `Session ${session.id} has already completed; this is its answer.`
            : `Session ${session.id} has already ended without its work done; this is its answer.`,
        ),
        dataPart({ progress: { type: 'run-end', state: completed ? 'completed' : 'failed' } }),
      ],
    });
    const result = storedRunResult(session);
    yield {
      artifactUpdate: {
        taskId: session.taskId ?? session.id,
        contextId: '',
        artifact: {
          artifactId: randomUUID(),
          name: RESULT_ARTIFACT_NAME,
          parts: [
            textPart(session.result?.text ?? ''),
            ...(result === undefined ? [] : [dataPart(result)]),
          ],
        },
      },
    };
  };
}

/** A failed or canceled session's end, as the terminal status of a run. */
function endedEvent(session: Session): StreamResponse {
  const canceled = session.status === 'canceled';
  return statusEvent(session, {
    state: canceled ? 'TASK_STATE_CANCELED' : 'TASK_STATE_FAILED',
    parts: [
      textPart(session.error ?? `The session was ${canceled ? 'canceled' : 'failed'}.`),
      dataPart({ progress: { type: 'run-end', state: canceled ? 'canceled' : 'failed' } }),
    ],
  });
}

/** Options for {@link followSession}. */
export interface FollowSessionOptions {
  store: SessionStore;
  client: A2AClient;
  sessionId: string;
  /**
   * The session's tenant's tool policy now (GATEWAY_TOOL_PERMISSIONS), sent with a resume.
   * Undefined: the session keeps the one it has.
   */
  toolPolicy?: ToolPolicy | undefined;
  /**
   * While following an orchestrator task, how often the gateway checks that an orchestrator still
   * holds the session's runner lease; when none does (it died), the gateway resumes the session
   * instead of waiting on a task nobody runs. @default 5000
   */
  leaseCheckMs?: number;
  /** Pause between two attempts to attach. @default 250 */
  retryDelayMs?: number;
  /**
   * How long the follow waits for an orchestrator that cannot be reached (restarting, rescheduled)
   * before it gives up with the unreachable error; it tries again every second meanwhile.
   * @default 30000
   */
  unreachableWaitMs?: number;
}

/** How many times a follow re-reads the session and attaches again before giving up. */
const MAX_ATTACH_ATTEMPTS = 6;

/** How often a follow tries an orchestrator that cannot be reached again. */
const UNREACHABLE_RETRY_MS = 1000;

type Outcome = 'ended' | 'retry';

function isFailure(event: StreamResponse): boolean {
  if (!('statusUpdate' in event)) return false;
  const { state } = event.statusUpdate.status;
  return (
    state === 'TASK_STATE_FAILED' ||
    state === 'TASK_STATE_REJECTED' ||
    state === 'TASK_STATE_CANCELED'
  );
}

/**
 * The orchestrator's answer to a resume while another replica runs the session: a FAILED status
 * with `runningElsewhere` in its metadata (and the runner's task id).
 */
function isRunningElsewhere(event: StreamResponse): boolean {
  return 'statusUpdate' in event && event.statusUpdate.metadata?.['runningElsewhere'] === true;
}

/**
 * The orchestrator's answer when it shut down gracefully mid-run: the task ends FAILED with
 * `handedOver` in its metadata while the session stays open for another orchestrator to resume.
 */
function isHandedOver(event: StreamResponse): boolean {
  return 'statusUpdate' in event && event.statusUpdate.metadata?.['handedOver'] === true;
}

/** Failures of a resume after which the session is looked at again rather than given up. */
const RETRY_CODES: ReadonlySet<string> = new Set([
  'UPSTREAM_STREAM_INTERRUPTED',
  'CONFLICT',
  'NOT_FOUND',
]);

function isUnreachable(error: unknown): boolean {
  return FleetError.isInstance(error) && error.code === 'UPSTREAM_UNREACHABLE';
}

const askedSchema = z.object({
  progress: z.union([
    z.object({ type: z.literal('approval-required'), approvalId: z.string() }),
    z.object({ type: z.literal('review-required'), approvalId: z.string() }),
    z.object({ type: z.literal('input-required'), inputId: z.string() }),
  ]),
});

/**
 * A task snapshot as a follower should see it: its last status line stands for where the run is,
 * unless that line asks for an approval or an answer the session shows as settled (decided before
 * the run moved on and wrote anything newer); such a line would ask the person again for what they
 * already gave, so it is left out.
 */
function withoutSettledAsk(event: StreamResponse, session: Session): StreamResponse {
  if (!('task' in event)) return event;
  const parts = event.task.status.message?.parts ?? [];
  const asked = findData(parts, askedSchema)?.progress;
  if (asked === undefined) return event;
  const id = asked.type === 'input-required' ? asked.inputId : asked.approvalId;
  if (session.approvals[id]?.status === 'pending') return event;
  const { message: _settled, ...status } = event.task.status;
  return { task: { ...event.task, status } };
}

/** Follows the task a live orchestrator runs the session under, while that orchestrator lives. */
async function* subscribeWhileLive({
  store,
  client,
  session,
  taskId,
  signal,
  leaseCheckMs,
}: {
  store: SessionStore;
  client: A2AClient;
  session: Session;
  taskId: string;
  signal: AbortSignal;
  leaseCheckMs: number;
}): AsyncGenerator<StreamResponse, Outcome, undefined> {
  const orphaned = new AbortController();
  const watchdog = setInterval(() => {
    isRunnerLive(store, session.id).then(
      (live) => {
        if (!live) orphaned.abort();
      },
      () => undefined,
    );
  }, leaseCheckMs);
  watchdog.unref();
  try {
    const events = client.subscribeToTask(
      { id: taskId },
      { signal: AbortSignal.any([signal, orphaned.signal]) },
    );
    for await (const event of events) {
      // A graceful hand-over is not the run's end: attach to whoever resumes it.
      if (isHandedOver(event)) return 'retry';
      yield withoutSettledAsk(event, session);
    }
    return 'ended';
  } catch (error) {
    if (signal.aborted || isUnreachable(error)) throw error;
    // The orchestrator died (the watchdog), the task ended before the subscription (the session
    // moved on under another task, or finished), or the stream broke: look at the session again.
    return 'retry';
  } finally {
    clearInterval(watchdog);
  }
}

/**
 * Continues the session on the orchestrator (`resumeSessionId`), streaming the rest of the run: on
 * the orchestrator task that ran it, whose turn was lost with its orchestrator (a take-over, so
 * the task keeps one history), or on a new task when that one has ended or is gone.
 */
async function* resumeOnOrchestrator({
  store,
  client,
  session,
  signal,
  toolPolicy,
}: {
  store: SessionStore;
  client: A2AClient;
  session: Session;
  signal: AbortSignal;
  toolPolicy: ToolPolicy | undefined;
}): AsyncGenerator<StreamResponse, Outcome, undefined> {
  try {
    const taskId = await resumeTaskOf(client, session, { signal });
    const events = client.sendStreamingMessage(
      {
        message: resumeMessage(session, {
          ...(taskId === undefined ? {} : { taskId }),
          toolPolicy,
        }),
      },
      { signal },
    );
    for await (const event of events) {
      // A resume fails when another orchestrator replica took the session first (between the
      // lease check and this request): follow that one instead of reporting a failure. The
      // orchestrator says so (`runningElsewhere`); the lease tells the same to any other one.
      if (
        isFailure(event) &&
        (isHandedOver(event) ||
          isRunningElsewhere(event) ||
          (await isRunnerLive(store, session.id)))
      ) {
        return 'retry';
      }
      yield withoutSettledAsk(event, session);
    }
  } catch (error) {
    if (signal.aborted || isUnreachable(error) || !FleetError.isInstance(error)) throw error;
    // The stream broke (the orchestrator died), the task's turn still runs (not lost yet, or
    // taken over by another replica: -32004), or the task is gone meanwhile: look at the session
    // again.
    if (!RETRY_CODES.has(error.code)) throw error;
    return 'retry';
  }
  return 'ended';
}

/**
 * The rest of a session's run, wherever it stands: the stored answer if it has completed; the
 * events of the orchestrator task running it if an orchestrator holds its runner lease
 * (`SubscribeToTask` on `session.taskId`); otherwise a resume on the orchestrator
 * (`SendStreamingMessage` with `resumeSessionId`). When the orchestrator being followed dies, or a
 * resume finds another replica already running the session, it re-reads the session and attaches
 * again, so the client sees one continuous run.
 */
export function followSession({
  store,
  client,
  sessionId,
  leaseCheckMs = 5000,
  retryDelayMs = 250,
  unreachableWaitMs = 30_000,
  toolPolicy,
}: FollowSessionOptions): RunEventSource {
  return async function* follow(signal): AsyncGenerator<StreamResponse, void, undefined> {
    let unreachableSince: number | undefined;
    for (let attempt = 1; attempt <= MAX_ATTACH_ATTEMPTS; attempt++) {
      if (attempt > 1) await delay(retryDelayMs, undefined, { signal });
      const session = await store.get(sessionId);
      if (session === undefined) {
        throw new NotFoundError(`Session ${sessionId} does not exist or has expired.`);
      }
      if (isAnswered(session)) {
        yield* storedAnswerEvents(session)(signal);
        return;
      }
      if (ENDED_STATUSES.has(session.status)) {
        yield endedEvent(session);
        return;
      }
      const taskId = session.taskId;
      let outcome: Outcome;
      try {
        outcome =
          taskId !== undefined && (await isRunnerLive(store, sessionId))
            ? yield* subscribeWhileLive({ store, client, session, taskId, signal, leaseCheckMs })
            : yield* resumeOnOrchestrator({ store, client, session, signal, toolPolicy });
        unreachableSince = undefined;
      } catch (error) {
        // No orchestrator answers (one restarting, a pod rescheduled): the session is durable,
        // so wait a while for one instead of failing at once. It does not count as an attempt.
        unreachableSince ??= Date.now();
        if (
          signal.aborted ||
          !isUnreachable(error) ||
          Date.now() - unreachableSince >= unreachableWaitMs
        ) {
          throw error;
        }
        attempt -= 1;
        await delay(UNREACHABLE_RETRY_MS, undefined, { signal });
        continue;
      }
      if (outcome === 'ended') return;
    }
    throw new ServiceUnavailableError(
      `Could not attach to session ${sessionId}: its orchestrator kept changing; try again.`,
    );
  };
}
