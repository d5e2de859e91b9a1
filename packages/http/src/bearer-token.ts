import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { UnauthenticatedError } from '@fleet/errors';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * A check of an `Authorization` header against a bearer token: true only for exactly
 * `Bearer <token>`. Constant time (it compares digests, so lengths leak nothing either).
 *
 * @example
 * const matches = bearerTokenCheck(config.internalToken);
 * if (!matches(req.get('authorization'))) throw new UnauthenticatedError('…');
 */
export function bearerTokenCheck(token: string): (authorization: string | undefined) => boolean {
  const expected = digest(token);
  return (authorization) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    const presented = digest(match?.[1] ?? '');
    return timingSafeEqual(presented, expected) && match !== null;
  };
}

/** Options for {@link requireBearerToken}. */
export interface RequireBearerTokenOptions {
  /** The token requests must carry as `Authorization: Bearer <token>`. */
  token: string;
  /** The 401's message. @default 'This endpoint needs Authorization: Bearer <internal token>.' */
  message?: string;
}

/**
 * Express middleware that lets a request through only with `Authorization: Bearer <token>`
 * ({@link bearerTokenCheck}); any other gets `WWW-Authenticate: Bearer` and the fleet's 401
 * (`UnauthenticatedError`, rendered by the error middleware). The guard of the fleet's internal
 * routes, the same check as an agent's `POST /a2a`.
 *
 * @example
 * app.use('/internal', requireBearerToken({ token: config.internalToken }), internalRoutes);
 */
export function requireBearerToken({
  token,
  message = 'This endpoint needs Authorization: Bearer <internal token>.',
}: RequireBearerTokenOptions): RequestHandler {
  const matches = bearerTokenCheck(token);
  return function checkBearerToken(req: Request, res: Response, next: NextFunction): void {
    if (matches(req.get('authorization'))) {
      next();
      return;
    }
    res.setHeader('www-authenticate', 'Bearer');
    next(new UnauthenticatedError(message));
  };
}
