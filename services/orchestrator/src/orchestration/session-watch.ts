import { NotFoundError } from '@fleet/errors';
import type { Approval, SessionStore } from '@fleet/sessions';

/** The longest delay setTimeout takes. */
const MAX_TIMER_MS = 2_147_483_647;

/** Options for {@link watchSession}. */
export interface WatchSessionOptions {
  sessions: SessionStore;
  sessionId: string;
  /** Called when the session is canceled from anywhere (`session-canceled`). */
  onCanceled: () => void;
  /** Logs the failures of background reads. */
  logger: { warn(object: object, message?: string): void };
  /**
   * How often a waiting approval is read again even without an event (pub/sub drops messages
   * while a connection reconnects). @default 5000
   */
  pollMs?: number;
}

/** Options for {@link SessionWatch.waitForDecision}. */
export interface WaitForDecisionOptions {
  approvalId: string;
  /** ISO time at which `onExpired` is called. */
  expiresAt: string;
  /** Marks the approval timed out if it is still pending; returns it as it then stands. */
  onExpired: () => Promise<Approval | undefined>;
  signal: AbortSignal;
}

/** One run's subscription to its session's events. */
export interface SessionWatch {
  /**
   * Resolves with the approval once it is no longer pending: decided by a person (on any replica),
   * timed out here at `expiresAt`, or expired elsewhere. Rejects when `signal` aborts or the
   * session is gone.
   */
  waitForDecision(options: WaitForDecisionOptions): Promise<Approval>;
  /** Ends the subscription. */
  close(): Promise<void>;
}

/**
 * Subscribes to a session's events for the length of a run: decisions wake the nodes waiting for
 * them, and `session-canceled` stops the run (wherever the cancel came from). Each wait reads the
 * session once right after registering, so a decision made before the wait began is not missed.
 *
 * @example
 * const watch = await watchSession({ sessions, sessionId, onCanceled: () => controller.abort(), logger });
 * const approval = await watch.waitForDecision({ approvalId, expiresAt, onExpired, signal });
 */
export async function watchSession({
  sessions,
  sessionId,
  onCanceled,
  logger,
  pollMs = 5000,
}: WatchSessionOptions): Promise<SessionWatch> {
  const wakers: Wakers = new Map();
  const unsubscribe = await sessions.subscribe(sessionId, (event) => {
    if (event.type === 'session-canceled') onCanceled();
    else if (event.type === 'approval-decided') {
      for (const wake of wakers.get(event.approvalId) ?? []) wake();
    }
  });
  const watched: WatchedSession = { sessions, sessionId, logger, pollMs, wakers };

  return {
    waitForDecision: (options) => waitForDecision(watched, options),
    async close() {
      wakers.clear();
      await unsubscribe();
    },
  };
}

/** The wake-ups of the waits in progress, by approval id (a decision event wakes them). */
type Wakers = Map<string, Set<() => void>>;

/** What a wait reads and registers with. */
interface WatchedSession {
  sessions: SessionStore;
  sessionId: string;
  logger: WatchSessionOptions['logger'];
  pollMs: number;
  wakers: Wakers;
}

/** {@link SessionWatch.waitForDecision}: woken by decision events, polled, timed out at `expiresAt`. */
function waitForDecision(
  { sessions, sessionId, logger, pollMs, wakers }: WatchedSession,
  { approvalId, expiresAt, onExpired, signal }: WaitForDecisionOptions,
): Promise<Approval> {
  return new Promise<Approval>((resolve, reject) => {
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const finish = (settle: () => void): void => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      clearInterval(poll);
      signal.removeEventListener('abort', onAbort);
      const set = wakers.get(approvalId);
      set?.delete(wake);
      if (set?.size === 0) wakers.delete(approvalId);
      settle();
    };
    const settleWith = (approval: Approval | undefined): boolean => {
      if (approval === undefined) {
        finish(() =>
          reject(new NotFoundError(`Approval ${approvalId} is gone from session ${sessionId}.`)),
        );
        return true;
      }
      if (approval.status === 'pending') return false;
      finish(() => resolve(approval));
      return true;
    };
    const check = (): void => {
      if (settled) return;
      sessions.get(sessionId).then(
        (session) => {
          if (session === undefined) {
            finish(() =>
              reject(new NotFoundError(`Session ${sessionId} does not exist or has expired.`)),
            );
            return;
          }
          settleWith(session.approvals[approvalId]);
        },
        (error: unknown) => {
          logger.warn({ sessionId, approvalId, err: error }, 'could not read the approval');
        },
      );
    };
    const wake = (): void => check();
    const onAbort = (): void => finish(() => reject(toError(signal.reason)));
    const expire = (): void => {
      if (settled) return;
      onExpired().then(
        (approval) => {
          // Still pending (the write failed): try again shortly.
          if (!settleWith(approval)) timers.push(setTimeout(expire, 1000));
        },
        (error: unknown) => {
          logger.warn({ sessionId, approvalId, err: error }, 'could not time the approval out');
          timers.push(setTimeout(expire, 1000));
        },
      );
    };

    if (signal.aborted) {
      reject(toError(signal.reason));
      return;
    }
    const poll = setInterval(check, pollMs);
    poll.unref();
    signal.addEventListener('abort', onAbort, { once: true });
    let set = wakers.get(approvalId);
    if (set === undefined) {
      set = new Set();
      wakers.set(approvalId, set);
    }
    set.add(wake);
    // setTimeout fires at once beyond 2^31-1 ms: a far expiry is armed in steps.
    const arm = (): void => {
      const delay = Date.parse(expiresAt) - Date.now();
      timers.push(
        delay > MAX_TIMER_MS
          ? setTimeout(arm, MAX_TIMER_MS)
          : setTimeout(expire, Math.max(0, delay)),
      );
    };
    arm();
    check();
  });
}

function toError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}
