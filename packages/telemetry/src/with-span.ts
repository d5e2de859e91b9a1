import {
  type Attributes,
  type Context,
  context,
  type Link,
  type Span,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { Attributes as Keys, type SpanKind } from './semantic-conventions';
import { setSpanInput } from './span-attributes';

/** The instrumentation scope used when a caller names none. */
export const DEFAULT_TRACER_NAME = '@fleet/telemetry';

/**
 * Returns a tracer from the global provider. Before {@link startTelemetry} has run (or when it
 * exports nothing) this is a no-op tracer whose spans are not recording, so the helpers cost next
 * to nothing.
 *
 * @param name Instrumentation scope, e.g. the service or package name. @default '@fleet/telemetry'
 * @example
 * const tracer = getTracer('planner');
 */
export function getTracer(name: string = DEFAULT_TRACER_NAME): Tracer {
  return trace.getTracer(name);
}

/**
 * The span active in the current context (the HTTP server span inside a request handler), or
 * undefined. Use it to describe work on a span you did not start.
 */
export function getActiveSpan(): Span | undefined {
  return trace.getActiveSpan();
}

/** Options for {@link withSpan}. */
export interface WithSpanOptions {
  /** Span name, e.g. `planner.plan` or `agent.step`. */
  name: string;
  /** OpenInference kind; Phoenix shows a span without one as UNKNOWN. */
  kind: SpanKind;
  /** Recorded as `input.value` (strings as text, anything else as JSON) when the span records. */
  input?: unknown;
  /** Extra attributes set when the span starts. */
  attributes?: Attributes | undefined;
  /** Tracer to use. @default getTracer() */
  tracer?: Tracer | undefined;
  /** Cap on the serialised input, in characters. @default 32768 (or `startTelemetry`'s setting) */
  maxValueLength?: number | undefined;
  /**
   * The context to start the span in, e.g. a caller's trace ({@link remoteParentContext}).
   * @default the active one
   */
  parent?: Context | undefined;
  /** Spans this one is linked to (another trace's span it relates to). */
  links?: Link[] | undefined;
}

/**
 * Runs `fn` inside a new active span (a child of the active one, or of `parent`), so HTTP and A2A calls made by
 * `fn` join the same trace. Sets `openinference.span.kind` and the input; when `fn` throws, records
 * the exception, marks the span ERROR and rethrows; always ends the span. Input is serialised only
 * when the span is recording, so with tracing off the call costs almost nothing.
 *
 * @example
 * const plan = await withSpan(
 *   { name: 'planner.plan', kind: SpanKind.CHAIN, input: { task, agents: cards.length } },
 *   async (span) => {
 *     const result = await planWithLlm(task);
 *     setSpanOutput(span, result);
 *     return result;
 *   },
 * );
 */
export function withSpan<T>(
  options: WithSpanOptions,
  fn: (span: Span) => Promise<T> | T,
): Promise<T> {
  const {
    name,
    kind,
    input,
    attributes,
    tracer = getTracer(),
    maxValueLength,
    parent = context.active(),
    links,
  } = options;
  return tracer.startActiveSpan(
    name,
    { attributes: { ...attributes, [Keys.SPAN_KIND]: kind }, ...(links && { links }) },
    parent,
    async function runInSpan(span): Promise<T> {
      try {
        if (input !== undefined) {
          setSpanInput(span, input, { maxValueLength });
        }
        return await fn(span);
      } catch (error) {
        recordError(span, error);
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** Records `error` on `span` as an exception event and sets its status to ERROR. */
export function recordError(span: Span, error: unknown): void {
  if (!span.isRecording()) return;
  if (error instanceof Error) {
    span.recordException(error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
  } else {
    const message = String(error);
    span.recordException(message);
    span.setStatus({ code: SpanStatusCode.ERROR, message });
  }
}
