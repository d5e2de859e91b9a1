import { describe, expect, it } from '@jest/globals';
import { createRecordingTracer } from '@fleet/testing';
import { traceEmbeddings, embeddingsRequestSchema } from '../embeddings';
import { responsesRequestSchema } from './responses-request';
import { traceResponsesPassthrough } from './trace-responses-passthrough';

function startSpan() {
  const { tracer, spans } = createRecordingTracer();
  const span = tracer.startSpan('POST');
  return { span, recorded: () => spans[0]!.attributes, name: () => spans[0]!.name };
}

const completed = {
  type: 'response.completed',
  response: {
    status: 'completed',
    output: [{ type: 'message', content: [{ type: 'output_text', text: 'Oslo.' }] }],
    usage: { input_tokens: 9, output_tokens: 2, total_tokens: 11 },
  },
};

describe('traceResponsesPassthrough', () => {
  it('describes a streamed call as an LLM span when it ends', () => {
    const { span, recorded, name } = startSpan();
    const request = responsesRequestSchema.parse({
      model: 'gpt-trace',
      stream: true,
      instructions: 'Be brief.',
      input: 'Capital of Norway?',
      store: true,
      previous_response_id: 'resp_1',
    });
    const observer = traceResponsesPassthrough({ span, request, tenant: 'acme' })!;
    const stream =
      `event: response.output_text.delta\ndata: ${JSON.stringify({ type: 'response.output_text.delta', delta: 'Oslo.' })}\n\n` +
      `event: response.completed\ndata: ${JSON.stringify(completed)}\n\n`;
    const bytes = Buffer.from(stream);
    observer.chunk(bytes.subarray(0, 20));
    observer.chunk(bytes.subarray(20));
    observer.end('complete');
    span.end();
    expect(name()).toBe('POST /v1/responses');
    expect(recorded()).toMatchObject({
      'openinference.span.kind': 'LLM',
      'input.value': 'Capital of Norway?',
      'output.value': 'Oslo.',
      'user.id': 'acme',
      'llm.model_name': 'gpt-trace',
      'llm.input_messages.0.message.role': 'system',
      'llm.input_messages.1.message.content': 'Capital of Norway?',
      'llm.token_count.prompt': 9,
      'llm.token_count.completion': 2,
      'llm.finish_reason': 'completed',
    });
    expect(String(recorded()['llm.invocation_parameters'])).toContain(
      '"previous_response_id":"resp_1"',
    );
  });

  it('reads a whole response, and marks a cut stream', () => {
    const { span, recorded } = startSpan();
    const request = responsesRequestSchema.parse({ model: 'm', input: 'Hi' });
    const observer = traceResponsesPassthrough({ span, request, tenant: 'acme' })!;
    observer.chunk(Buffer.from(JSON.stringify(completed.response)));
    observer.end('interrupted');
    span.end();
    expect(recorded()).toMatchObject({
      'output.value': 'Oslo.',
      'fleet.passthrough.outcome': 'interrupted',
    });
  });
});

describe('traceEmbeddings', () => {
  it('describes the call as an EMBEDDING span without vectors', () => {
    const { span, recorded, name } = startSpan();
    const request = embeddingsRequestSchema.parse({
      model: 'text-embedding-3-small',
      input: ['first text', 'second text'],
      dimensions: 4,
    });
    const observer = traceEmbeddings({ span, request, tenant: 'acme' })!;
    observer.chunk(
      Buffer.from(
        JSON.stringify({
          object: 'list',
          data: [{ object: 'embedding', index: 0, embedding: [0.125, 0.25, 0.5, 0.75] }],
          usage: { prompt_tokens: 4, total_tokens: 4 },
        }),
      ),
    );
    observer.end('complete');
    span.end();
    expect(name()).toBe('POST /v1/embeddings');
    expect(recorded()).toMatchObject({
      'openinference.span.kind': 'EMBEDDING',
      'embedding.model_name': 'text-embedding-3-small',
      'embedding.embeddings.0.embedding.text': 'first text',
      'embedding.embeddings.1.embedding.text': 'second text',
      'llm.token_count.prompt': 4,
      'llm.token_count.total': 4,
      'user.id': 'acme',
    });
    expect(JSON.stringify(recorded())).not.toContain('0.125');
  });
});
