/**
 * Builds the NodeSDK. Kept apart from `start-telemetry.ts` and loaded only when export is on:
 * `@opentelemetry/sdk-node` takes a few hundred milliseconds to load, which code that only uses the
 * span helpers (and its tests) should not pay.
 */
import type { IncomingMessage, RequestOptions } from 'node:http';
import { SEMRESATTRS_PROJECT_NAME } from '@arizeai/openinference-semantic-conventions';
import { context, propagation, type Attributes } from '@opentelemetry/api';
import { BaggageSpanProcessor } from '@opentelemetry/baggage-span-processor';
import {
  CompositePropagator,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from '@opentelemetry/core';
import { OTLPTraceExporter as OtlpJsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import {
  defaultResource,
  hostDetector,
  processDetector,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type BufferConfig,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { SamplerSettings } from '../sampler-settings';
import { BAGGAGE_KEYS } from '../semantic-conventions';
import { pathOf } from '../trace-requests';
import { DeferredContextManager } from './deferred-context-manager';
import { InjectOnlyPropagator } from './inject-only-propagator';
import { ServiceNameSpanProcessor } from './service-name-span-processor';

/** Everything `createSdk` needs, with defaults already applied. */
export interface CreateSdkOptions {
  serviceName: string;
  tracesUrl: string;
  protocol: 'http/protobuf' | 'http/json';
  projectName: string;
  headers: Readonly<Record<string, string>>;
  trustInboundTraceContext: boolean;
  ignoreIncomingPaths: readonly string[];
  exportIntervalMs: number | undefined;
  resourceAttributes: Attributes;
  /** False: outgoing `node:http` calls get `traceparent`/`baggage` but no span of their own. */
  outgoingHttpSpans: boolean;
  /**
   * True: incoming requests get no span from `instrumentation-http`; the service wraps its request
   * listener with `Telemetry.traceRequests` instead (light server spans).
   */
  lightServerSpans: boolean;
  /** True: the context storage starts with the first context that carries a span or baggage. */
  deferContextStorage: boolean;
  /** Undefined: the SDK's own choice (`OTEL_TRACES_SAMPLER`, else parentbased_always_on). */
  sampler: SamplerSettings | undefined;
}

/** Builds the sampler a {@link SamplerSettings} names. */
export function createSampler({ name, ratio = 1 }: SamplerSettings): Sampler {
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
  }
}

/** The SDK plus the batch processor, whose `forceFlush` backs `Telemetry.flush`. */
export interface CreatedSdk {
  sdk: NodeSDK;
  batchProcessor: BatchSpanProcessor;
}

/** Builds (but does not start) the NodeSDK for one service. */
export function createSdk(options: CreateSdkOptions): CreatedSdk {
  const exporterConfig = { url: options.tracesUrl, headers: { ...options.headers } };
  const exporter: SpanExporter =
    options.protocol === 'http/json'
      ? new OtlpJsonTraceExporter(exporterConfig)
      : new OtlpProtobufTraceExporter(exporterConfig);
  const bufferConfig: BufferConfig = {};
  if (options.exportIntervalMs !== undefined) {
    bufferConfig.scheduledDelayMillis = options.exportIntervalMs;
  }
  const batchProcessor = new BatchSpanProcessor(exporter, bufferConfig);

  const w3c = new CompositePropagator({
    propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
  });
  const ignoredPaths = new Set(options.ignoreIncomingPaths);
  const sessionKeys = new Set<string>(Object.values(BAGGAGE_KEYS));

  const sdk = new NodeSDK({
    // Our own resource, not OTEL_RESOURCE_ATTRIBUTES/OTEL_SERVICE_NAME: options are the single
    // source of configuration, and env-detected attributes would override them (NodeSDK merges
    // detected resources last). Process and host attributes are still detected.
    resource: defaultResource().merge(
      resourceFromAttributes({
        ...options.resourceAttributes,
        [ATTR_SERVICE_NAME]: options.serviceName,
        [SEMRESATTRS_PROJECT_NAME]: options.projectName,
      }),
    ),
    resourceDetectors: [processDetector, hostDetector],
    textMapPropagator: options.trustInboundTraceContext ? w3c : new InjectOnlyPropagator(w3c),
    // Otherwise the SDK's own AsyncLocalStorage context manager, started at once.
    ...(options.deferContextStorage ? { contextManager: new DeferredContextManager() } : {}),
    ...(options.sampler === undefined ? {} : { sampler: createSampler(options.sampler) }),
    spanProcessors: [
      new ServiceNameSpanProcessor(options.serviceName),
      new BaggageSpanProcessor((key) => sessionKeys.has(key)),
      batchProcessor,
    ],
    // Without these two, sdk-node 0.223 builds OTLP metric and log exporters from env, defaulting
    // to `otlp` when OTEL_METRICS_EXPORTER / OTEL_LOGS_EXPORTER are unset. Phoenix has neither
    // /v1/metrics nor /v1/logs. An empty reader list registers no MeterProvider; an empty processor
    // list registers a LoggerProvider that exports nothing.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        // Background calls with no parent (health pings, token refresh) would each become a root
        // trace in Phoenix.
        requireParentforOutgoingSpans: true,
        // Light server spans (`createRequestTracer`) replace the instrumentation's incoming spans:
        // `Server.prototype.emit` is then not patched at all.
        disableIncomingRequestInstrumentation: options.lightServerSpans,
        ignoreIncomingRequestHook: (request: IncomingMessage) =>
          ignoredPaths.has(pathOf(request.url)),
        ...(options.outgoingHttpSpans
          ? {}
          : {
              // Propagate only: the caller's span (the gateway's LLM span) already describes the
              // call, and skipping the client span also skips binding the request and its
              // response to the context (one context switch per streamed chunk).
              ignoreOutgoingRequestHook: injectOnly,
            }),
      }),
      new UndiciInstrumentation({ requireParentforSpans: true }),
    ],
  });
  return { sdk, batchProcessor };
}

/** Injects the active context into an outgoing request's headers and tells the hook to skip it. */
function injectOnly(request: RequestOptions): boolean {
  request.headers ??= {};
  const headers = request.headers;
  if (Array.isArray(headers)) return true;
  propagation.inject(context.active(), headers as Record<string, unknown>);
  return true;
}
