import type { Span } from '@opentelemetry/api';

/**
 * Runs `describe(span)` once, just before `span` ends, instead of now: work that only feeds the
 * span (parsing a streamed answer for `output.value` and token counts) then happens when whoever
 * owns the span ends it — for the gateway's HTTP server span, after the response has closed, off
 * the client's latency (docs/tracing.md §7). Does nothing when the span is not recording, so an
 * unsampled request pays nothing. Works with any `Span` (it wraps this one span's `end`); an
 * error thrown by `describe` is swallowed, because tracing must never fail a request.
 *
 * @example
 * deferSpanAttributes(span, (ending) => setSpanOutput(ending, parseAnswer(chunks)));
 */
export function deferSpanAttributes(span: Span | undefined, describe: (span: Span) => void): void {
  if (span === undefined || !span.isRecording()) return;
  const end = span.end.bind(span);
  span.end = (endTime) => {
    try {
      describe(span);
    } catch {
      // Best effort: a bad answer loses its output attributes, never the span.
    }
    end(endTime);
  };
}
