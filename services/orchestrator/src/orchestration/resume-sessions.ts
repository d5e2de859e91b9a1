import { randomUUID } from 'node:crypto';
import { A2A_VERSION, createMessage, dataPart, textPart } from '@fleet/a2a';
import type { A2AHandler } from '@fleet/a2a/server';
import { isActiveStatus, type SessionStore } from '@fleet/sessions';
import type { RunLogger } from './run-context';

/** Options for {@link resumeSessions}. */
export interface ResumeSessionsOptions {
  /** The orchestrator's own handler: a resume goes through the same code path as any other. */
  handler: Pick<A2AHandler, 'handle'>;
  sessions: SessionStore;
  sessionIds: readonly string[];
  logger: RunLogger;
}

/**
 * Resumes sessions in the background with no client attached (orchestrator start-up, for the
 * sessions whose approvals just expired): one non-blocking `SendMessage` with `resumeSessionId`
 * (`returnImmediately: true`) per session still open, to the orchestrator's own handler. A
 * session another orchestrator runs answers "running elsewhere" and is left to it. Returns the
 * orchestrator task ids started, by session id.
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
      const reply = await handler.handle(
        {
          jsonrpc: '2.0',
          id: randomUUID(),
          method: 'SendMessage',
          params: {
            message: createMessage({
              parts: [
                textPart(session.request),
                dataPart({ fleet: { tenant: session.tenant, resumeSessionId: sessionId } }),
              ],
            }),
            configuration: { returnImmediately: true },
          },
        },
        { version: A2A_VERSION },
      );
      const result =
        reply.type === 'json' && 'result' in reply.body
          ? (reply.body.result as { task?: { id?: string } })
          : undefined;
      const taskId = result?.task?.id;
      if (taskId !== undefined) started[sessionId] = taskId;
      logger.info({ sessionId, taskId }, 'resuming a session in the background');
    } catch (error) {
      logger.warn({ sessionId, err: error }, 'could not resume a session');
    }
  }
  return started;
}
