import type { NextFunction, Request, Response } from 'express';
import { getTenant } from '../auth';
import type { TenantLimiter } from './tenant-limiter';

/** A person's decision on a waiting run: never refused, so a limit never cuts a waiting run. */
const DECISION_PATH = /^\/sessions\/[^/]+\/((approvals|inputs)\/[^/]+|review)\/?$/;

/**
 * Counts the rest of `/v1` (models, sessions, documents, memory) as one request bucket per
 * tenant, after authentication. Approval decisions, answers to questions and review decisions are
 * never counted or refused: they let waiting runs go on.
 *
 * @example
 * v1.use(authenticate(keyRing));
 * v1.use(limitApiRequests(limiter));
 */
export function limitApiRequests(limiter: TenantLimiter) {
  return function limitApiRequestsMiddleware(
    req: Request,
    res: Response,
    next: NextFunction,
  ): void {
    if (req.method === 'POST' && DECISION_PATH.test(req.path)) {
      next();
      return;
    }
    limiter.admit({ tenant: getTenant(res), route: 'api', res }).then(() => next(), next);
  };
}
