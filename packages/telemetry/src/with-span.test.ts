import { beforeEach, describe, expect, it } from '@jest/globals';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { createInMemoryTracing } from './__fixtures__/in-memory-tracing';
import { SpanKind } from './semantic-conventions';
import { setSpanOutput } from './span-attributes';
import { withSpan } from './with-span';

const tracing = createInMemoryTracing();
const { tracer } = tracing;

beforeEach(() => tracing.reset());

function onlySpan() {
  const spans = tracing.finishedSpans();
  expect(spans).toHaveLength(1);
  return spans[0]!;
}

describe('withSpan', () => {
  it('sets the OpenInference kind and a JSON input, and returns what fn returns', async () => {
    const result = await withSpan(
      { name: 'plan', kind: SpanKind.CHAIN, input: { task: 'find flights' }, tracer },
      (span) => {
        setSpanOutput(span, { nodes: 2 });
        return 'planned';
      },
    );
    expect(result).toBe('planned');
    const span = onlySpan();
    expect(span.name).toBe('plan');
    expect(span.attributes).toMatchObject({
      'openinference.span.kind': 'CHAIN',
      'input.value': '{"task":"find flights"}',
      'input.mime_type': 'application/json',
      'output.value': '{"nodes":2}',
      'output.mime_type': 'application/json',
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('records a string input as text/plain and merges extra attributes', async () => {
    await withSpan(
      { name: 'agent', kind: 'AGENT', input: 'hello', attributes: { 'agent.name': 'rag' }, tracer },
      () => undefined,
    );
    expect(onlySpan().attributes).toMatchObject({
      'openinference.span.kind': 'AGENT',
      'input.value': 'hello',
      'input.mime_type': 'text/plain',
      'agent.name': 'rag',
    });
  });

  it('sets no input attributes when there is no input', async () => {
    await withSpan({ name: 'tool', kind: SpanKind.TOOL, tracer }, () => 1);
    expect(onlySpan().attributes['input.value']).toBeUndefined();
  });

  it('records the exception, marks the span ERROR, ends it and rethrows', async () => {
    const failure = new Error('upstream timed out');
    await expect(
      withSpan({ name: 'llm', kind: SpanKind.LLM, tracer }, async () => {
        await Promise.resolve();
        throw failure;
      }),
    ).rejects.toBe(failure);
    const span = onlySpan();
    expect(span.ended).toBe(true);
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'upstream timed out' });
    const exception = span.events.find((event) => event.name === 'exception');
    expect(exception?.attributes?.['exception.message']).toBe('upstream timed out');
    expect(exception?.attributes?.['exception.type']).toBe('Error');
  });

  it('records a non-Error throw as a string exception', async () => {
    await expect(
      withSpan({ name: 'step', kind: SpanKind.CHAIN, tracer }, () => {
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- a non-Error throw is the case under test
        throw 'plain failure';
      }),
    ).rejects.toBe('plain failure');
    expect(onlySpan().status).toEqual({ code: SpanStatusCode.ERROR, message: 'plain failure' });
  });

  it('makes the span active, so nested spans become its children', async () => {
    await withSpan({ name: 'outer', kind: SpanKind.CHAIN, tracer }, async (outer) => {
      expect(trace.getActiveSpan()).toBe(outer);
      await withSpan({ name: 'inner', kind: SpanKind.RETRIEVER, tracer }, async () => {
        await Promise.resolve();
      });
    });
    const spans = tracing.finishedSpans();
    const outer = spans.find((span) => span.name === 'outer')!;
    const inner = spans.find((span) => span.name === 'inner')!;
    expect(inner.spanContext().traceId).toBe(outer.spanContext().traceId);
    expect(inner.parentSpanContext?.spanId).toBe(outer.spanContext().spanId);
  });

  it('caps a long input and marks the cut, labelling it text/plain', async () => {
    const input = { text: 'x'.repeat(500) };
    await withSpan(
      { name: 'big', kind: SpanKind.CHAIN, input, maxValueLength: 100, tracer },
      () => 0,
    );
    const value = onlySpan().attributes['input.value'];
    expect(typeof value).toBe('string');
    // The JSON is 511 characters: 9 for `{"text":"`, 500 x's, 2 for `"}`; 100 are kept.
    expect(value).toBe(`{"text":"${'x'.repeat(91)}…[truncated 411 characters]`);
    expect(onlySpan().attributes['input.mime_type']).toBe('text/plain');
  });

  it('does not serialise input when the span is not recording (no SDK)', async () => {
    let serialised = false;
    const input = {
      toJSON() {
        serialised = true;
        return {};
      },
    };
    // No tracer option and no global provider: the no-op tracer.
    const result = await withSpan({ name: 'off', kind: SpanKind.CHAIN, input }, (span) => {
      expect(span.isRecording()).toBe(false);
      setSpanOutput(span, input);
      return 'still runs';
    });
    expect(result).toBe('still runs');
    expect(serialised).toBe(false);
    expect(tracing.finishedSpans()).toHaveLength(0);
  });
});
