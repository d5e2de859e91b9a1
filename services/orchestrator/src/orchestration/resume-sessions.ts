import { randomUUID } from 'node:crypto';
import {
  A2A_VERSION,
  createMessage,
  dataPart,
  isTerminalState,
  taskSchema,
  textPart,
} from '@fleet/a2a';
import type { A2AHandler } from '@fleet/a2a/server';
import { isActiveStatus, type Session, type SessionStore } from '@fleet/sessions';
import type { RunLogger } from './run-context';

/** Options for {@link resumeSessions}. */
export interface ResumeSessionsOptions {
  /** The orchestrator's own handler: a resume goes through the same code path as any other. */
  handler: Pick<A2AHandler, 'handle'>;
  sessions: SessionStore;
  sessionIds: readonly string[];
  logger: RunLogger;
}

/** One JSON-RPC call to the orchestrator's own handler: its result, or its error. */
async function call(
  handler: Pick<A2AHandler, 'handle'>,
  method: string,
  params: unknown,
): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  const reply = await handler.handle(
    { jsonrpc: '2.0', id: randomUUID(), method, params },
    { version: A2A_VERSION },
  );
  if (reply.type !== 'json') throw new Error(`${method} answered with a stream`);
  return reply.body;
}

/**
 * The task a session is taken over on: the one that ran it, while that task has not ended (its
 * orchestrator died mid-turn: the task stays WORKING for a take-over); undefined when it ended (a
 * graceful hand-over ends it) or is gone, and the session goes on under a new task.
 */
async function takeOverTask(
  handler: Pick<A2AHandler, 'handle'>,
  session: Session,
): Promise<string | undefined> {
  if (session.taskId === undefined) return undefined;
  const reply = await call(handler, 'GetTask', { id: session.taskId, historyLength: 0 });
  const task = taskSchema.safeParse(reply.result);
  if (!task.success || isTerminalState(task.data.status.state)) return undefined;
  return session.taskId;
}

/**
 * Resumes sessions in the background with no client attached (orchestrator start-up, the recovery
 * sweep, the sessions whose approvals just expired): one non-blocking `SendMessage` with
 * `resumeSessionId` (`returnImmediately: true`) per session still open, to the orchestrator's own
 * handler. The message goes to the task that ran the session when that task has not ended — it
 * takes that task over, so whoever follows it gets the rest of the run — else it starts a new
 * task. A session another orchestrator runs answers "running elsewhere", and a task whose turn
 * still runs refuses the take-over (-32004): both are left to their runner. Returns the
 * orchestrator task ids resumed, by session id.
 *
 * @example
 * const expired = await sessions.expireOverdueApprovals();
 * await resumeSessions({ handler, sessions, sessionIds: expired.map((entry) => entry.sessionId), logger });
 */
export async function resumeSessions({
  handler,
  sessions,
  sessionIds,
  logger,
}: ResumeSessionsOptions): Promise<Record<string, string>> {
  const started: Record<string, string> = {};
  for (const sessionId of new Set(sessionIds)) {
    try {
      const session = await sessions.get(sessionId);
      if (session === undefined) continue;
      if (!isActiveStatus(session.status)) continue;
      const taskId = await takeOverTask(handler, session);
      const reply = await call(handler, 'SendMessage', {
        message: {
          ...createMessage({
            parts: [
              textPart(session.request),
              dataPart({ fleet: { tenant: session.tenant, resumeSessionId: sessionId } }),
            ],
          }),
          ...(taskId === undefined ? {} : { taskId }),
        },
        configuration: { returnImmediately: true },
      });
      if (reply.error !== undefined) {
        logger.info(
          { sessionId, taskId, reason: reply.error.message },
          'left the session to the orchestrator running it',
        );
        continue;
      }
      const resumed = (reply.result as { task?: { id?: string } } | undefined)?.task?.id;
      if (resumed !== undefined) started[sessionId] = resumed;
      logger.info(
        { sessionId, taskId: resumed, takenOver: taskId !== undefined },
        'resuming a session in the background',
      );
    } catch (error) {
      logger.warn({ sessionId, err: error }, 'could not resume a session');
    }
  }
  return started;
}
