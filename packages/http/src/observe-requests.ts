import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { HttpLogger } from './logger';
import type { Metrics } from './metrics';
import { getRequestId } from './request-id';

const LOG_FIELDS = Symbol.for('fleet.logFields');

type WithLogFields = ServerResponse & { [LOG_FIELDS]?: Record<string, unknown> };

/**
 * Adds fields to this request's access log line, e.g. the tenant once it is known. Never pass
 * secrets: the line is written as is.
 */
export function addLogFields(res: ServerResponse, fields: Record<string, unknown>): void {
  const target = res as WithLogFields;
  target[LOG_FIELDS] = { ...target[LOG_FIELDS], ...fields };
}

/** Options for {@link observeResponse} and {@link observeRequests}. */
export interface ObserveOptions {
  /** Writes one `request` line per response; omit for none. */
  logger?: HttpLogger | undefined;
  /** Counts and times each response; omit for none. */
  metrics?: Metrics | undefined;
  /** Paths neither logged nor counted. @default ['/healthz', '/readyz', '/metrics'] */
  ignorePaths?: readonly string[];
}

/** What the observer needs to know about one request. */
export interface ObservedRequest {
  req: IncomingMessage;
  res: ServerResponse;
  /** The path for the log line, without the query string. */
  path: string;
  /** The route pattern for metric labels (bounded cardinality), resolved when the response ends. */
  route: () => string;
}

/**
 * Logs and counts one request when its response is over (streams included): method, path,
 * status, duration, request id and any {@link addLogFields} fields; metrics by method, route and
 * status. Works on plain `node:http` objects so hot paths outside express share it.
 */
export function observeResponse(
  { req, res, path, route }: ObservedRequest,
  { logger, metrics }: ObserveOptions,
): void {
  const started = process.hrtime.bigint();
  res.once('close', () => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const method = req.method ?? 'GET';
    metrics?.record({ method, route: route(), status: res.statusCode, seconds });
    if (logger === undefined || logger.isLevelEnabled?.('info') === false) return;
    logger.info(
      {
        requestId: getRequestId(res),
        method,
        path,
        status: res.statusCode,
        ms: Math.round(seconds * 1e5) / 100,
        ...(res as WithLogFields)[LOG_FIELDS],
        ...(res.writableFinished ? {} : { aborted: true }),
      },
      'request',
    );
  });
}

/**
 * Express middleware running {@link observeResponse} for every request, labelled with the matched
 * route pattern.
 *
 * @example
 * app.use(observeRequests({ logger, metrics }));
 */
export function observeRequests({
  logger,
  metrics,
  ignorePaths = ['/healthz', '/readyz', '/metrics'],
}: ObserveOptions) {
  const ignored = new Set(ignorePaths);
  return function observeRequestsMiddleware(req: Request, res: Response, next: NextFunction): void {
    if (!ignored.has(req.path)) {
      observeResponse(
        {
          req,
          res,
          path: req.path,
          route: () => {
            const routePath: unknown = (req.route as { path?: unknown } | undefined)?.path;
            return typeof routePath === 'string' ? `${req.baseUrl}${routePath}` : 'unmatched';
          },
        },
        { logger, metrics },
      );
    }
    next();
  };
}
