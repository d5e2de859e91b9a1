import { z } from 'zod';
import { ERROR_CODES, isErrorCode, type ErrorCode } from './error-codes';
import {
  AbortError,
  BadRequestError,
  ConfigError,
  ConflictError,
  ConnectionError,
  FleetError,
  HeadersTooLargeError,
  InternalError,
  MalformedJsonError,
  NotFoundError,
  NotImplementedError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  ServiceUnavailableError,
  StreamInterruptedError,
  UnauthenticatedError,
  UnsupportedMediaTypeError,
  UpstreamError,
  UpstreamTimeoutError,
  ValidationError,
  type FleetErrorOptions,
} from './fleet-error';

/** The fleet's own error body (CONTRIBUTING.md convention 12), used between services. */
export const errorBodySchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    requestId: z.string().nullish(),
    details: z.record(z.string(), z.unknown()).nullish(),
    param: z.string().nullish(),
  }),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** OpenAI's error envelope, as the public API answers and as upstream LLMs send (tolerant). */
export const openaiErrorBodySchema = z.object({
  error: z.object({
    message: z.string(),
    type: z.string().nullish(),
    param: z.string().nullish(),
    code: z.union([z.string(), z.number()]).nullish(),
  }),
});
export type OpenAIErrorBody = z.infer<typeof openaiErrorBodySchema>;

/** Options for rendering an error body. */
export interface ToErrorBodyOptions {
  requestId?: string | undefined;
}

/** Renders a fleet error as the fleet's wire body. Unknown errors render as a generic 500. */
export function toErrorBody(error: unknown, { requestId }: ToErrorBodyOptions = {}): ErrorBody {
  const fleetError = FleetError.isInstance(error) ? error : new InternalError();
  return {
    error: {
      code: fleetError.code,
      message: fleetError.message,
      ...(requestId === undefined ? {} : { requestId }),
      ...(fleetError.details === undefined ? {} : { details: fleetError.details }),
      ...(fleetError.param === undefined ? {} : { param: fleetError.param }),
    },
  };
}

/**
 * Renders an error in the OpenAI envelope `{ error: { message, type, param, code } }`, the shape
 * every OpenAI SDK turns into its typed errors.
 */
export function toOpenAIErrorBody(error: unknown): OpenAIErrorBody {
  const fleetError = FleetError.isInstance(error) ? error : new InternalError();
  if (fleetError instanceof UpstreamError) {
    // An upstream LLM's own envelope reaches the client as it was sent (message, type, param, code).
    const upstream = openaiErrorBodySchema.safeParse(fleetError.body);
    if (upstream.success) {
      const { message, type, param, code } = upstream.data.error;
      return {
        error: { message, type: type ?? 'api_error', param: param ?? null, code: code ?? null },
      };
    }
  }
  return {
    error: {
      message: fleetError.message,
      type: ERROR_CODES[fleetError.code].openaiType,
      param: fleetError.param ?? null,
      code:
        fleetError instanceof RateLimitError ? fleetError.limitCode : fleetError.code.toLowerCase(),
    },
  };
}

type ErrorFactory = (message: string, options: FleetErrorOptions) => FleetError;

const ERROR_FACTORIES: Partial<Record<ErrorCode, ErrorFactory>> = {
  BAD_REQUEST: (message, options) => new BadRequestError(message, options),
  VALIDATION_FAILED: (message, options) => new ValidationError(message, options),
  MALFORMED_JSON: (message, options) => new MalformedJsonError(message, options),
  UNAUTHENTICATED: (message, options) => new UnauthenticatedError(message, options),
  PERMISSION_DENIED: (message, options) => new PermissionDeniedError(message, options),
  NOT_FOUND: (message, options) => new NotFoundError(message, options),
  CONFLICT: (message, options) => new ConflictError(message, options),
  PAYLOAD_TOO_LARGE: (message, options) => new PayloadTooLargeError(message, options),
  UNSUPPORTED_MEDIA_TYPE: (message, options) => new UnsupportedMediaTypeError(message, options),
  HEADERS_TOO_LARGE: (message, options) => new HeadersTooLargeError(message, options),
  RATE_LIMITED: (message, options) => new RateLimitError(message, options),
  CLIENT_CLOSED_REQUEST: (message, options) => new AbortError(message, options),
  INTERNAL: (message, options) => new InternalError(message, options),
  NOT_IMPLEMENTED: (message, options) => new NotImplementedError(message, options),
  UPSTREAM_UNREACHABLE: (message, options) => new ConnectionError(message, options),
  UPSTREAM_STREAM_INTERRUPTED: (message, options) => new StreamInterruptedError(message, options),
  SERVICE_UNAVAILABLE: (message, options) => new ServiceUnavailableError(message, options),
  UPSTREAM_TIMEOUT: (message, options) => new UpstreamTimeoutError(message, options),
  CONFIG_INVALID: (message, options) => new ConfigError(message, options),
};

/**
 * Rebuilds the typed error a fleet service sent (CONTRIBUTING.md convention 13): a `NotFoundError` thrown by
 * one service is caught as a `NotFoundError` by its caller. Bodies that are not fleet bodies become
 * an {@link UpstreamError} carrying the status and the raw body.
 */
export function fromErrorBody(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): FleetError {
  const requestId = headers['x-request-id'];
  const parsed = errorBodySchema.safeParse(body);
  if (parsed.success && isErrorCode(parsed.data.error.code)) {
    const { code, message, details, param } = parsed.data.error;
    // A wait the sender named (a 503's Retry-After, carried in its details) travels on.
    const retryAfter = details?.['retryAfterSeconds'];
    const retryAfterHeader = Number(headers['retry-after']);
    const retryAfterSeconds =
      typeof retryAfter === 'number' && Number.isFinite(retryAfter) && retryAfter > 0
        ? retryAfter
        : Number.isFinite(retryAfterHeader) && retryAfterHeader > 0
          ? retryAfterHeader
          : undefined;
    const options: FleetErrorOptions = {
      status,
      ...(details ? { details } : {}),
      ...(param ? { param } : {}),
      ...(requestId === undefined ? {} : { requestId }),
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    };
    const factory = ERROR_FACTORIES[code];
    if (factory) return factory(message, options);
  }
  const openai = openaiErrorBodySchema.safeParse(body);
  const message = openai.success
    ? openai.data.error.message
    : `Upstream answered HTTP ${status}${typeof body === 'string' && body ? `: ${body.slice(0, 200)}` : ''}`;
  return new UpstreamError(message, {
    status,
    body,
    headers,
    ...(requestId === undefined ? {} : { requestId }),
  });
}
