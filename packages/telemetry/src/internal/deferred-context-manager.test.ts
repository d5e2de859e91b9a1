import { describe, expect, it } from '@jest/globals';
import { type Context, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { isTracingSuppressed, suppressTracing } from '@opentelemetry/core';
import { DeferredContextManager } from './deferred-context-manager';

const SPAN_CONTEXT = trace.setSpan(
  ROOT_CONTEXT,
  trace.wrapSpanContext({
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: 1,
  }),
);

/** The context active in a promise continuation scheduled inside `context`. */
function activeAfterAwait(
  manager: AsyncLocalStorageContextManager,
  context: Context,
): Promise<Context> {
  return manager.with(context, () => Promise.resolve().then(() => manager.active()));
}

describe('DeferredContextManager', () => {
  it('runs a context that carries no span or baggage in place until one that does is entered', async () => {
    // What the batch span processor does around each export.
    const plain = new AsyncLocalStorageContextManager().enable();
    expect(isTracingSuppressed(await activeAfterAwait(plain, suppressTracing(ROOT_CONTEXT)))).toBe(
      true,
    );
    const deferred = new DeferredContextManager().enable();
    let inside: Context | undefined;
    const result = deferred.with(
      suppressTracing(ROOT_CONTEXT),
      function (this: { tag: string }, value: number) {
        inside = deferred.active();
        return `${this.tag}:${value}`;
      },
      { tag: 'this' },
      7,
    );
    expect(result).toBe('this:7');
    expect(inside).toBe(ROOT_CONTEXT);
    expect(await activeAfterAwait(deferred, suppressTracing(ROOT_CONTEXT))).toBe(ROOT_CONTEXT);
    plain.disable();
  });

  it('is the AsyncLocalStorage context manager from the first context with a span on', async () => {
    const deferred = new DeferredContextManager().enable();
    expect(trace.getSpan(await activeAfterAwait(deferred, SPAN_CONTEXT))).toBe(
      trace.getSpan(SPAN_CONTEXT),
    );
    // Started: every context is entered now, and carried across await.
    expect(
      isTracingSuppressed(await activeAfterAwait(deferred, suppressTracing(ROOT_CONTEXT))),
    ).toBe(true);
    deferred.disable();
  });

  it('starts with a context that carries baggage', async () => {
    const deferred = new DeferredContextManager().enable();
    const withBaggage = propagation.setBaggage(
      ROOT_CONTEXT,
      propagation.createBaggage({ 'session.id': { value: 's-1' } }),
    );
    const active = await activeAfterAwait(deferred, withBaggage);
    expect(propagation.getBaggage(active)?.getEntry('session.id')?.value).toBe('s-1');
    deferred.disable();
  });
});
