import {
  FleetError,
  type FleetErrorOptions,
  fromErrorBody,
  isErrorCode,
  isRedisUnavailableError,
  ERROR_CODES,
  toFleetError,
} from '@fleet/errors';
import { errorInfoSchema, type ErrorInfo, type JsonRpcError } from '../schemas/json-rpc';
import {
  A2A_ERROR_CODES,
  A2A_ERROR_DOMAIN,
  A2A_ERROR_FACTORIES,
  A2AError,
  type A2AErrorName,
  type A2AErrorOptions,
  FLEET_ERROR_DOMAIN,
} from './a2a-errors';

const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';

const NAME_BY_REASON = new Map<string, A2AErrorName>(
  Object.entries(A2A_ERROR_CODES).flatMap(([name, entry]) =>
    entry.reason === undefined ? [] : [[entry.reason, name as A2AErrorName] as const],
  ),
);

const NAME_BY_CODE = new Map<number, A2AErrorName>(
  Object.entries(A2A_ERROR_CODES).map(([name, entry]) => [entry.jsonRpcCode, name as A2AErrorName]),
);

/** `ErrorInfo.metadata` is `map<string, string>`: other values travel as JSON. */
function toMetadata(
  values: Record<string, unknown> | undefined,
): Record<string, string> | undefined {
  if (values === undefined) return undefined;
  const entries = Object.entries(values).filter(([, value]) => value !== undefined);
  if (entries.length === 0) return undefined;
  return Object.fromEntries(
    entries.map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)]),
  );
}

function errorInfo(reason: string, domain: string, metadata?: Record<string, string>): ErrorInfo {
  return {
    '@type': ERROR_INFO_TYPE,
    reason,
    domain,
    ...(metadata === undefined ? {} : { metadata }),
  };
}

/**
 * The one outage mapping of A2A replies: the 503 a failure amounts to, or undefined. A
 * `SERVICE_UNAVAILABLE` fleet error is itself; a Redis outage (the task store, sessions), thrown by
 * the client or as the cause of an internal error, is `redisUnavailableError` (retryable, with
 * `Retry-After`), said in words rather than "Internal error.". Anything else is no outage.
 */
export function asServiceUnavailable(thrown: unknown): FleetError | undefined {
  if (!FleetError.isInstance(thrown) && !isRedisUnavailableError(thrown)) return undefined;
  const error = toFleetError(thrown);
  return error.code === 'SERVICE_UNAVAILABLE' ? error : undefined;
}

/**
 * Renders anything thrown as a v1.0 JSON-RPC `error` member: `A2AError`s with their code and an
 * `ErrorInfo` in `data`; other fleet errors as -32602 (validation), -32700 (bad JSON), -32005
 * (media type), or -32600/-32603 with the fleet code as `ErrorInfo.reason` in the
 * {@link FLEET_ERROR_DOMAIN}; an outage as {@link asServiceUnavailable} says. Unknown errors become
 * a generic -32603 and never leak their message.
 */
export function toJsonRpcError(thrown: unknown): JsonRpcError {
  const error = A2AError.isA2AError(thrown) ? thrown : (asServiceUnavailable(thrown) ?? thrown);
  if (A2AError.isA2AError(error)) {
    const metadata = { ...toMetadata({ ...error.details, param: error.param }), ...error.metadata };
    const hasMetadata = Object.keys(metadata).length > 0;
    return {
      code: error.jsonRpcCode,
      message: error.message,
      ...(error.reason === undefined
        ? {}
        : {
            data: [errorInfo(error.reason, A2A_ERROR_DOMAIN, hasMetadata ? metadata : undefined)],
          }),
    };
  }
  if (!FleetError.isInstance(error) || error.code === 'INTERNAL') {
    return { code: A2A_ERROR_CODES.INTERNAL_ERROR.jsonRpcCode, message: 'Internal error.' };
  }
  const metadata = toMetadata({ ...error.details, param: error.param });
  if (error.code === 'VALIDATION_FAILED') {
    return {
      code: A2A_ERROR_CODES.INVALID_PARAMS.jsonRpcCode,
      message: error.message,
      data: [errorInfo('INVALID_PARAMS', A2A_ERROR_DOMAIN, metadata)],
    };
  }
  if (error.code === 'MALFORMED_JSON') {
    return { code: A2A_ERROR_CODES.JSON_PARSE_ERROR.jsonRpcCode, message: error.message };
  }
  if (error.code === 'UNSUPPORTED_MEDIA_TYPE') {
    return {
      code: A2A_ERROR_CODES.CONTENT_TYPE_NOT_SUPPORTED.jsonRpcCode,
      message: error.message,
      data: [errorInfo('CONTENT_TYPE_NOT_SUPPORTED', A2A_ERROR_DOMAIN, metadata)],
    };
  }
  return {
    code:
      error.status >= 500
        ? A2A_ERROR_CODES.INTERNAL_ERROR.jsonRpcCode
        : A2A_ERROR_CODES.INVALID_REQUEST.jsonRpcCode,
    message: error.message,
    data: [errorInfo(error.code, FLEET_ERROR_DOMAIN, metadata)],
  };
}

/** Options for {@link fromJsonRpcError}. */
export interface FromJsonRpcErrorOptions {
  /** The HTTP status the error came with. @default 200 */
  status?: number;
  /** The server's `x-request-id`. */
  requestId?: string | undefined;
}

function errorInfos(data: unknown): ErrorInfo[] {
  if (!Array.isArray(data)) return [];
  return data.flatMap((entry) => {
    const parsed = errorInfoSchema.safeParse(entry);
    return parsed.success ? [parsed.data] : [];
  });
}

/**
 * Rebuilds the typed error a peer sent (CONTRIBUTING.md convention 13): by `ErrorInfo.reason` first, then by
 * code. A fleet error without an A2A code comes back as its own class (`UnauthenticatedError`, …);
 * an unknown code as a plain {@link A2AError}.
 */
export function fromJsonRpcError(
  error: JsonRpcError,
  { status = 200, requestId }: FromJsonRpcErrorOptions = {},
): FleetError {
  const infos = errorInfos(error.data);
  const fleetInfo = infos.find((info) => info.domain === FLEET_ERROR_DOMAIN);
  if (fleetInfo && isErrorCode(fleetInfo.reason)) {
    const code = fleetInfo.reason;
    // ErrorInfo metadata values are strings: a wait the sender named travels as a Retry-After.
    const retryAfter = fleetInfo.metadata?.['retryAfterSeconds'];
    const rebuilt = fromErrorBody(
      status === 200 ? ERROR_CODES[code].status : status,
      {
        error: {
          code,
          message: error.message,
          ...(fleetInfo.metadata === undefined ? {} : { details: fleetInfo.metadata }),
        },
      },
      {
        ...(requestId === undefined ? {} : { 'x-request-id': requestId }),
        ...(retryAfter === undefined ? {} : { 'retry-after': retryAfter }),
      },
    );
    if (rebuilt.code === code) return rebuilt;
    // A code without its own class (RATE_LIMITED) keeps its code, so its status and OpenAI
    // type (429, rate_limit_error) reach the caller's caller.
    return new FleetError(code, error.message, {
      status: rebuilt.status,
      ...(rebuilt.details === undefined ? {} : { details: rebuilt.details }),
      ...(rebuilt.requestId === undefined ? {} : { requestId: rebuilt.requestId }),
      ...(retryAfter === undefined || !(Number(retryAfter) > 0)
        ? {}
        : { retryAfterSeconds: Number(retryAfter) }),
    });
  }
  const a2aInfo = infos.find((info) => info.domain === A2A_ERROR_DOMAIN);
  const options: A2AErrorOptions & FleetErrorOptions = {
    ...(a2aInfo?.metadata === undefined
      ? {}
      : { metadata: a2aInfo.metadata, details: a2aInfo.metadata }),
    ...(requestId === undefined ? {} : { requestId }),
  };
  const name =
    (a2aInfo === undefined ? undefined : NAME_BY_REASON.get(a2aInfo.reason)) ??
    NAME_BY_CODE.get(error.code);
  if (name !== undefined) return A2A_ERROR_FACTORIES[name](error.message, options);
  return new A2AError(
    { jsonRpcCode: error.code, reason: a2aInfo?.reason, fleetCode: 'UPSTREAM_ERROR' },
    error.message,
    { ...options, retryable: false },
  );
}
