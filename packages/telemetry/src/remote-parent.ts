import { type Context, context, defaultTextMapGetter, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

/**
 * W3C trace context carried inside a message rather than in HTTP headers: MCP puts it in a
 * request's `params._meta` (`traceparent`, optional `tracestate`).
 */
export interface TraceContextCarrier {
  traceparent?: string | undefined;
  tracestate?: string | undefined;
}

/** Longest `traceparent` read (version 00 is 55 characters; later versions may append fields). */
export const MAX_TRACEPARENT_LENGTH = 256;

/** Longest `tracestate` read (W3C: 32 list members, and at least 512 characters propagated). */
export const MAX_TRACESTATE_LENGTH = 512;

const w3c = new W3CTraceContextPropagator();

/**
 * The context whose parent span is the remote one `carrier` names, on top of `base` (whose baggage
 * it keeps), for a span that continues a caller's trace: the W3C trace-context propagator itself,
 * whatever the global propagator is (the gateway's extracts nothing from HTTP headers,
 * docs/tracing.md §3). Only `traceparent` and `tracestate` are read, never baggage, which could
 * spoof `session.id`. Undefined when the carrier names no valid span (absent, malformed, all-zero
 * ids, or longer than {@link MAX_TRACEPARENT_LENGTH}); a `tracestate` longer than
 * {@link MAX_TRACESTATE_LENGTH} is dropped.
 *
 * @example
 * const parent = remoteParentContext(params._meta);
 * await withSpan({ name: 'tools/call search_documents', kind: SpanKind.TOOL, parent }, run);
 */
export function remoteParentContext(
  carrier: TraceContextCarrier | undefined,
  base: Context = context.active(),
): Context | undefined {
  const traceparent = carrier?.traceparent;
  if (typeof traceparent !== 'string' || traceparent.length > MAX_TRACEPARENT_LENGTH) {
    return undefined;
  }
  const headers: Record<string, string> = { traceparent };
  const tracestate = carrier?.tracestate;
  if (typeof tracestate === 'string' && tracestate.length <= MAX_TRACESTATE_LENGTH) {
    headers['tracestate'] = tracestate;
  }
  // Extracted on an empty span slot, so an invalid traceparent cannot leave `base`'s span as parent.
  const extracted = w3c.extract(trace.deleteSpan(base), headers, defaultTextMapGetter);
  return trace.getSpanContext(extracted) === undefined ? undefined : extracted;
}
