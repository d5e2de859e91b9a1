import { randomUUID } from 'node:crypto';
import type { SessionStore } from '@fleet/sessions';

/**
 * How long the gateway's probe holds a session's runner lease. Short: if the gateway dies while
 * holding it, an orchestrator can take the session over this soon.
 */
const PROBE_TTL_MS = 3000;

/** What {@link whileRunnerIdle} found. */
export type RunnerProbe<T> = { live: true } | { live: false; value: T };

/**
 * Runs `action` only if no orchestrator holds the session's runner lease, holding the lease
 * meanwhile so none can start running the session until `action` is done; then gives it back.
 *
 * This is how the gateway tells a session that a live orchestrator runs (it will hear approval
 * decisions and cancels on the session's events) from one that nobody runs (after a restart, or
 * with no client attached): `acquireRunner` succeeds only when the lease is free. Taking the lease
 * rather than reading its key keeps the check inside the `@fleet/sessions` contract, and makes
 * "nobody runs it" stay true while `action` runs. A lease whose holder died without releasing it
 * counts as live until its TTL runs out (15 s by default).
 */
export async function whileRunnerIdle<T>(
  store: SessionStore,
  { sessionId, action }: { sessionId: string; action: () => Promise<T> },
): Promise<RunnerProbe<T>> {
  const probe = await store.acquireRunner(sessionId, `gateway-probe:${randomUUID()}`, PROBE_TTL_MS);
  if (probe === undefined) return { live: true };
  try {
    return { live: false, value: await action() };
  } finally {
    await probe.release().catch(() => undefined);
  }
}

/** True when an orchestrator holds the session's runner lease (see {@link whileRunnerIdle}). */
export async function isRunnerLive(store: SessionStore, sessionId: string): Promise<boolean> {
  const probe = await whileRunnerIdle(store, { sessionId, action: () => Promise.resolve() });
  return probe.live;
}
