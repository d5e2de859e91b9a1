import type { ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { UnauthenticatedError } from '@fleet/errors';
import { addLogFields, assertHeadersSentOnce } from '@fleet/http';
import type { ApiKeyRing } from './api-key-ring';
import { SINGLE_HEADERS } from './single-headers';

const TENANT = Symbol.for('fleet.tenant');

type WithTenant = ServerResponse & { [TENANT]?: string };

/** The tenant {@link authenticateRequest} resolved for this response's request. */
export function getTenant(res: ServerResponse): string {
  const tenant = (res as WithTenant)[TENANT];
  if (tenant === undefined)
    throw new Error('getTenant() used on a request that was not authenticated');
  return tenant;
}

/**
 * Checks `Authorization: Bearer <key>` against the key ring and records the key's tenant on the
 * response (and in its access log line). The key itself is never logged.
 *
 * @throws UnauthenticatedError (401) for a missing, malformed or unknown key.
 */
export function authenticateRequest(
  keyRing: ApiKeyRing,
  { authorization, res }: { authorization: string | undefined; res: ServerResponse },
): string {
  const match = authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match?.[1]) {
    throw new UnauthenticatedError(
      authorization === undefined
        ? "You didn't provide an API key. Send it as `Authorization: Bearer <key>`."
        : 'The Authorization header must be `Bearer <key>`.',
    );
  }
  const tenant = keyRing.tenantOf(match[1]);
  if (tenant === undefined) throw new UnauthenticatedError('Incorrect API key provided.');
  (res as WithTenant)[TENANT] = tenant;
  addLogFields(res, { tenant });
  return tenant;
}

/**
 * Express middleware requiring a configured key (see {@link authenticateRequest}); failures go to
 * the error middleware as 401s. A request that repeats an identity or routing header
 * ({@link SINGLE_HEADERS}) is refused with 400 first.
 *
 * @example
 * v1.use(authenticate(createApiKeyRing(config.apiKeys)));
 */
export function authenticate(keyRing: ApiKeyRing) {
  return function authenticateMiddleware(req: Request, res: Response, next: NextFunction): void {
    try {
      assertHeadersSentOnce(req, SINGLE_HEADERS);
      authenticateRequest(keyRing, { authorization: req.headers.authorization, res });
      next();
    } catch (error) {
      next(error);
    }
  };
}
