import type { ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import {
  BadRequestError,
  FleetError,
  MalformedJsonError,
  NotFoundError,
  PayloadTooLargeError,
  REDIS_RETRY_AFTER_SECONDS,
  UpstreamError,
  isRedisUnavailableError,
  toErrorBody,
  toFleetError,
  toOpenAIErrorBody,
} from '@fleet/errors';
import { type HttpLogger, silentLogger } from './logger';
import { getRequestId } from './request-id';

/** Which body errors are rendered in: the fleet's own, or OpenAI's envelope (public API). */
export type ErrorFormat = 'fleet' | 'openai';

/** Options for {@link errorMiddleware} and {@link sendError}. */
export interface ErrorMiddlewareOptions {
  /** @default 'fleet' */
  format?: ErrorFormat;
  logger?: HttpLogger;
  /** Adds the stack to fleet-format bodies; keep false in production. @default false */
  exposeStack?: boolean;
}

interface HttpErrorLike {
  status?: unknown;
  statusCode?: unknown;
  type?: unknown;
  expose?: unknown;
  message?: unknown;
}

/** Turns errors raised by express itself or its body parsers into fleet errors. */
function normalise(error: unknown): FleetError {
  if (FleetError.isInstance(error)) return error;
  if (typeof error === 'object' && error !== null) {
    const httpError = error as HttpErrorLike;
    if (httpError.type === 'entity.too.large') {
      return new PayloadTooLargeError('The request body is larger than the limit.', {
        cause: error,
      });
    }
    if (httpError.type === 'entity.parse.failed') {
      return new MalformedJsonError(undefined, { cause: error });
    }
    const status = Number(httpError.status ?? httpError.statusCode);
    if (error instanceof URIError) {
      // The router could not decode a path parameter (`/v1/sessions/%zz`): the client's URL.
      return new BadRequestError(
        `The URL has a malformed percent-escape (${String(httpError.message)}).`,
        { cause: error },
      );
    }
    if (status >= 400 && status < 500 && httpError.expose === true) {
      return new BadRequestError(String(httpError.message), { cause: error, status });
    }
  }
  return toFleetError(error);
}

/** Options for {@link renderErrorBody}. */
export interface RenderErrorBodyOptions {
  /** @default 'fleet' */
  format?: ErrorFormat;
  /** Put in fleet-format bodies. */
  requestId?: string | undefined;
  /** Adds the stack of an unexpected error to fleet-format bodies. @default false */
  exposeStack?: boolean;
}

/**
 * Renders any error as a response body in the chosen format: the one rendering behind
 * {@link sendError}'s JSON answers and the `event: error` frame of a stream that fails after it
 * started (`SseWriter.fail`), so both carry the same body.
 */
export function renderErrorBody(
  error: unknown,
  { format = 'fleet', requestId, exposeStack = false }: RenderErrorBodyOptions = {},
): unknown {
  const fleetError = normalise(error);
  if (format === 'openai') return toOpenAIErrorBody(fleetError);
  const body = toErrorBody(fleetError, { requestId });
  if (exposeStack && fleetError.code === 'INTERNAL' && fleetError.cause instanceof Error) {
    return { error: { ...body.error, stack: fleetError.cause.stack } };
  }
  return body;
}

/**
 * `Retry-After`: an upstream's own travels with its 429/503 so clients back off as it asked; an
 * error that names a wait (`retryAfterSeconds`, e.g. Redis unreachable) sends it; a 503 caused by
 * an unreachable Redis waits {@link REDIS_RETRY_AFTER_SECONDS}.
 */
function retryAfterOf(error: FleetError): string | undefined {
  if (error instanceof UpstreamError) return error.headers['retry-after'];
  if (error.retryAfterSeconds !== undefined) return String(error.retryAfterSeconds);
  if (error.code === 'SERVICE_UNAVAILABLE' && isRedisUnavailableError(error.cause)) {
    return String(REDIS_RETRY_AFTER_SECONDS);
  }
  return undefined;
}

/** Where an error happened, for its log line. */
export interface ErrorContext {
  method: string;
  path: string;
}

/**
 * The one place a failure becomes an HTTP response (CONTRIBUTING.md convention 12): maps the error's code to
 * its status and body, logs it (unexpected errors in full, known ones in one line), and, if the
 * response already started, only ends it. Works on plain `node:http` responses too.
 */
export function sendError(
  res: ServerResponse,
  error: unknown,
  {
    format = 'fleet',
    logger = silentLogger,
    exposeStack = false,
    context,
  }: ErrorMiddlewareOptions & { context: ErrorContext },
): void {
  const fleetError = normalise(error);
  const requestId = getRequestId(res);
  const where = { requestId, ...context, code: fleetError.code };
  // Only the unexpected gets a stack; known failures (upstream down, offline, 4xx) are one line.
  if (fleetError.code === 'INTERNAL') logger.error({ ...where, err: error }, fleetError.message);
  else if (fleetError.status >= 500) logger.warn(where, fleetError.message);
  else logger.debug(where, fleetError.message);
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify(renderErrorBody(fleetError, { format, requestId, exposeStack }));
  const retryAfter = retryAfterOf(fleetError);
  res.statusCode = fleetError.status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(body));
  if (retryAfter !== undefined) res.setHeader('retry-after', retryAfter);
  res.end(body);
}

/**
 * Express's error handler, mounted last: business code throws, {@link sendError} answers.
 *
 * @example
 * app.use(errorMiddleware({ format: 'openai', logger }));
 */
export function errorMiddleware(options: ErrorMiddlewareOptions = {}) {
  // Express recognises an error handler by its four parameters, so max-params cannot apply here.
  // eslint-disable-next-line max-params
  return function handleError(
    error: unknown,
    req: Request,
    res: Response,
    _next: NextFunction,
  ): void {
    sendError(res, error, { ...options, context: { method: req.method, path: req.path } });
  };
}

/** A final handler for unmatched routes: 404 in the chosen format. */
export function notFoundHandler({ format = 'fleet' }: { format?: ErrorFormat } = {}) {
  return function notFound(req: Request, res: Response): void {
    sendError(res, new NotFoundError(`No route for ${req.method} ${req.path}.`), {
      format,
      context: { method: req.method, path: req.path },
    });
  };
}
