import { beforeEach, describe, expect, it } from '@jest/globals';
import { context, propagation, trace } from '@opentelemetry/api';
import { createInMemoryTracing } from './__fixtures__/in-memory-tracing';
import { MAX_TRACESTATE_LENGTH, remoteParentContext } from './remote-parent';
import { SpanKind } from './semantic-conventions';
import { withSpan } from './with-span';

const tracing = createInMemoryTracing();
const { tracer } = tracing;

beforeEach(() => tracing.reset());

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_ID}-01`;

describe('remoteParentContext', () => {
  it("makes a span continue the caller's trace under the caller's span, tracestate kept", async () => {
    const parent = remoteParentContext({ traceparent: TRACEPARENT, tracestate: 'vendor=abc' });
    expect(parent).toBeDefined();
    await withSpan({ name: 'tools/call x', kind: SpanKind.TOOL, tracer, parent }, () => 1);
    const [span] = tracing.finishedSpans();
    expect(span?.spanContext().traceId).toBe(TRACE_ID);
    expect(span?.parentSpanContext?.spanId).toBe(PARENT_ID);
    expect(span?.parentSpanContext?.isRemote).toBe(true);
    expect(span?.spanContext().traceState?.serialize()).toBe('vendor=abc');
  });

  it('names no parent for a missing, malformed, all-zero or oversized traceparent', () => {
    expect(remoteParentContext(undefined)).toBeUndefined();
    expect(remoteParentContext({})).toBeUndefined();
    expect(remoteParentContext({ traceparent: 'not-a-traceparent' })).toBeUndefined();
    expect(
      remoteParentContext({ traceparent: `00-${'0'.repeat(32)}-${PARENT_ID}-01` }),
    ).toBeUndefined();
    expect(
      remoteParentContext({ traceparent: `${TRACEPARENT}-${'x'.repeat(300)}` }),
    ).toBeUndefined();
  });

  it('does not leave the active span as parent when the traceparent is invalid', async () => {
    await withSpan({ name: 'outer', kind: SpanKind.CHAIN, tracer }, () => {
      expect(remoteParentContext({ traceparent: 'garbage' })).toBeUndefined();
    });
  });

  it('drops an oversized tracestate and keeps the base context’s baggage', () => {
    const base = propagation.setBaggage(
      context.active(),
      propagation.createBaggage({ 'session.id': { value: 's1' } }),
    );
    const parent = remoteParentContext(
      { traceparent: TRACEPARENT, tracestate: `a=${'b'.repeat(MAX_TRACESTATE_LENGTH)}` },
      base,
    );
    expect(trace.getSpanContext(parent!)?.traceState).toBeUndefined();
    expect(propagation.getBaggage(parent!)?.getEntry('session.id')?.value).toBe('s1');
  });
});
