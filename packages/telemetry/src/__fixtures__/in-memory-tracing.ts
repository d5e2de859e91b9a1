/**
 * Test-only in-process tracing: a tracer provider that keeps finished spans in memory, plus the
 * AsyncLocalStorage context manager so active spans and baggage flow through `await`. Nothing is
 * registered as the global tracer provider; helpers get the tracer through their `tracer` option.
 */
import { context, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

/** A tracer and the spans it has finished. */
export interface InMemoryTracing {
  tracer: Tracer;
  finishedSpans(): ReadableSpan[];
  reset(): void;
}

let contextManagerInstalled = false;

/** Creates an in-memory tracer and installs the async context manager once per test file. */
export function createInMemoryTracing(): InMemoryTracing {
  if (!contextManagerInstalled) {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    contextManagerInstalled = true;
  }
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  return {
    tracer: provider.getTracer('test'),
    finishedSpans: () => exporter.getFinishedSpans(),
    reset: () => exporter.reset(),
  };
}
