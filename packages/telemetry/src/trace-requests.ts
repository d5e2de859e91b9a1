import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import {
  type Attributes,
  context,
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
 *   child spans, log lines and outgoing calls (which carry `traceparent`) see it;
 * - ends when the response closes.
 */
export function createRequestTracer({
  ignorePaths,
  tracer = trace.getTracer(SERVER_TRACER_NAME),
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
      context.with(trace.setSpan(parent, span), listener, undefined, req, res);
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
