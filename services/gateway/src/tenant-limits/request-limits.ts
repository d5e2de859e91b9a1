import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ForwardObserver } from '../upstream';
import type { LimitedRoute, TenantLimiter } from './tenant-limiter';
import { createUsageTap } from './usage-tap';

/** What a hot-path route does with its tenant's limits once the request was admitted. */
export interface RequestLimits {
  /**
   * Passthrough: an observer that adds the tokens the upstream's answer reports to the tenant's
   * day; undefined (no cost) when the tenant has no token budget.
   */
  usageObserver(): ForwardObserver | undefined;
  /** The agent routes: adds a run's tokens to the tenant's day (unknown usage adds nothing). */
  recordTokens(tokens: number | undefined): void;
  /**
   * A new orchestrated run: takes one of the tenant's run slots and holds it until the response
   * closes (finished, failed or left by the client).
   * @throws RateLimitError when the tenant's runs or waiting runs are at their limit
   */
  holdRunSlot(): Promise<void>;
}

/** Limits that limit nothing: the app without a limiter. */
export const NO_REQUEST_LIMITS: RequestLimits = {
  usageObserver: () => undefined,
  recordTokens: () => undefined,
  holdRunSlot: () => Promise.resolve(),
};

/**
 * Admits one hot-path request (its bucket, and the token budget unless it resumes a session with
 * `X-Session-ID`: resuming is not a new request) and answers what its route does with the
 * tenant's limits afterwards. The limit is checked here, when the request starts, and never again:
 * nothing that started is cut by a limit.
 * @throws RateLimitError (429) when the request is refused
 */
export async function admitHotRequest(
  limiter: TenantLimiter,
  {
    tenant,
    route,
    req,
    res,
  }: { tenant: string; route: LimitedRoute; req: IncomingMessage; res: ServerResponse },
): Promise<RequestLimits> {
  const resume = req.headers['x-session-id'] !== undefined;
  const { countsTokens } = await limiter.admit({ tenant, route, res, budget: !resume });
  const recordTokens = (tokens: number | undefined): void => {
    if (countsTokens) limiter.recordTokens(tenant, tokens);
  };
  return {
    usageObserver: () => (countsTokens ? createUsageTap(recordTokens) : undefined),
    recordTokens,
    async holdRunSlot() {
      const slot = await limiter.acquireRun({ tenant, res });
      // 'close' comes once the response ended, failed or its client left; if that already
      // happened while the slot was taken, give it back now.
      if (res.closed || res.destroyed) slot.release();
      else res.once('close', () => slot.release());
    },
  };
}
