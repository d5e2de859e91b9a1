/**
 * The one table of error codes. Every `FleetError` carries one of these; the HTTP status and the
 * OpenAI envelope `type` are derived from it here and nowhere else (CONTRIBUTING.md convention 12).
 */
export const ERROR_CODES = {
  BAD_REQUEST: { status: 400, openaiType: 'invalid_request_error' },
  VALIDATION_FAILED: { status: 400, openaiType: 'invalid_request_error' },
  MALFORMED_JSON: { status: 400, openaiType: 'invalid_request_error' },
  UNAUTHENTICATED: { status: 401, openaiType: 'authentication_error' },
  PERMISSION_DENIED: { status: 403, openaiType: 'permission_error' },
  NOT_FOUND: { status: 404, openaiType: 'not_found_error' },
  CONFLICT: { status: 409, openaiType: 'conflict_error' },
  PAYLOAD_TOO_LARGE: { status: 413, openaiType: 'invalid_request_error' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, openaiType: 'invalid_request_error' },
  HEADERS_TOO_LARGE: { status: 431, openaiType: 'invalid_request_error' },
  RATE_LIMITED: { status: 429, openaiType: 'rate_limit_error' },
  CLIENT_CLOSED_REQUEST: { status: 499, openaiType: 'invalid_request_error' },
  INTERNAL: { status: 500, openaiType: 'server_error' },
  NOT_IMPLEMENTED: { status: 501, openaiType: 'server_error' },
  UPSTREAM_ERROR: { status: 502, openaiType: 'server_error' },
  UPSTREAM_UNREACHABLE: { status: 502, openaiType: 'server_error' },
  UPSTREAM_STREAM_INTERRUPTED: { status: 502, openaiType: 'server_error' },
  SERVICE_UNAVAILABLE: { status: 503, openaiType: 'server_error' },
  UPSTREAM_TIMEOUT: { status: 504, openaiType: 'server_error' },
  CONFIG_INVALID: { status: 500, openaiType: 'server_error' },
} as const satisfies Record<string, { status: number; openaiType: string }>;

/** An UPPER_SNAKE error code from {@link ERROR_CODES}. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** HTTP status for every error code. */
export const ERROR_HTTP_STATUS = Object.fromEntries(
  Object.entries(ERROR_CODES).map(([code, entry]) => [code, entry.status]),
) as Record<ErrorCode, number>;

/** Narrows an arbitrary string to a known {@link ErrorCode}. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}

/**
 * The error class a status code belongs to, as the OpenAI SDK sees it: 408/409/429/5xx are worth
 * retrying, everything else is the caller's problem.
 */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}
