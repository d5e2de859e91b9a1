/** Express edge plumbing every fleet service shares: ids, bodies, errors, SSE, health, metrics, lifecycle. */
export { bearerTokenCheck, requireBearerToken } from './bearer-token';
export type { RequireBearerTokenOptions } from './bearer-token';
export { createServiceApp } from './create-service-app';
export type { CreateServiceAppOptions } from './create-service-app';
export { runMain } from './run-main';
export { createSseWriter } from './create-sse-writer';
export type { SseOpenOptions, SseWriter, SseWriterOptions } from './create-sse-writer';
export { errorMiddleware, notFoundHandler, renderErrorBody, sendError } from './error-middleware';
export type {
  ErrorContext,
  ErrorFormat,
  ErrorMiddlewareOptions,
  RenderErrorBodyOptions,
} from './error-middleware';
export { DEGRADED_PREFIX, healthRoutes } from './health';
export type { HealthRoutesOptions, ReadinessCheck, ReadinessDegraded } from './health';
export { silentLogger } from './logger';
export type { HttpLogger } from './logger';
export { createMetrics } from './metrics';
export type { CreateMetricsOptions, Metrics, RecordedResponse } from './metrics';
export { addLogFields, observeRequests, observeResponse } from './observe-requests';
export type { ObserveOptions, ObservedRequest } from './observe-requests';
export { boundedArray, MAX_ITEM_ISSUES, stringOr } from './bounded-array';
export type { BoundedArrayOptions, StringOrOptions, UncheckedItemsParams } from './bounded-array';
export {
  boundedValidationError,
  MAX_ISSUE_MESSAGE_LENGTH,
  MAX_REPORTED_ISSUES,
  NAMED_ISSUES,
} from './bounded-validation-error';
export type { BoundedValidationErrorOptions } from './bounded-validation-error';
export { countJsonContainers } from './count-json-containers';
export {
  encodedBodyError,
  discardBody,
  DISCARD_LIMIT,
  MAX_JSON_CONTAINERS,
  readBody,
  readJsonBody,
} from './read-body';
export type { JsonBody, ReadBodyOptions, ReadJsonBodyOptions } from './read-body';
export { assertHeadersSentOnce, readSingleHeader } from './read-single-header';
export type { SingleHeaderOptions } from './read-single-header';
export { assignRequestId, getRequestId, requestId } from './request-id';
export type { RequestIdOptions } from './request-id';
export { DEFAULT_MAX_HEADER_SIZE, startServer } from './start-server';
export type { RunningServer, ShutdownHook, StartServerOptions } from './start-server';
export { createBalancedFetch, sharedBalancedFetch } from './balanced-fetch';
export { nodeHttpFetch, type NodeHttpFetchInit } from './node-http-fetch';
export type { BalancedFetch, BalancedFetchOptions, ResolvedAddress } from './balanced-fetch';
