import { beforeEach, describe, expect, it } from '@jest/globals';
import { createInMemoryTracing } from './__fixtures__/in-memory-tracing';
import { deferSpanAttributes } from './defer-span-attributes';

const tracing = createInMemoryTracing();

beforeEach(() => tracing.reset());

describe('deferSpanAttributes', () => {
  it('describes the span once, when it ends, and not before', () => {
    const span = tracing.tracer.startSpan('deferred');
    let calls = 0;
    deferSpanAttributes(span, (ending) => {
      calls += 1;
      ending.setAttribute('output.value', 'late');
    });
    span.setAttribute('input.value', 'early');
    expect(calls).toBe(0);
    span.end();
    expect(calls).toBe(1);
    const [finished] = tracing.finishedSpans();
    expect(finished?.attributes).toMatchObject({ 'input.value': 'early', 'output.value': 'late' });
  });

  it('still ends the span when describing it throws', () => {
    const span = tracing.tracer.startSpan('throws');
    deferSpanAttributes(span, () => {
      throw new Error('bad answer');
    });
    span.end();
    expect(tracing.finishedSpans().map((finished) => finished.name)).toEqual(['throws']);
  });

  it('does nothing for a span that is not recording', () => {
    const span = tracing.tracer.startSpan('ended');
    span.end();
    let calls = 0;
    deferSpanAttributes(span, () => {
      calls += 1;
    });
    deferSpanAttributes(undefined, () => {
      calls += 1;
    });
    expect(calls).toBe(0);
  });
});
