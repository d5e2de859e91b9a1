/** The fleet's error types, the one code→HTTP table, and the error bodies services exchange. */
export { ERROR_CODES, ERROR_HTTP_STATUS, isErrorCode, isRetryableStatus } from './error-codes';
export type { ErrorCode } from './error-codes';
export {
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
  redisUnavailableError,
  toFleetError,
} from './fleet-error';
export { isRedisUnavailableError, REDIS_RETRY_AFTER_SECONDS } from './redis-unavailable';
export { CONNECT_FAILURE_CODES, isConnectFailure, networkErrorCode } from './is-connect-failure';
export type { IsConnectFailureOptions } from './is-connect-failure';
export type {
  FleetErrorOptions,
  RateLimitCode,
  RateLimitErrorOptions,
  UpstreamErrorOptions,
} from './fleet-error';
export {
  errorBodySchema,
  fromErrorBody,
  openaiErrorBodySchema,
  toErrorBody,
  toOpenAIErrorBody,
} from './error-body';
export type { ErrorBody, OpenAIErrorBody, ToErrorBodyOptions } from './error-body';
export { jsonDepthExceeds, MAX_JSON_DEPTH, parseJson, safeParseJson } from './parse-json';
export type { ParseJsonOptions, SafeParseJsonResult } from './parse-json';
export { formatIssuePath, validationErrorFromZod } from './validation';
export type { ValidationErrorFromZodOptions, ValidationIssue } from './validation';
