import { ERROR_CODES, isRetryableStatus, type ErrorCode } from './error-codes';
import { isRedisUnavailableError, REDIS_RETRY_AFTER_SECONDS } from './redis-unavailable';

const FLEET_ERROR_BRAND = Symbol.for('fleet.error');

/** Options every {@link FleetError} accepts. */
export interface FleetErrorOptions {
  /** The error that caused this one; kept for logs, never sent to clients. */
  cause?: unknown;
  /** Structured, client-safe detail (validation issues, allowed values, …). */
  details?: Record<string, unknown>;
  /** The request field at fault, e.g. `messages[0].role` (OpenAI's `param`). */
  param?: string;
  /** Overrides the status derived from the code, e.g. an upstream's own 429. */
  status?: number;
  /** Overrides whether a caller may retry. */
  retryable?: boolean;
  /** The id the server that raised it gave the request (`x-request-id`). */
  requestId?: string;
  /** Seconds a client should wait before retrying; sent as `Retry-After` (429/503). */
  retryAfterSeconds?: number;
}

/**
 * The root of every error the fleet raises on purpose. It carries a code from the one table, a
 * message that is safe to show a client, and the cause for the logs.
 *
 * `FleetError.isInstance()` works across duplicate copies of this package, which pnpm can create.
 *
 * @example
 * throw new FleetError('CONFLICT', 'The session is locked by another request.');
 */
export class FleetError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;
  readonly param: string | undefined;
  readonly requestId: string | undefined;
  readonly isRetryable: boolean;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message: string, options: FleetErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.status = options.status ?? ERROR_CODES[code].status;
    this.details = options.details;
    this.param = options.param;
    this.requestId = options.requestId;
    this.isRetryable = options.retryable ?? isRetryableStatus(this.status);
    this.retryAfterSeconds = options.retryAfterSeconds;
    Object.defineProperty(this, FLEET_ERROR_BRAND, { value: true });
  }

  /** True for any `FleetError`, even one built by another copy of this package. */
  static isInstance(error: unknown): error is FleetError {
    return (
      typeof error === 'object' &&
      error !== null &&
      (error as Record<symbol, unknown>)[FLEET_ERROR_BRAND] === true
    );
  }
}

/** A request the server will not process as sent (400). */
export class BadRequestError extends FleetError {
  constructor(message: string, options: FleetErrorOptions = {}) {
    super('BAD_REQUEST', message, options);
  }
}

/** Input that failed schema validation (400); `details.issues` lists every problem. */
export class ValidationError extends FleetError {
  constructor(message: string, options: FleetErrorOptions = {}) {
    super('VALIDATION_FAILED', message, options);
  }
}

/** A body that is not valid JSON (400). */
export class MalformedJsonError extends FleetError {
  constructor(message = 'The request body is not valid JSON.', options: FleetErrorOptions = {}) {
    super('MALFORMED_JSON', message, options);
  }
}

/** Missing or wrong credentials (401). */
export class UnauthenticatedError extends FleetError {
  constructor(message: string, options: FleetErrorOptions = {}) {
    super('UNAUTHENTICATED', message, options);
  }
}

/** Authenticated, but not allowed (403). */
export class PermissionDeniedError extends FleetError {
  constructor(message: string, options: FleetErrorOptions = {}) {
    super('PERMISSION_DENIED', message, options);
  }
}

/** Unknown, expired or someone else's resource (404). */
export class NotFoundError extends FleetError {
  constructor(message: string, options: FleetErrorOptions = {}) {
    super('NOT_FOUND', message, options);
  }
}

/** The resource is busy or already in another state (409). */
export class ConflictError extends FleetError {
  constructor(message: string, options: FleetErrorOptions = {}) {
    super('CONFLICT', message, { retryable: false, ...options });
  }
}

/** A body over the configured size limit (413). */
export class PayloadTooLargeError extends FleetError {
  constructor(message: string, options: FleetErrorOptions = {}) {
    super('PAYLOAD_TOO_LARGE', message, options);
  }
}

/** Request headers over the server's header size limit (431). */
export class HeadersTooLargeError extends FleetError {
  constructor(message: string, options: FleetErrorOptions = {}) {
    super('HEADERS_TOO_LARGE', message, options);
  }
}

/** A body in a content type the endpoint does not take (415). */
export class UnsupportedMediaTypeError extends FleetError {
  constructor(message: string, options: FleetErrorOptions = {}) {
    super('UNSUPPORTED_MEDIA_TYPE', message, options);
  }
}

/** A route or mode that is part of the design but not built yet (501). */
export class NotImplementedError extends FleetError {
  constructor(message: string, options: FleetErrorOptions = {}) {
    super('NOT_IMPLEMENTED', message, options);
  }
}

/** A dependency the request needs is not configured or not ready (503). */
export class ServiceUnavailableError extends FleetError {
  constructor(message: string, options: FleetErrorOptions = {}) {
    super('SERVICE_UNAVAILABLE', message, options);
  }
}

/**
 * The 503 for a request that needs Redis while Redis cannot be reached: retryable, with
 * `Retry-After` ({@link REDIS_RETRY_AFTER_SECONDS} seconds). The one mapping of Redis outages,
 * applied by {@link toFleetError} to whatever a Redis client threw.
 */
export function redisUnavailableError(cause?: unknown): ServiceUnavailableError {
  return new ServiceUnavailableError(
    'Redis, where sessions, memory and tasks are kept, cannot be reached right now; try again in a few seconds.',
    { cause, retryable: true, retryAfterSeconds: REDIS_RETRY_AFTER_SECONDS },
  );
}

/** The OpenAI `code` of a 429 the fleet sends itself, saying which limit was reached. */
export type RateLimitCode =
  'rate_limit_exceeded' | 'concurrency_limit_exceeded' | 'tokens_per_day_exceeded';

/** Options for {@link RateLimitError}. */
export interface RateLimitErrorOptions extends FleetErrorOptions {
  /** Which limit was reached, as OpenAI's `code`. @default 'rate_limit_exceeded' */
  limitCode?: RateLimitCode;
}

/**
 * A limit of the caller's was reached (429, retryable, OpenAI type `rate_limit_error`): requests
 * per window, concurrent runs, or tokens per day. `retryAfterSeconds` becomes `Retry-After`.
 *
 * @example
 * throw new RateLimitError('60 requests per minute reached.', { retryAfterSeconds: 12 });
 */
export class RateLimitError extends FleetError {
  readonly limitCode: RateLimitCode;

  constructor(
    message: string,
    { limitCode = 'rate_limit_exceeded', ...options }: RateLimitErrorOptions = {},
  ) {
    super('RATE_LIMITED', message, { retryable: true, ...options });
    this.limitCode = limitCode;
  }
}

/** Anything unexpected (500). Its message is generic; the cause holds the truth for the logs. */
export class InternalError extends FleetError {
  constructor(message = 'Internal server error.', options: FleetErrorOptions = {}) {
    super('INTERNAL', message, options);
  }
}

/** Options for errors raised by an outbound HTTP call. */
export interface UpstreamErrorOptions extends FleetErrorOptions {
  /** The parsed upstream body, if it had one. */
  body?: unknown;
  /** The upstream's response headers. */
  headers?: Record<string, string>;
}

/**
 * An upstream answered with an HTTP error. `status` is the upstream's own status, so a 429 from
 * the LLM reaches the client as a 429.
 */
export class UpstreamError extends FleetError {
  readonly body: unknown;
  readonly headers: Record<string, string>;

  constructor(message: string, options: UpstreamErrorOptions & { status: number }) {
    super('UPSTREAM_ERROR', message, options);
    this.body = options.body;
    this.headers = options.headers ?? {};
  }
}

/** The upstream could not be reached: refused, reset, DNS (502, retryable). */
export class ConnectionError extends FleetError {
  constructor(message: string, options: FleetErrorOptions = {}) {
    super('UPSTREAM_UNREACHABLE', message, { retryable: true, ...options });
  }
}

/** The upstream did not answer in time (504, retryable). */
export class UpstreamTimeoutError extends FleetError {
  constructor(message: string, options: FleetErrorOptions = {}) {
    super('UPSTREAM_TIMEOUT', message, { retryable: true, ...options });
  }
}

/** An upstream stream that ended before its terminator (502; never replayed). */
export class StreamInterruptedError extends FleetError {
  constructor(message: string, options: FleetErrorOptions = {}) {
    super('UPSTREAM_STREAM_INTERRUPTED', message, { retryable: false, ...options });
  }
}

/** The caller went away, or aborted the operation (499, not retryable). */
export class AbortError extends FleetError {
  constructor(message = 'The operation was aborted.', options: FleetErrorOptions = {}) {
    super('CLIENT_CLOSED_REQUEST', message, { retryable: false, ...options });
  }
}

/** Configuration that fails validation at boot; the message lists every bad variable. */
export class ConfigError extends FleetError {
  constructor(message: string, options: FleetErrorOptions = {}) {
    super('CONFIG_INVALID', message, { retryable: false, ...options });
  }
}

/**
 * Normalises anything thrown into a {@link FleetError}, keeping the original as `cause`.
 * An `AbortError` from fetch/undici/AbortSignal becomes {@link AbortError}; a Redis client that
 * cannot reach Redis (ioredis, Redlock), even as the cause of an internal error, becomes a 503
 * with `Retry-After` ({@link redisUnavailableError}).
 */
export function toFleetError(error: unknown): FleetError {
  if (FleetError.isInstance(error)) {
    if (error.code === 'INTERNAL' && isRedisUnavailableError(error.cause)) {
      return redisUnavailableError(error.cause);
    }
    return error;
  }
  if (isRedisUnavailableError(error)) return redisUnavailableError(error);
  if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')) {
    return error.name === 'TimeoutError'
      ? new UpstreamTimeoutError('The operation timed out.', { cause: error })
      : new AbortError(undefined, { cause: error });
  }
  return new InternalError(undefined, { cause: error });
}
