import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { createInMemoryTracing } from './__fixtures__/in-memory-tracing';
import { SpanKind } from './semantic-conventions';
import {
  setLlmAttributes,
  setRetrievalDocuments,
  setSessionAttributes,
  setSpanInput,
  setSpanOutput,
} from './span-attributes';
import { withSpan } from './with-span';
import { REDACTED_VALUE, setTraceHideConfig } from './internal/trace-config';

const tracing = createInMemoryTracing();
const { tracer } = tracing;

beforeEach(() => tracing.reset());

function attributesOf(name: string) {
  const span = tracing.finishedSpans().find((finished) => finished.name === name);
  expect(span).toBeDefined();
  return span!.attributes;
}

describe('setLlmAttributes', () => {
  it('flattens messages, tool calls and parameters the way Phoenix reads them', async () => {
    await withSpan({ name: 'llm', kind: SpanKind.LLM, tracer }, (span) => {
      setLlmAttributes(span, {
        model: 'gpt-4o-mini',
        provider: 'openai',
        system: 'openai',
        invocationParameters: { temperature: 0, max_tokens: 256 },
        inputMessages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'tool', content: '{"temp":21}', toolCallId: 'call-1', name: 'weather' },
        ],
        outputMessages: [
          {
            role: 'assistant',
            content: null,
            toolCalls: [{ id: 'call-2', name: 'search', arguments: { query: 'paris' } }],
          },
        ],
        finishReason: 'tool_calls',
      });
    });
    expect(attributesOf('llm')).toEqual({
      'openinference.span.kind': 'LLM',
      'llm.model_name': 'gpt-4o-mini',
      'llm.provider': 'openai',
      'llm.system': 'openai',
      'llm.invocation_parameters': '{"temperature":0,"max_tokens":256}',
      'llm.finish_reason': 'tool_calls',
      'llm.input_messages.0.message.role': 'system',
      'llm.input_messages.0.message.content': 'Be brief.',
      'llm.input_messages.1.message.role': 'user',
      'llm.input_messages.1.message.content': 'Weather in Paris?',
      'llm.input_messages.2.message.role': 'tool',
      'llm.input_messages.2.message.content': '{"temp":21}',
      'llm.input_messages.2.message.name': 'weather',
      'llm.input_messages.2.message.tool_call_id': 'call-1',
      'llm.output_messages.0.message.role': 'assistant',
      'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'call-2',
      'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'search',
      'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments':
        '{"query":"paris"}',
    });
  });

  it('records integer token counts and derives the total', async () => {
    await withSpan({ name: 'llm', kind: SpanKind.LLM, tracer }, (span) => {
      setLlmAttributes(span, { model: 'm', tokenCounts: { prompt: 12.4, completion: 30 } });
    });
    const attributes = attributesOf('llm');
    expect(attributes['llm.token_count.prompt']).toBe(12);
    expect(attributes['llm.token_count.completion']).toBe(30);
    expect(attributes['llm.token_count.total']).toBe(42);
    for (const key of ['prompt', 'completion', 'total']) {
      expect(Number.isInteger(attributes[`llm.token_count.${key}`])).toBe(true);
    }
  });

  it('keeps an explicit total and skips counts that are not numbers of tokens', async () => {
    await withSpan({ name: 'llm', kind: SpanKind.LLM, tracer }, (span) => {
      setLlmAttributes(span, { tokenCounts: { prompt: Number.NaN, completion: -1, total: 7 } });
    });
    const attributes = attributesOf('llm');
    expect(attributes['llm.token_count.prompt']).toBeUndefined();
    expect(attributes['llm.token_count.completion']).toBeUndefined();
    expect(attributes['llm.token_count.total']).toBe(7);
  });

  it('can be called again after a stream to add output and usage', async () => {
    await withSpan({ name: 'llm', kind: SpanKind.LLM, tracer }, (span) => {
      setLlmAttributes(span, { model: 'm', inputMessages: [{ role: 'user', content: 'hi' }] });
      setLlmAttributes(span, {
        outputMessages: [{ role: 'assistant', content: 'hello' }],
        tokenCounts: { prompt: 1, completion: 1 },
      });
    });
    expect(attributesOf('llm')).toMatchObject({
      'llm.model_name': 'm',
      'llm.input_messages.0.message.content': 'hi',
      'llm.output_messages.0.message.content': 'hello',
      'llm.token_count.total': 2,
    });
  });

  it('caps long message contents', async () => {
    await withSpan({ name: 'llm', kind: SpanKind.LLM, tracer }, (span) => {
      setLlmAttributes(span, {
        inputMessages: [{ role: 'user', content: 'y'.repeat(50) }],
        maxValueLength: 10,
      });
    });
    expect(attributesOf('llm')['llm.input_messages.0.message.content']).toBe(
      `${'y'.repeat(10)}…[truncated 40 characters]`,
    );
  });
});

describe('setRetrievalDocuments', () => {
  it('records id, content, float score and JSON metadata per document', async () => {
    await withSpan({ name: 'retrieve', kind: SpanKind.RETRIEVER, tracer }, (span) => {
      setRetrievalDocuments(span, [
        { id: 'chunk-1', content: 'Paris is in France.', score: 0.87, metadata: { page: 3 } },
        { id: 42, content: 'Lyon too.' },
      ]);
    });
    expect(attributesOf('retrieve')).toMatchObject({
      'retrieval.documents.0.document.id': 'chunk-1',
      'retrieval.documents.0.document.content': 'Paris is in France.',
      'retrieval.documents.0.document.score': 0.87,
      'retrieval.documents.0.document.metadata': '{"page":3}',
      'retrieval.documents.1.document.id': '42',
      'retrieval.documents.1.document.content': 'Lyon too.',
    });
    expect(attributesOf('retrieve')['retrieval.documents.1.document.score']).toBeUndefined();
  });
});

describe('setSessionAttributes', () => {
  it('sets session.id and user.id, leaving out what is not given', async () => {
    await withSpan({ name: 'root', kind: SpanKind.CHAIN, tracer }, (span) => {
      setSessionAttributes(span, { sessionId: 's-1', userId: undefined });
    });
    expect(attributesOf('root')['session.id']).toBe('s-1');
    expect(attributesOf('root')['user.id']).toBeUndefined();
  });
});

describe('setSpanInput / setSpanOutput', () => {
  it('sets values on a span the caller did not start, and ignores a missing span', () => {
    const span = tracer.startSpan('server');
    setSpanInput(span, 'question');
    setSpanOutput(span, ['answer', 1]);
    span.end();
    setSpanOutput(undefined, 'nothing happens');
    expect(attributesOf('server')).toEqual({
      'input.value': 'question',
      'input.mime_type': 'text/plain',
      'output.value': '["answer",1]',
      'output.mime_type': 'application/json',
    });
  });

  it('falls back to text for values JSON cannot represent', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    await withSpan({ name: 'odd', kind: SpanKind.CHAIN, tracer }, (span) => {
      setSpanInput(span, cyclic);
      setSpanOutput(span, 10n);
    });
    expect(attributesOf('odd')).toMatchObject({
      'input.value': '[object Object]',
      'input.mime_type': 'text/plain',
      'output.value': '10',
      'output.mime_type': 'text/plain',
    });
  });
});

describe('OpenInference masking (OPENINFERENCE_HIDE_*)', () => {
  const llm = {
    model: 'gpt-x',
    invocationParameters: { temperature: 0 },
    inputMessages: [{ role: 'user', content: 'secret question' }],
    outputMessages: [{ role: 'assistant', content: 'secret answer' }],
    tokenCounts: { prompt: 3, completion: 2 },
  };

  async function record(name: string) {
    await withSpan({ name, kind: SpanKind.LLM, tracer }, (span) => {
      setSpanInput(span, 'secret question');
      setSpanOutput(span, 'secret answer');
      setLlmAttributes(span, llm);
    });
    return attributesOf(name);
  }

  afterEach(() => setTraceHideConfig({}));

  it('redacts input and output values and leaves the messages out with hideInputs/hideOutputs', async () => {
    setTraceHideConfig({ hideInputs: true, hideOutputs: true });
    const attributes = await record('hide-io');
    expect(attributes['input.value']).toBe(REDACTED_VALUE);
    expect(attributes['output.value']).toBe(REDACTED_VALUE);
    expect(attributes['input.mime_type']).toBeUndefined();
    expect(Object.keys(attributes).some((key) => key.startsWith('llm.input_messages'))).toBe(false);
    expect(Object.keys(attributes).some((key) => key.startsWith('llm.output_messages'))).toBe(
      false,
    );
    // What Phoenix needs besides the text stays: model and token counts.
    expect(attributes).toMatchObject({
      'llm.model_name': 'gpt-x',
      'llm.token_count.prompt': 3,
      'llm.token_count.total': 5,
    });
  });

  it('leaves out only the messages with hideInputMessages/hideOutputMessages', async () => {
    setTraceHideConfig({ hideInputMessages: true, hideOutputMessages: true });
    const attributes = await record('hide-messages');
    expect(attributes['input.value']).toBe('secret question');
    expect(attributes['output.value']).toBe('secret answer');
    expect(JSON.stringify(attributes)).not.toContain('llm.input_messages');
    expect(JSON.stringify(attributes)).not.toContain('llm.output_messages');
  });

  it('redacts message text but keeps roles with hideInputText/hideOutputText', async () => {
    setTraceHideConfig({ hideInputText: true, hideOutputText: true });
    const attributes = await record('hide-text');
    expect(attributes).toMatchObject({
      'llm.input_messages.0.message.role': 'user',
      'llm.input_messages.0.message.content': REDACTED_VALUE,
      'llm.output_messages.0.message.content': REDACTED_VALUE,
    });
  });

  it('leaves out the invocation parameters with hideLlmInvocationParameters', async () => {
    setTraceHideConfig({ hideLlmInvocationParameters: true });
    const attributes = await record('hide-parameters');
    expect(attributes['llm.invocation_parameters']).toBeUndefined();
    expect(attributes['llm.input_messages.0.message.content']).toBe('secret question');
  });
});
