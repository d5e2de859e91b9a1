import type { ToolPolicy } from '@fleet/a2a';
import type { A2AClient } from '@fleet/a2a/client';
import { FleetError } from '@fleet/errors';
import type { HttpLogger } from '@fleet/http';
import type { SessionStatus, SessionStore } from '@fleet/sessions';
import { resumeMessage, resumeTaskOf } from './resume-message';
import { isRunnerLive } from './runner-probe';

/** Statuses after which nothing runs a session again. */
export const ENDED_STATUSES: ReadonlySet<SessionStatus> = new Set<SessionStatus>([
  'completed',
  'failed',
  'canceled',
]);

/** Options for {@link resumeInBackground}. */
export interface ResumeInBackgroundOptions {
  store: SessionStore;
  /** The orchestrator; undefined without FLEET_INTERNAL_TOKEN (then nothing is sent). */
  client: A2AClient | undefined;
  logger: HttpLogger;
  sessionId: string;
  /**
   * The session's tenant's tool policy now (GATEWAY_TOOL_PERMISSIONS), sent with the resume.
   * Undefined: the session keeps the one it has.
   */
  toolPolicy?: ToolPolicy | undefined;
  /**
   * When an orchestrator holds the runner lease, look once more after this long: a holder killed
   * without releasing it keeps the lease until its TTL (15 s) runs out, and then nobody would
   * continue the workflow. 0 never looks again. @default 20000
   */
  recheckAfterMs?: number;
}

/** What {@link resumeInBackground} did. */
export type BackgroundResume = 'sent' | 'running' | 'ended' | 'no-orchestrator' | 'failed';

/** How long the orchestrator may take to accept the resume (it answers at once). */
const SEND_TIMEOUT_MS = 10_000;

/**
 * After an approval is decided: makes sure some orchestrator continues the session even when no
 * client is attached. A live orchestrator (it holds the runner lease) hears the decision on the
 * session's events by itself; otherwise the gateway sends the orchestrator a non-blocking
 * `SendMessage` (`returnImmediately`) with `resumeSessionId` — to the task that ran the session
 * when it has not ended (a take-over), else as a new task — and the run goes on in the
 * orchestrator, recorded in its session. A take-over refused because the task's turn still runs
 * (-32004, another orchestrator took it over first) counts as `running`. Never throws: failures are logged, and the decision stays
 * recorded for the next resume (`X-Session-ID`) to pick up.
 */
export async function resumeInBackground({
  store,
  client,
  logger,
  sessionId,
  toolPolicy,
  recheckAfterMs = 20_000,
}: ResumeInBackgroundOptions): Promise<BackgroundResume> {
  const log = { sessionId };
  const attempt = async (): Promise<BackgroundResume> => {
    const session = await store.get(sessionId);
    if (session === undefined || ENDED_STATUSES.has(session.status)) return 'ended';
    if (await isRunnerLive(store, sessionId)) return 'running';
    if (client === undefined) {
      logger.warn(
        log,
        'no orchestrator client (FLEET_INTERNAL_TOKEN unset): the session continues on its next resume',
      );
      return 'no-orchestrator';
    }
    const taskId = await resumeTaskOf(client, session);
    let task: Awaited<ReturnType<A2AClient['sendMessage']>>;
    try {
      task = await client.sendMessage(
        {
          message: resumeMessage(session, {
            ...(taskId === undefined ? {} : { taskId }),
            toolPolicy,
          }),
          configuration: { returnImmediately: true },
        },
        { timeoutMs: SEND_TIMEOUT_MS },
      );
    } catch (error) {
      // The task's turn still runs: another orchestrator took the session over first.
      if (FleetError.isInstance(error) && error.code === 'CONFLICT') return 'running';
      throw error;
    }
    logger.info(
      { ...log, taskId: 'id' in task ? task.id : undefined },
      'resumed the session on the orchestrator',
    );
    return 'sent';
  };
  try {
    const outcome = await attempt();
    if (outcome === 'running' && recheckAfterMs > 0) {
      const timer = setTimeout(() => {
        attempt().catch((error: unknown) => {
          logger.warn({ ...log, err: error }, 'could not resume the session after a decision');
        });
      }, recheckAfterMs);
      timer.unref();
    }
    return outcome;
  } catch (error) {
    logger.warn({ ...log, err: error }, 'could not resume the session after a decision');
    return 'failed';
  }
}
