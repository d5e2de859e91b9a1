/**
 * One passthrough request is one trace: the gateway's root span carries OpenInference attributes
 * Phoenix renders, exported as OTLP/protobuf (what Phoenix accepts), and the trace context reaches
 * the upstream LLM.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import {
  startOtlpCapture,
  startScriptedOpenAI,
  type OtlpCapture,
  type ScriptedOpenAI,
} from '@fleet/testing';
import { E2E_KEY, startGateway, type RunningGateway } from './support/start-gateway';

describe('gateway tracing', () => {
  let llm: ScriptedOpenAI;
  let capture: OtlpCapture;
  let gateway: RunningGateway;

  beforeAll(async () => {
    llm = await startScriptedOpenAI();
    capture = await startOtlpCapture();
    gateway = await startGateway({
      OPENAI_BASE_URL: llm.baseURL,
      OTEL_EXPORTER_OTLP_ENDPOINT: capture.url,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      PHOENIX_PROJECT_NAME: 'fleet-e2e',
    });
  });
  afterAll(async () => {
    await gateway?.stop();
    await llm?.close();
    await capture?.close();
  });

  it('records a streamed passthrough as an LLM span on a new root trace', async () => {
    llm.enqueue({
      content: 'Oslo is the capital.',
      usage: { prompt_tokens: 11, completion_tokens: 5 },
    });
    const client = new OpenAI({ apiKey: E2E_KEY, baseURL: gateway.baseURL, maxRetries: 0 });
    const foreignTraceId = '0af7651916cd43dd8448eb211c80319c';
    const stream = await client.chat.completions.create(
      {
        model: 'gpt-trace',
        stream: true,
        stream_options: { include_usage: true },
        temperature: 0,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'What is the capital of Norway?' },
        ],
      },
      // A client's own trace context must not be continued at the ingress (docs/tracing.md §3).
      { headers: { traceparent: `00-${foreignTraceId}-b7ad6b7169203331-01` } },
    );
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Oslo is the capital.');

    const spans = await capture.waitForSpans(
      (all) => all.some((span) => span.attributes['openinference.span.kind'] === 'LLM'),
      10_000,
    );
    const root = spans.find((span) => span.attributes['openinference.span.kind'] === 'LLM')!;
    expect(capture.contentTypes.every((type) => type === 'application/x-protobuf')).toBe(true);
    expect(root.parentSpanId).toBeUndefined();
    expect(root.traceId).not.toBe(foreignTraceId);
    expect(root.name).toBe('POST /v1/chat/completions');
    expect(root.serviceName).toBe('gateway');
    expect(root.resource['openinference.project.name']).toBe('fleet-e2e');
    expect(root.attributes).toMatchObject({
      'service.name': 'gateway',
      'input.value': 'What is the capital of Norway?',
      'output.value': 'Oslo is the capital.',
      'user.id': 'e2e',
      'llm.model_name': 'gpt-trace',
      'llm.input_messages.0.message.role': 'system',
      'llm.input_messages.1.message.content': 'What is the capital of Norway?',
      'llm.output_messages.0.message.content': 'Oslo is the capital.',
      'llm.token_count.prompt': 11,
      'llm.token_count.completion': 5,
      'llm.token_count.total': 16,
      'llm.finish_reason': 'stop',
    });
    expect(JSON.parse(root.attributes['llm.invocation_parameters'] as string)).toMatchObject({
      temperature: 0,
      stream: true,
    });
    expect(JSON.stringify(root.attributes)).not.toContain(E2E_KEY);

    // The call to the upstream carries the same trace.
    const traceparent = llm.requests.at(-1)?.headers['traceparent'];
    expect(typeof traceparent).toBe('string');
    expect((traceparent as string).split('-')[1]).toBe(root.traceId);
  });

  it('records a streamed /v1/responses passthrough as an LLM span, and embeddings as EMBEDDING', async () => {
    llm.enqueue({ content: 'Bergen is rainy.', usage: { prompt_tokens: 7, completion_tokens: 4 } });
    const client = new OpenAI({ apiKey: E2E_KEY, baseURL: gateway.baseURL, maxRetries: 0 });
    const final = await client.responses
      .stream({ model: 'gpt-responses', instructions: 'Be brief.', input: 'Weather in Bergen?' })
      .finalResponse();
    expect(final.output_text).toBe('Bergen is rainy.');
    await client.embeddings.create({ model: 'embed-trace', input: ['first', 'second'] });

    const spans = await capture.waitForSpans(
      (all) =>
        all.some((span) => span.name === 'POST /v1/responses') &&
        all.some((span) => span.name === 'POST /v1/embeddings'),
      10_000,
    );
    const responses = spans.find((span) => span.name === 'POST /v1/responses')!;
    expect(responses.parentSpanId).toBeUndefined();
    expect(responses.attributes).toMatchObject({
      'openinference.span.kind': 'LLM',
      'input.value': 'Weather in Bergen?',
      'output.value': 'Bergen is rainy.',
      'llm.model_name': 'gpt-responses',
      'llm.input_messages.0.message.role': 'system',
      'llm.token_count.prompt': 7,
      'llm.token_count.completion': 4,
      'llm.finish_reason': 'completed',
    });
    const embeddings = spans.find((span) => span.name === 'POST /v1/embeddings')!;
    expect(embeddings.attributes).toMatchObject({
      'openinference.span.kind': 'EMBEDDING',
      'embedding.model_name': 'embed-trace',
      'embedding.embeddings.0.embedding.text': 'first',
      'embedding.embeddings.1.embedding.text': 'second',
      'llm.token_count.prompt': expect.any(Number),
    });
    expect(JSON.stringify(embeddings.attributes)).not.toMatch(/embedding\.vector/);

    // Each upstream call carries its own request's trace, the span as parent.
    for (const [path, span] of [
      ['/v1/responses', responses],
      ['/v1/embeddings', embeddings],
    ] as const) {
      const traceparent = llm.requests.findLast((request) => request.path === path)?.headers[
        'traceparent'
      ];
      expect(traceparent).toBe(`00-${span.traceId}-${span.spanId}-01`);
    }
  });
});
