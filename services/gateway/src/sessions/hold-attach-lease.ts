import type { SessionStore } from '@fleet/sessions';

/** How long an attach lease lives without renewal; renewed every third of it while held. */
export const ATTACH_TTL_MS = 15_000;

/**
 * How long a resume waits for an attach lease another request holds before its 409: long enough
 * for a client that dropped its stream and came straight back (a reload, a retry) to find the
 * lease its old request gives up as it notices the close.
 */
export const ATTACH_WAIT_MS = 1500;

const ATTACH_POLL_MS = 50;

/** An attach lease this request holds, renewed until it is released. */
export interface HeldAttachLease {
  /** Stops renewing and gives the lease up; safe to call more than once, never throws. */
  release(): Promise<void>;
}

/** Options for {@link holdAttachLease}. */
export interface HoldAttachLeaseOptions {
  sessionId: string;
  /** Who holds it (the request), for the lease's owner field. */
  owner: string;
  /** @default {@link ATTACH_TTL_MS} */
  ttlMs?: number;
  /** How long to keep trying while another request holds it. @default 0: one try */
  waitMs?: number;
}

/**
 * Takes a session's attach lease (one client streams a session at a time) and keeps it renewed
 * while the request answers. Undefined when another request holds it (still, after `waitMs`).
 * Both the request that
 * starts a run and a resume (`X-Session-ID`) hold it, so a second client is refused with 409
 * while either is open.
 *
 * @example
 * const attach = await holdAttachLease(store, { sessionId, owner: `gateway:${requestId}` });
 * try { … } finally { await attach?.release(); }
 */
export async function holdAttachLease(
  store: SessionStore,
  { sessionId, owner, ttlMs = ATTACH_TTL_MS, waitMs = 0 }: HoldAttachLeaseOptions,
): Promise<HeldAttachLease | undefined> {
  const until = Date.now() + waitMs;
  let lease = await store.acquireAttach(sessionId, owner, ttlMs);
  while (lease === undefined && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, ATTACH_POLL_MS));
    lease = await store.acquireAttach(sessionId, owner, ttlMs);
  }
  if (lease === undefined) return undefined;
  const held = lease;
  const renewal = setInterval(
    () => {
      held.renew().catch(() => undefined);
    },
    Math.floor(ttlMs / 3),
  );
  renewal.unref();
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      clearInterval(renewal);
      await held.release().catch(() => undefined);
    },
  };
}
