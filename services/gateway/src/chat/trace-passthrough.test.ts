import { describe, expect, it } from '@jest/globals';
import { createRecordingTracer } from '@fleet/testing';
import { chatCompletionRequestSchema } from './chat-completion-request';
import { readStream, tracePassthrough } from './trace-passthrough';

const request = chatCompletionRequestSchema.parse({
  model: 'gpt-trace',
  stream: true,
  temperature: 0,
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'What is the capital of Norway?' },
  ],
});

function sse(...events: unknown[]): string {
  return `${events.map((event) => `data: ${typeof event === 'string' ? event : JSON.stringify(event)}\n\n`).join('')}data: [DONE]\n\n`;
}

const STREAM = sse(
  { choices: [{ delta: { role: 'assistant', content: 'Oslo ' } }] },
  { choices: [{ delta: { content: 'is the capital.' } }] },
  { choices: [{ delta: {}, finish_reason: 'stop' }] },
  { choices: [], usage: { prompt_tokens: 11, completion_tokens: 5 } },
);

function startSpan() {
  const { tracer, spans } = createRecordingTracer();
  const span = tracer.startSpan('POST');
  return { span, recorded: () => spans[0]!.attributes };
}

describe('tracePassthrough', () => {
  it('puts input, output, messages and token counts on the span when it ends', () => {
    const { span, recorded } = startSpan();
    const observer = tracePassthrough({ span, request, tenant: 'acme' })!;
    // Chunks split mid-event, as TCP delivers them.
    const bytes = Buffer.from(STREAM);
    observer.chunk(bytes.subarray(0, 37));
    observer.chunk(bytes.subarray(37));
    observer.end('complete');
    // Nothing is parsed while the response is still going out.
    expect(recorded()['output.value']).toBeUndefined();
    span.end();
    expect(recorded()).toMatchObject({
      'openinference.span.kind': 'LLM',
      'input.value': 'What is the capital of Norway?',
      'output.value': 'Oslo is the capital.',
      'user.id': 'acme',
      'llm.model_name': 'gpt-trace',
      'llm.input_messages.1.message.content': 'What is the capital of Norway?',
      'llm.output_messages.0.message.role': 'assistant',
      'llm.output_messages.0.message.content': 'Oslo is the capital.',
      'llm.token_count.prompt': 11,
      'llm.token_count.completion': 5,
      'llm.token_count.total': 16,
      'llm.finish_reason': 'stop',
    });
    expect(recorded()['fleet.passthrough.outcome']).toBeUndefined();
  });

  it('reads a non-streamed answer', () => {
    const { span, recorded } = startSpan();
    const observer = tracePassthrough({
      span,
      request: { ...request, stream: false },
      tenant: 'acme',
    })!;
    observer.chunk(
      Buffer.from(
        JSON.stringify({
          choices: [{ message: { role: 'assistant', content: 'Oslo.' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 9, completion_tokens: 2 },
        }),
      ),
    );
    observer.end('complete');
    span.end();
    expect(recorded()).toMatchObject({
      'output.value': 'Oslo.',
      'llm.token_count.prompt': 9,
      'llm.token_count.completion': 2,
    });
  });

  it('marks a response that closed before the answer ended as client-gone', () => {
    const { span, recorded } = startSpan();
    const observer = tracePassthrough({ span, request, tenant: 'acme' })!;
    observer.chunk(Buffer.from(sse({ choices: [{ delta: { content: 'Os' } }] })));
    span.end();
    observer.end('client-gone');
    expect(recorded()).toMatchObject({
      'output.value': 'Os',
      'fleet.passthrough.outcome': 'client-gone',
    });
  });

  it('costs nothing when the span is not recording', () => {
    const { span } = startSpan();
    span.end();
    expect(tracePassthrough({ span, request, tenant: 'acme' })).toBeUndefined();
    expect(tracePassthrough({ span: undefined, request, tenant: 'acme' })).toBeUndefined();
  });
});

describe('readStream', () => {
  it('skips events that are not chunks and keeps the rest', () => {
    const text = `: keep-alive\r\n\r\n${sse(
      { choices: [{ delta: { content: 'a' } }] },
      'not json',
      { choices: [{ delta: { content: 'b' } }], usage: { prompt_tokens: 1, completion_tokens: 2 } },
    )}event: error\ndata: {"error":{"message":"x"}}\n\n`;
    expect(readStream(text)).toEqual({
      content: 'ab',
      finishReason: undefined,
      usage: { prompt_tokens: 1, completion_tokens: 2 },
    });
  });

  it('joins multi-line data fields, as the SSE spec says', () => {
    const text = 'data: {"choices":[{"delta":\ndata: {"content":"x"}}]}\n\n';
    expect(readStream(text).content).toBe('x');
  });
});
