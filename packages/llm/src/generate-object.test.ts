import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import { AbortError, UpstreamError, ValidationError } from '@fleet/errors';
import { startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { generateObject } from './generate-object';
import { StructuredOutputError } from './structured-output-error';

const answerSchema = z.object({
  answer: z.string(),
  count: z.number().int(),
  note: z.string().optional(),
  tags: z.array(z.string()).default([]),
});

const exporter = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({
  spanProcessors: [new SimpleSpanProcessor(exporter)],
}).getTracer('test');

describe('generateObject', () => {
  let llm: ScriptedOpenAI;
  let client: OpenAI;
  beforeAll(async () => {
    llm = await startScriptedOpenAI();
    client = new OpenAI({ apiKey: 'sk-test', baseURL: llm.baseURL, maxRetries: 0 });
  });
  afterAll(() => llm.close());
  beforeEach(() => exporter.reset());

  const ask = (extra: { signal?: AbortSignal } = {}) =>
    generateObject({
      client,
      model: 'scripted-model',
      schema: answerSchema,
      schemaName: 'answer',
      messages: [
        { role: 'system', content: 'Answer in JSON.' },
        { role: 'user', content: 'how many?' },
      ],
      temperature: 0,
      maxTokens: 200,
      tracer,
      ...extra,
    });

  it('sends a strict json_schema response format and parses the answer', async () => {
    const before = llm.requests.length;
    const result = await ask();
    // The scripted server answers JSON-schema mode with a value that fits the schema.
    expect(result.object).toEqual({ answer: 'how many?', count: 0, note: 'how many?', tags: [] });
    expect(JSON.parse(result.raw)).toEqual(expect.objectContaining({ count: 0 }));
    expect(result.usage).toEqual({
      promptTokens: expect.any(Number),
      completionTokens: expect.any(Number),
      totalTokens: expect.any(Number),
    });
    const body = llm.requests[before]!.body as Record<string, any>;
    expect(body['temperature']).toBe(0);
    expect(body['max_tokens']).toBe(200);
    expect(body['response_format']).toEqual({
      type: 'json_schema',
      json_schema: {
        name: 'answer',
        strict: true,
        schema: {
          type: 'object',
          properties: {
            answer: { type: 'string' },
            count: { type: 'integer' },
            note: { type: ['string', 'null'] },
            tags: { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'null' }] },
          },
          required: ['answer', 'count', 'note', 'tags'],
          additionalProperties: false,
        },
      },
    });
  });

  it('turns nulls in optional fields into absent fields, so defaults apply', async () => {
    llm.enqueue({
      json: { answer: 'three', count: 3, note: null, tags: null },
      usage: { prompt_tokens: 11, completion_tokens: 7 },
    });
    const result = await ask();
    expect(result.object).toEqual({ answer: 'three', count: 3, tags: [] });
    expect('note' in result.object).toBe(false);
    expect(result.usage).toEqual({ promptTokens: 11, completionTokens: 7, totalTokens: 18 });
  });

  it('accepts JSON wrapped in a Markdown fence', async () => {
    llm.enqueue({ content: '```json\n{"answer":"x","count":1,"note":null,"tags":["a"]}\n```' });
    expect((await ask()).object).toEqual({ answer: 'x', count: 1, tags: ['a'] });
  });

  it('throws a ValidationError carrying the raw text when the answer is not JSON', async () => {
    llm.enqueue({ content: 'not json' });
    const error = await ask().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StructuredOutputError);
    expect(error).toBeInstanceOf(ValidationError);
    const structured = error as StructuredOutputError;
    expect(structured.code).toBe('VALIDATION_FAILED');
    expect(structured.text).toBe('not json');
    expect(structured.details?.['text']).toBe('not json');
    expect(structured.message).toMatch(/The model's output is not valid JSON/);
  });

  it('throws a ValidationError listing the issues when the JSON does not fit', async () => {
    llm.enqueue({ json: { answer: 42, count: 1.5, note: null, tags: [] } });
    const error = (await ask().catch((caught: unknown) => caught)) as StructuredOutputError;
    expect(error).toBeInstanceOf(StructuredOutputError);
    expect(error.text).toBe('{"answer":42,"count":1.5,"note":null,"tags":[]}');
    expect(error.details?.['issues']).toEqual([
      { path: 'answer', message: expect.any(String) },
      { path: 'count', message: expect.any(String) },
    ]);
  });

  it('throws a ValidationError for an empty answer', async () => {
    llm.enqueue({ content: '' });
    await expect(ask()).rejects.toThrow(/no content/);
  });

  it('maps upstream failures to fleet errors', async () => {
    llm.enqueue({ error: { status: 500, message: 'boom' } });
    const error = (await ask().catch((caught: unknown) => caught)) as UpstreamError;
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error.status).toBe(500);
    expect(error.isRetryable).toBe(true);
    expect(error.requestId).toMatch(/^req_/);

    llm.enqueue({ hang: true });
    const controller = new AbortController();
    const pending = ask({ signal: controller.signal });
    await llm.waitForRequests(llm.requests.length + 1);
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(AbortError);
  });

  it('records an LLM span with model, messages, output and token counts', async () => {
    llm.enqueue({
      json: { answer: 'a', count: 1, note: 'n', tags: [] },
      usage: { prompt_tokens: 5, completion_tokens: 3 },
    });
    await ask();
    const [span] = exporter.getFinishedSpans();
    expect(span?.name).toBe('llm.generate-object');
    expect(span?.attributes).toEqual(
      expect.objectContaining({
        'openinference.span.kind': 'LLM',
        'llm.model_name': 'scripted-model',
        'llm.input_messages.0.message.role': 'system',
        'llm.input_messages.1.message.content': 'how many?',
        'llm.output_messages.0.message.content': '{"answer":"a","count":1,"note":"n","tags":[]}',
        'llm.token_count.prompt': 5,
        'llm.token_count.completion': 3,
        'llm.token_count.total': 8,
        'output.value': '{"answer":"a","count":1,"note":"n","tags":[]}',
      }),
    );
  });

  it('marks the span as failed when the answer does not validate', async () => {
    llm.enqueue({ content: 'nope' });
    await ask().catch(() => undefined);
    const [span] = exporter.getFinishedSpans();
    expect(span?.status.code).toBe(2); // SpanStatusCode.ERROR
    expect(span?.attributes['output.value']).toBe('nope');
  });
});
