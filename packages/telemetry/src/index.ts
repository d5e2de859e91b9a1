/** OpenTelemetry start-up for every service, OpenInference span helpers, JSON logs with trace ids. */
export { DEFAULT_IGNORED_PATHS, resolveTracesUrl, startTelemetry } from './start-telemetry';
export type { OtlpProtocol, Telemetry, TelemetryOptions } from './start-telemetry';
export {
  createRequestTracer,
  injectRequestContext,
  requestLogFields,
  requestSpan,
  SERVER_TRACER_NAME,
  withRequestContext,
} from './trace-requests';
export type { RequestTracerOptions } from './trace-requests';
export { telemetryOptionsFromConfig } from './telemetry-options-from-config';
export type { TelemetryConfig, TelemetryDefaults } from './telemetry-options-from-config';
export {
  Attributes,
  BAGGAGE_KEYS,
  DEFAULT_PROJECT_NAME,
  PROJECT_NAME_RESOURCE_ATTRIBUTE,
  SemanticConventions,
  SpanKind,
} from './semantic-conventions';
export { DEFAULT_TRACER_NAME, getActiveSpan, getTracer, recordError, withSpan } from './with-span';
export type { Span } from '@opentelemetry/api';
export type { WithSpanOptions } from './with-span';
export {
  MAX_TRACEPARENT_LENGTH,
  MAX_TRACESTATE_LENGTH,
  remoteParentContext,
} from './remote-parent';
export type { TraceContextCarrier } from './remote-parent';
export {
  setLlmAttributes,
  setRetrievalDocuments,
  setSessionAttributes,
  setSpanInput,
  setSpanOutput,
} from './span-attributes';
export type {
  LlmAttributes,
  LlmMessage,
  LlmTokenCounts,
  LlmToolCall,
  RetrievalDocument,
  SessionAttributes,
  ValueLengthOptions,
} from './span-attributes';
export { getActiveSessionId, withBaggage } from './with-baggage';
export type { BaggageEntries } from './with-baggage';
export { DEFAULT_MAX_VALUE_LENGTH } from './internal/serialize-value';
export { REDACTED_VALUE } from './internal/trace-config';
export type { TraceHideConfig } from './internal/trace-config';
export { parseSamplerSettings, TRACES_SAMPLER_NAMES } from './sampler-settings';
export type { SamplerSettings, TracesSamplerName } from './sampler-settings';
export { deferSpanAttributes } from './defer-span-attributes';
export { createLogger, REDACTED_PATHS } from './create-logger';
export type { CreateLoggerOptions, DestinationStream, Logger } from './create-logger';
