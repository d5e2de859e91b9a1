import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Attributes } from '../semantic-conventions';

/**
 * Copies the service name onto every span as an attribute: Phoenix drops resource attributes
 * other than the project name, so without this no span says which service emitted it
 * (docs/tracing.md §0).
 */
export class ServiceNameSpanProcessor implements SpanProcessor {
  readonly #serviceName: string;

  constructor(serviceName: string) {
    this.#serviceName = serviceName;
  }

  onStart(span: Span, _parentContext: Context): void {
    span.setAttribute(Attributes.SERVICE_NAME, this.#serviceName);
  }

  onEnd(_span: ReadableSpan): void {}

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
