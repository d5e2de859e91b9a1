import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';

const SAFE_REQUEST_ID = /^[\w.:-]{1,128}$/;
const REQUEST_ID = Symbol.for('fleet.requestId');

type WithRequestId = ServerResponse & { [REQUEST_ID]?: string };

/** Options for {@link requestId} and {@link assignRequestId}. */
export interface RequestIdOptions {
  /** Header read from the caller and echoed on the response. @default 'x-request-id' */
  headerName?: string;
}

/**
 * Gives a request its id: the caller's `x-request-id` when it is short and plain, otherwise a new
 * UUID. The id is echoed on the response and kept on it for {@link getRequestId}. Works on plain
 * `node:http` objects, so hot paths outside express share it.
 */
export function assignRequestId(
  req: IncomingMessage,
  res: ServerResponse,
  { headerName = 'x-request-id' }: RequestIdOptions = {},
): string {
  const incoming = req.headers[headerName];
  const id =
    typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  (res as WithRequestId)[REQUEST_ID] = id;
  res.setHeader(headerName, id);
  return id;
}

/** The request id {@link assignRequestId} gave this response ('' when none was assigned). */
export function getRequestId(res: ServerResponse): string {
  return (res as WithRequestId)[REQUEST_ID] ?? '';
}

/**
 * Express middleware that calls {@link assignRequestId} for every request.
 *
 * @example
 * app.use(requestId());
 */
export function requestId(options: RequestIdOptions = {}) {
  return function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
    assignRequestId(req, res, options);
    next();
  };
}
