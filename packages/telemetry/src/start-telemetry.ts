import type { RequestListener } from 'node:http';
import type { Attributes } from '@opentelemetry/api';
import type * as CreateSdkModule from './internal/create-sdk';
import { setDefaultMaxValueLength } from './internal/serialize-value';
import { setTraceHideConfig, type TraceHideConfig } from './internal/trace-config';
import type { SamplerSettings } from './sampler-settings';
import { DEFAULT_PROJECT_NAME } from './semantic-conventions';
import { createRequestTracer, type RequestTracerOptions } from './trace-requests';

/** OTLP encodings. Phoenix accepts only `http/protobuf`; `http/json` is for tests. */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** Options for {@link startTelemetry}. Services map their `OTEL_*` variables onto these. */
export interface TelemetryOptions {
  /** The service's name: the `service.name` resource attribute and a span attribute. */
  serviceName: string;
  /**
   * OTLP/HTTP base URL; `/v1/traces` is appended (Phoenix: `http://phoenix:6006`). With neither
   * this nor `tracesEndpoint`, nothing is exported and the SDK is not started.
   */
  endpoint?: string | undefined;
  /** Full traces URL, used exactly as given; wins over `endpoint`. */
  tracesEndpoint?: string | undefined;
  /** @default 'http/protobuf' */
  protocol?: OtlpProtocol | undefined;
  /** Phoenix project (`openinference.project.name`); keep it the same fleet-wide. @default 'a2a-fleet' */
  projectName?: string | undefined;
  /** Headers sent with every export, e.g. `{ authorization: 'Bearer <PHOENIX_API_KEY>' }`. */
  headers?: Readonly<Record<string, string>> | undefined;
  /**
   * Whether incoming `traceparent`/`tracestate`/`baggage` headers are honoured. The gateway passes
   * `false`: its span then starts a new trace, and clients cannot orphan it or spoof `session.id`
   * (docs/tracing.md §3). Outgoing calls carry W3C trace context and baggage either way.
   * @default true
   */
  trustInboundTraceContext?: boolean | undefined;
  /** Incoming paths that get no span. @default ['/healthz', '/readyz', '/metrics'] */
  ignoreIncomingPaths?: readonly string[] | undefined;
  /** Delay between batch exports, in milliseconds. @default 5000 (or OTEL_BSP_SCHEDULE_DELAY) */
  exportIntervalMs?: number | undefined;
  /** Extra resource attributes, e.g. `{ 'deployment.environment': 'staging' }`. */
  resourceAttributes?: Attributes | undefined;
  /** Cap, in characters, on serialised `input.value`/`output.value` and message contents. @default 32768 */
  maxValueLength?: number | undefined;
  /**
   * The sampler (`OTEL_TRACES_SAMPLER`/`_ARG`, see `parseSamplerSettings`). Unset: the SDK's
   * default, `parentbased_always_on`.
   */
  sampler?: SamplerSettings | undefined;
  /**
   * Whether outgoing `node:http` calls get a client span. False: they still carry `traceparent` and
   * `baggage` (the caller's span is their parent), but no span of their own — cheaper when the
   * caller's span already describes the call, as the gateway's LLM span does for its upstream.
   * Global `fetch` (undici) calls keep their spans either way. @default true
   */
  outgoingHttpSpans?: boolean | undefined;
  /** OpenInference masking (`OPENINFERENCE_HIDE_*`), applied by every span helper. @default nothing hidden */
  hide?: TraceHideConfig | undefined;
  /**
   * Light server spans: `instrumentation-http` leaves incoming requests alone, and the service
   * wraps its request listener with {@link Telemetry.traceRequests}, which records one SERVER span
   * per request at a fraction of the instrumentation's cost (`createRequestTracer`,
   * docs/tracing.md §7). Outgoing calls are instrumented as before. The gateway, whose hot path
   * this is, passes true. @default false
   */
  lightServerSpans?: boolean | undefined;
  /**
   * Starts the context storage (`AsyncLocalStorage`) only when a context carrying a span or
   * baggage is first entered, not for the batch span processor's exports. On Node 20 the storage's
   * promise hook slows every promise of the process once started; a service whose hot path carries
   * its trace context explicitly (the gateway: `traceRequests` with `enterContext`) then does not
   * pay it until a request that needs an active context comes (docs/tracing.md §7). @default false
   */
  deferContextStorage?: boolean | undefined;
}

/** A started (or deliberately not started) telemetry pipeline. */
export interface Telemetry {
  /** Whether spans are exported. */
  readonly enabled: boolean;
  /** Exports every span ended so far. */
  flush(): Promise<void>;
  /** Flushes and stops the SDK; call it on SIGTERM. Safe to call more than once. */
  shutdown(): Promise<void>;
  /**
   * With `lightServerSpans`, wraps a request listener so each request gets a light SERVER span
   * (`createRequestTracer`); otherwise (export off, or `instrumentation-http` records incoming
   * requests) returns the listener unchanged. `enterContext` chooses the requests that run inside
   * their span's context (default: all); the others carry it explicitly (`requestSpan`).
   *
   * @example
   * startServer({ app: telemetry.traceRequests(app), ... });
   */
  traceRequests(
    listener: RequestListener,
    options?: Pick<RequestTracerOptions, 'enterContext'>,
  ): RequestListener;
}

/** Incoming paths that get no span unless `ignoreIncomingPaths` says otherwise. */
export const DEFAULT_IGNORED_PATHS: readonly string[] = ['/healthz', '/readyz', '/metrics'];

const unchanged = (listener: RequestListener): RequestListener => listener;

const disabledTelemetry: Telemetry = {
  enabled: false,
  traceRequests: unchanged,
  flush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
};

let running: Telemetry | undefined;

/**
 * Starts OpenTelemetry for this process: OTLP trace export (protobuf unless told otherwise), W3C
 * trace-context and baggage propagation, and the `http` (incoming and outgoing, so express too)
 * and `undici` (global `fetch`) instrumentations. Metrics and logs are never exported. It must run
 * before `http` or `express` is imported, so call it from the service's `src/instrumentation.ts`,
 * imported first in `main.ts`. With no endpoint configured nothing starts and the span helpers
 * become near-free no-ops. Throws if called twice in one process with export on.
 *
 * @example
 * // src/instrumentation.ts
 * import { startTelemetry } from '@fleet/telemetry';
 * import { config } from './config'; // config.ts is the one module that reads process.env
 *
 * export const telemetry = startTelemetry({
 *   serviceName: config.otelServiceName ?? 'planner',
 *   endpoint: config.otelEndpoint,
 *   tracesEndpoint: config.otelTracesEndpoint,
 *   protocol: config.otelProtocol,
 *   projectName: config.phoenixProjectName,
 *   headers: config.phoenixApiKey ? { authorization: `Bearer ${config.phoenixApiKey}` } : {},
 * });
 */
export function startTelemetry(options: TelemetryOptions): Telemetry {
  if (options.maxValueLength !== undefined) setDefaultMaxValueLength(options.maxValueLength);
  if (options.hide !== undefined) setTraceHideConfig(options.hide);
  const tracesUrl = resolveTracesUrl(options);
  if (tracesUrl === undefined) return disabledTelemetry;
  if (running !== undefined) {
    throw new Error(
      'startTelemetry was called twice in one process; call it once, from src/instrumentation.ts.',
    );
  }
  const lightServerSpans = options.lightServerSpans ?? false;
  const ignoreIncomingPaths = options.ignoreIncomingPaths ?? DEFAULT_IGNORED_PATHS;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded lazily, see create-sdk.ts
  const { createSdk } = require('./internal/create-sdk') as typeof CreateSdkModule;
  const { sdk, batchProcessor } = createSdk({
    serviceName: options.serviceName,
    tracesUrl,
    protocol: options.protocol ?? 'http/protobuf',
    projectName: nonEmpty(options.projectName) ?? DEFAULT_PROJECT_NAME,
    headers: options.headers ?? {},
    trustInboundTraceContext: options.trustInboundTraceContext ?? true,
    ignoreIncomingPaths,
    exportIntervalMs: options.exportIntervalMs,
    resourceAttributes: options.resourceAttributes ?? {},
    sampler: options.sampler,
    outgoingHttpSpans: options.outgoingHttpSpans ?? true,
    lightServerSpans,
    deferContextStorage: options.deferContextStorage ?? false,
  });
  sdk.start();
  let stopping: Promise<void> | undefined;
  const telemetry: Telemetry = {
    enabled: true,
    flush: () => (stopping === undefined ? batchProcessor.forceFlush() : stopping),
    shutdown: () => (stopping ??= sdk.shutdown()),
    traceRequests: lightServerSpans
      ? (listener, tracerOptions) =>
          createRequestTracer({ ignorePaths: ignoreIncomingPaths, ...tracerOptions })(listener)
      : unchanged,
  };
  running = telemetry;
  return telemetry;
}

/**
 * The URL spans are posted to: `tracesEndpoint` as given, else `endpoint` + `/v1/traces`, else
 * `undefined` (export off). Empty strings count as unset.
 */
export function resolveTracesUrl(
  options: Pick<TelemetryOptions, 'endpoint' | 'tracesEndpoint'>,
): string | undefined {
  const tracesEndpoint = nonEmpty(options.tracesEndpoint);
  if (tracesEndpoint !== undefined) return checkUrl(tracesEndpoint, 'tracesEndpoint');
  const endpoint = nonEmpty(options.endpoint);
  if (endpoint === undefined) return undefined;
  checkUrl(endpoint, 'endpoint');
  return `${endpoint.replace(/\/+$/, '')}/v1/traces`;
}

function checkUrl(url: string, option: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`startTelemetry: ${option} is not a valid URL: ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError(`startTelemetry: ${option} must be an http(s) URL, got ${parsed.protocol}`);
  }
  return url;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}
