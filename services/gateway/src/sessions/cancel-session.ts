import { setTimeout as delay } from 'node:timers/promises';
import type { A2AClient } from '@fleet/a2a/client';
import { ConflictError } from '@fleet/errors';
import type { HttpLogger } from '@fleet/http';
import type { Session, SessionStore } from '@fleet/sessions';
import { ENDED_STATUSES } from './resume-in-background';
import { whileRunnerIdle } from './runner-probe';

/** What {@link cancelSession} needs. */
export interface CancelSessionOptions {
  store: SessionStore;
  /** The orchestrator; undefined without FLEET_INTERNAL_TOKEN. */
  client: A2AClient | undefined;
  logger: HttpLogger;
  sessionId: string;
  tenant: string;
  /**
   * When an orchestrator runs the session, how long to wait for it to record the cancel before
   * answering with the session as it stands. @default 5000
   */
  settleTimeoutMs?: number;
}

/** The instructions recorded on approvals a cancel denies. */
export const CANCELED_INSTRUCTIONS = 'session canceled';

/** How long CancelTask may take (the orchestrator waits up to 5 s for the run to stop). */
const CANCEL_TIMEOUT_MS = 15_000;
const SETTLE_POLL_MS = 100;

function endedConflict(session: Session): ConflictError {
  return new ConflictError(`Session ${session.id} has already ended (${session.status}).`, {
    details: { status: session.status },
  });
}

/**
 * Cancels a session (`DELETE /v1/sessions/{id}`): `CancelTask` on the orchestrator task recorded
 * in the session, which stops the run and makes the orchestrator mark the session canceled; if no
 * orchestrator runs the session (none holds its runner lease: after a restart, or once the run
 * stopped without recording it), the gateway marks it canceled itself, denies its pending
 * approvals with the instructions "session canceled", and publishes `session-canceled`.
 *
 * @returns the session as it stands afterwards
 * @throws NotFoundError (404) for an unknown session or another tenant's
 * @throws ConflictError (409) when it had already ended, or its lock is busy
 */
export async function cancelSession({
  store,
  client,
  logger,
  sessionId,
  tenant,
  settleTimeoutMs = 5000,
}: CancelSessionOptions): Promise<Session> {
  const session = await store.getForTenant(sessionId, tenant);
  if (ENDED_STATUSES.has(session.status)) throw endedConflict(session);

  if (session.taskId !== undefined && client !== undefined) {
    try {
      await client.cancelTask({ id: session.taskId }, { timeoutMs: CANCEL_TIMEOUT_MS });
    } catch (error) {
      // The task may be over (a resumed session runs under a new task), unknown after a restart,
      // or the orchestrator down: the session is canceled below all the same.
      logger.warn({ sessionId, taskId: session.taskId, err: error }, 'CancelTask failed');
    }
  }

  const deadline = Date.now() + settleTimeoutMs;
  for (;;) {
    const probe = await whileRunnerIdle(store, {
      sessionId,
      action: () => markCanceled(store, sessionId),
    });
    if (!probe.live) {
      const { updated, changed } = probe.value;
      if (changed) {
        await store.publish(sessionId, { type: 'session-canceled' });
        logger.info({ sessionId }, 'session canceled');
      } else if (updated.status !== 'canceled') {
        // It ended some other way while the cancel was on its way.
        throw endedConflict(updated);
      }
      return updated;
    }
    // A live orchestrator records the cancel (CancelTask stopped its run). Tell it on the
    // session's events as well, in case the recorded task id was stale, and wait a moment for
    // the session to show it.
    const current = await store.getForTenant(sessionId, tenant);
    if (ENDED_STATUSES.has(current.status)) return current;
    if (Date.now() >= deadline) {
      await store.publish(sessionId, { type: 'session-canceled' });
      return current;
    }
    await delay(SETTLE_POLL_MS);
  }
}

/** Marks a session nobody runs canceled and denies its pending approvals. */
async function markCanceled(
  store: SessionStore,
  sessionId: string,
): Promise<{ updated: Session; changed: boolean }> {
  const { session: updated, value: changed } = await store.update(sessionId, (draft) => {
    if (ENDED_STATUSES.has(draft.status)) return false;
    const now = new Date().toISOString();
    draft.status = 'canceled';
    draft.error ??= 'The session was canceled.';
    for (const approval of Object.values(draft.approvals)) {
      if (approval.status !== 'pending') continue;
      approval.status = 'denied';
      approval.decidedAt = now;
      approval.instructions = CANCELED_INSTRUCTIONS;
    }
    return true;
  });
  return { updated, changed };
}
