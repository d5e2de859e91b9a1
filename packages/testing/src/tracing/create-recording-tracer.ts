import { AsyncLocalStorage } from 'node:async_hooks';
import type { WithSpanOptions } from '@fleet/telemetry';

/** A span the recording tracer saw. */
export interface RecordedSpan {
  /** 1, 2, … in the order the spans started. */
  id: number;
  /** The span active (through async context) when this one started, if any. */
  parentId: number | undefined;
  name: string;
  attributes: Record<string, unknown>;
  /** 2 is ERROR (OpenTelemetry's SpanStatusCode). */
  status: { code: number; message?: string } | undefined;
  ended: boolean;
}

type Tracer = NonNullable<WithSpanOptions['tracer']>;

/**
 * A tracer that records the spans `withSpan` opens, their attributes and status, for tests (the
 * service has no OpenTelemetry SDK among its dependencies, and the OTLP exporter does not load
 * under jest). Parents follow async context (`startActiveSpan`); nothing crosses processes.
 *
 * @example
 * const { tracer, spans } = createRecordingTracer();
 * await withSpan({ name: 'x', kind: SpanKind.TOOL, tracer }, () => 1);
 * spans[0]?.attributes['openinference.span.kind']; // 'TOOL'
 */
export function createRecordingTracer(): { tracer: Tracer; spans: RecordedSpan[] } {
  const spans: RecordedSpan[] = [];
  const active = new AsyncLocalStorage<RecordedSpan>();
  function open(name: string, options?: { attributes?: Record<string, unknown> }) {
    const recorded: RecordedSpan = {
      id: spans.length + 1,
      parentId: active.getStore()?.id,
      name,
      attributes: { ...options?.attributes },
      status: undefined,
      ended: false,
    };
    spans.push(recorded);
    const span = {
      spanContext: () => ({
        traceId: '0'.repeat(31) + '1',
        spanId: '0'.repeat(15) + '1',
        traceFlags: 1,
      }),
      setAttribute(key: string, value: unknown) {
        recorded.attributes[key] = value;
        return span;
      },
      setAttributes(attributes: Record<string, unknown>) {
        Object.assign(recorded.attributes, attributes);
        return span;
      },
      addEvent: () => span,
      addLink: () => span,
      addLinks: () => span,
      setStatus(status: { code: number; message?: string }) {
        recorded.status = status;
        return span;
      },
      updateName(next: string) {
        recorded.name = next;
        return span;
      },
      end() {
        recorded.ended = true;
      },
      isRecording: () => !recorded.ended,
      recordException: () => undefined,
    };
    return { span, recorded };
  }
  const tracer = {
    startSpan: (name: string, options?: { attributes?: Record<string, unknown> }) =>
      open(name, options).span,
    startActiveSpan(name: string, ...rest: unknown[]) {
      const fn = rest[rest.length - 1] as (span: unknown) => unknown;
      const options =
        rest.length > 1 ? (rest[0] as { attributes?: Record<string, unknown> }) : undefined;
      const { span, recorded } = open(name, options);
      return active.run(recorded, () => fn(span));
    },
  };
  return { tracer, spans };
}
