import { type Context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';

/** Whether a context carries nothing that code run in it could read: no span, no baggage. */
function carriesNothing(context: Context): boolean {
  return trace.getSpan(context) === undefined && propagation.getBaggage(context) === undefined;
}

/**
 * The `AsyncLocalStorage` context manager, started only once a context that carries a span or
 * baggage is entered. On Node 20, once any `AsyncLocalStorage` has been entered, its promise hook
 * runs for every promise in the process and V8's fast paths for `await` are off: a service whose
 * hot path carries its trace context explicitly (the gateway, docs/tracing.md §7) would still pay
 * that from the batch span processor's first export, which runs the exporter in a context that
 * only suppresses tracing. Until the storage has started, such a context runs its callback in
 * place: at the root, where nothing is active, the instrumentations record nothing anyway
 * (outgoing calls need a parent span), so the flag has nothing to suppress. From the first real
 * context on, this is the plain `AsyncLocalStorageContextManager`.
 */
export class DeferredContextManager extends AsyncLocalStorageContextManager {
  #started = false;

  // eslint-disable-next-line max-params -- ContextManager.with's signature (@opentelemetry/api)
  override with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    if (!this.#started) {
      if (carriesNothing(context)) {
        return thisArg === undefined ? fn(...args) : fn.call(thisArg, ...args);
      }
      this.#started = true;
    }
    return super.with(context, fn, thisArg, ...args);
  }

  override attach(context: Context): ReturnType<AsyncLocalStorageContextManager['attach']> {
    this.#started = true;
    return super.attach(context);
  }
}
