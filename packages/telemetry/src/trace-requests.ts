import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import {
  type Attributes,
  type Context,
  context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind as OtelSpanKind,
  SpanStatusCode,
  type TextMapGetter,
  trace,
  type Tracer,
} from '@opentelemetry/api';

/** The instrumentation scope of the light server spans. */
export const SERVER_TRACER_NAME = '@fleet/telemetry/http-server';

/** Options for {@link createRequestTracer}. */
export interface RequestTracerOptions {
  /** Incoming paths that get no span (health checks, metrics). */
  ignorePaths: readonly string[];
  /** @default the global provider's tracer named {@link SERVER_TRACER_NAME} */
  tracer?: Tracer | undefined;
  /**
   * Which requests run inside their span's context (`context.with`: an `AsyncLocalStorage` store
   * that every promise the request creates carries). The others are not entered: their handlers
   * pass the span on explicitly ({@link requestSpan}, {@link injectRequestContext}) and enter it
   * only for the work that needs an active context ({@link withRequestContext}).
   * @default every request
   */
  enterContext?: ((req: IncomingMessage) => boolean) | undefined;
}

/** Each traced request's context (its span, on the extracted parent), until the request is gone. */
const requestContexts = new WeakMap<IncomingMessage, Context>();

/**
 * The light server span of a request traced by {@link createRequestTracer}, whether or not its
 * context was entered; undefined when the request is not traced (tracing off, an ignored path).
 */
export function requestSpan(req: IncomingMessage): Span | undefined {
  const traced = requestContexts.get(req);
  return traced === undefined ? undefined : trace.getSpan(traced);
}

/**
 * Runs `fn` with the request's span context active, for work that relies on the active context:
 * child spans (`withSpan`), `withBaggage`, log lines' `trace_id`, outgoing calls instrumented by
 * OpenTelemetry. A request that is not traced, or whose context is already active, just runs `fn`.
 *
 * @example
 * await withRequestContext(req, () => orchestrate({ ... }));
 */
export function withRequestContext<T>(req: IncomingMessage, fn: () => T): T {
  const traced = requestContexts.get(req);
  if (traced === undefined || context.active() === traced) return fn();
  return context.with(traced, fn);
}

/**
 * Writes the request's trace context into outgoing headers with the global propagator (W3C
 * `traceparent`/`tracestate`, and `baggage`), as the instrumentation does for calls made inside
 * an active context: the callee's spans continue this request's trace. Nothing for a request that
 * is not traced.
 */
export function injectRequestContext(req: IncomingMessage, headers: Record<string, unknown>): void {
  const traced = requestContexts.get(req);
  if (traced !== undefined) propagation.inject(traced, headers);
}

/**
 * `trace_id` and `span_id` of the request's span, for a log line written outside its context
 * (the gateway's access log on the hot path); empty when the request is not traced.
 */
export function requestLogFields(req: IncomingMessage): Record<string, string> {
  const spanContext = requestSpan(req)?.spanContext();
  if (spanContext === undefined || !isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}

const headerGetter: TextMapGetter<IncomingMessage['headers']> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
};

/** The path of a request target, without its query or fragment. */
export function pathOf(url: string | undefined): string {
  if (url === undefined) return '/';
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}

/**
 * Wraps a `node:http` request listener so each request gets one light SERVER span — what
 * `@opentelemetry/instrumentation-http` records for an incoming request, for a fraction of its
 * cost (docs/tracing.md §7): no patched `Server.emit`, no context bound to the request's and
 * response's event emitters, no metrics, one attribute object. The span:
 *
 * - continues the trace the global propagator extracts from the headers (W3C `traceparent` and
 *   `baggage`; the gateway's inject-only propagator extracts nothing, so its spans are roots);
 * - is named after the method (`POST`) — handlers may rename it (the gateway's passthrough does:
 *   `POST /v1/chat/completions`) — and records `http.request.method`, `url.path`, `url.scheme`,
 *   `server.address`, `server.port`, `network.protocol.version`, `user_agent.original` and, when
 *   the response closes, `http.response.status_code`;
 * - has status ERROR for a 5xx answer, and `fleet.http.aborted: true` when the connection closed
 *   before the response was complete;
 * - is the active span while the listener runs (`context.with`), so handlers' `getActiveSpan()`,
 *   child spans, log lines and outgoing calls (which carry `traceparent`) see it — unless
 *   `enterContext` says otherwise for the request, whose handler then carries it explicitly
 *   ({@link requestSpan}, {@link injectRequestContext}, {@link withRequestContext});
 * - ends when the response closes.
 */
export function createRequestTracer({
  ignorePaths,
  tracer = trace.getTracer(SERVER_TRACER_NAME),
  enterContext,
}: RequestTracerOptions) {
  const ignored = new Set(ignorePaths);
  return function traceRequests(listener: RequestListener): RequestListener {
    return function tracedListener(req: IncomingMessage, res: ServerResponse): void {
      const path = pathOf(req.url);
      if (ignored.has(path)) {
        listener(req, res);
        return;
      }
      const parent = propagation.extract(ROOT_CONTEXT, req.headers, headerGetter);
      const method = req.method ?? 'GET';
      const span = tracer.startSpan(
        method,
        { kind: OtelSpanKind.SERVER, attributes: requestAttributes(req, method, path) },
        parent,
      );
      if (span.isRecording()) res.once('close', () => endServerSpan(span, res));
      const traced = trace.setSpan(parent, span);
      requestContexts.set(req, traced);
      if (enterContext === undefined || enterContext(req)) {
        context.with(traced, listener, undefined, req, res);
      } else {
        listener(req, res);
      }
    };
  };
}

function requestAttributes(req: IncomingMessage, method: string, path: string): Attributes {
  const host = req.headers.host;
  const colon = host === undefined ? -1 : host.lastIndexOf(':');
  const attributes: Attributes = {
    'http.request.method': method,
    'url.path': path,
    'url.scheme': (req.socket as { encrypted?: boolean }).encrypted === true ? 'https' : 'http',
    'network.protocol.version': req.httpVersion,
  };
  if (host !== undefined) {
    // `host:port`, or a bracketed IPv6 address with or without a port.
    const hasPort = colon > host.lastIndexOf(']');
    attributes['server.address'] = hasPort ? host.slice(0, colon) : host;
    if (hasPort) {
      const port = Number(host.slice(colon + 1));
      if (Number.isInteger(port)) attributes['server.port'] = port;
    }
  }
  const userAgent = req.headers['user-agent'];
  if (userAgent !== undefined) attributes['user_agent.original'] = userAgent;
  return attributes;
}

function endServerSpan(span: Span, res: ServerResponse): void {
  const status = res.statusCode;
  span.setAttribute('http.response.status_code', status);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  if (!res.writableFinished) span.setAttribute('fleet.http.aborted', true);
  span.end();
}
