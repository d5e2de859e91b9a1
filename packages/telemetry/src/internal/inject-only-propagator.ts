import type { Context, TextMapGetter, TextMapPropagator, TextMapSetter } from '@opentelemetry/api';

/**
 * Wraps a propagator so that it still writes context into outgoing requests but never reads it
 * from incoming ones. Used at the ingress (the gateway): a client's own `traceparent` would make
 * the gateway's span an orphan whose parent Phoenix never receives, and a client's `baggage` could
 * spoof `session.id` (docs/tracing.md §3).
 */
export class InjectOnlyPropagator implements TextMapPropagator {
  readonly #inner: TextMapPropagator;

  constructor(inner: TextMapPropagator) {
    this.#inner = inner;
  }

  inject(context: Context, carrier: unknown, setter: TextMapSetter): void {
    this.#inner.inject(context, carrier, setter);
  }

  extract(context: Context, _carrier: unknown, _getter: TextMapGetter): Context {
    return context;
  }

  fields(): string[] {
    return this.#inner.fields();
  }
}
