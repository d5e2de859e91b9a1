import { REDIS_RETRY_AFTER_SECONDS } from '@fleet/errors';
import { InvalidRequestError, VersionNotSupportedError } from '../../../errors/a2a-errors';
import { asServiceUnavailable, toJsonRpcError } from '../../../errors/json-rpc-error';
import { A2A_VERSION, type StreamResponse } from '../../../schemas/core';
import {
  jsonRpcIdSchema,
  jsonRpcRequestSchema,
  type JsonRpcErrorResponse,
  type JsonRpcId,
  type JsonRpcSuccessResponse,
} from '../../../schemas/json-rpc';
import type {
  A2AHandlerResult,
  A2ALogger,
  A2ARequestContext,
  A2AStreamResult,
} from '../../handler-types';
import { logFailure } from './log-failure';

/** What a method answers: one result, or the events of a stream. */
export type MethodOutcome =
  | { type: 'result'; result: unknown }
  | { type: 'stream'; events: AsyncGenerator<StreamResponse, void, undefined> };

/** Runs one method of a valid request; throws (an `A2AError`, …) when it fails. */
export type CallMethod = (
  method: string,
  params: unknown,
  context: A2ARequestContext,
) => Promise<MethodOutcome>;

/** Options for {@link handleJsonRpc}. */
export interface HandleJsonRpcOptions {
  call: CallMethod;
  logger: A2ALogger | undefined;
}

/**
 * The JSON-RPC reply to a failure: its error member, and the HTTP status (500 only for -32603, as
 * the SDK; 503 with `Retry-After` for an outage: a dependency such as Redis is down, and the caller
 * may retry after a while).
 */
export function errorReply(
  id: JsonRpcId,
  error: unknown,
): { status: number; body: JsonRpcErrorResponse; headers?: Record<string, string> } {
  const body: JsonRpcErrorResponse = { jsonrpc: '2.0', id, error: toJsonRpcError(error) };
  const unavailable = asServiceUnavailable(error);
  if (unavailable !== undefined) {
    const retryAfter = unavailable.retryAfterSeconds ?? REDIS_RETRY_AFTER_SECONDS;
    return { status: 503, body, headers: { 'retry-after': String(retryAfter) } };
  }
  return { status: body.error.code === -32603 ? 500 : 200, body };
}

/** An id the request carried, if it is a valid one (for replies to invalid requests). */
function idOf(body: unknown): JsonRpcId {
  if (typeof body !== 'object' || body === null) return null;
  const parsed = jsonRpcIdSchema.safeParse((body as Record<string, unknown>)['id']);
  return parsed.success ? parsed.data : null;
}

/**
 * Refuses any `A2A-Version` but "1.0". SDK 1.x behaviour: only the exact string "1.0" is accepted.
 * A missing header means 0.3 (spec §3.2.6), which this server does not speak, so it is refused
 * too; "1.0.0" is refused like the SDK does, although the spec says patch versions should be
 * ignored.
 */
function checkVersion(version: string | undefined): void {
  if (version?.trim() === A2A_VERSION) return;
  throw new VersionNotSupportedError(
    version === undefined
      ? 'The A2A-Version header is missing (which means 0.3); this agent speaks A2A 1.0: send A2A-Version: 1.0.'
      : `A2A version ${version} is not supported; send A2A-Version: 1.0.`,
  );
}

/** Wraps a method's events in JSON-RPC envelopes; a failure is logged and rethrown. */
function streamReply(
  { id, method, logger }: { id: JsonRpcId; method: string; logger: A2ALogger | undefined },
  events: AsyncGenerator<StreamResponse, void, undefined>,
): A2AStreamResult {
  async function* envelopes(): AsyncGenerator<JsonRpcSuccessResponse, void, undefined> {
    try {
      for await (const result of events) yield { jsonrpc: '2.0', id, result };
    } catch (error) {
      logFailure(logger, error, { method });
      throw error;
    }
  }
  return {
    type: 'stream',
    id,
    events: envelopes(),
    renderError: (error) => errorReply(id, error),
  };
}

/**
 * Handles one JSON-RPC request (already parsed from JSON): checks the envelope and the A2A
 * version, runs the method through `call`, and answers with JSON or a stream. Never throws: every
 * failure is logged and becomes a JSON-RPC error reply.
 */
export async function handleJsonRpc(
  body: unknown,
  context: A2ARequestContext,
  { call, logger }: HandleJsonRpcOptions,
): Promise<A2AHandlerResult> {
  const request = jsonRpcRequestSchema.safeParse(body);
  if (!request.success) {
    return {
      type: 'json',
      ...errorReply(
        idOf(body),
        new InvalidRequestError(
          'Invalid JSON-RPC request: expected { jsonrpc: "2.0", method, id, params }.',
        ),
      ),
    };
  }
  const { method, params } = request.data;
  const id = request.data.id ?? null;
  try {
    checkVersion(context.version);
    const outcome = await call(method, params, context);
    if (outcome.type === 'stream') return streamReply({ id, method, logger }, outcome.events);
    return { type: 'json', status: 200, body: { jsonrpc: '2.0', id, result: outcome.result } };
  } catch (error) {
    logFailure(logger, error, { method });
    return { type: 'json', ...errorReply(id, error) };
  }
}
