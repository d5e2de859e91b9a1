import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import OpenAI from 'openai';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { AbortError, ConfigError, ConnectionError, UpstreamError } from '@fleet/errors';
import { embedText, startScriptedOpenAI, type ScriptedOpenAI } from '@fleet/testing';
import { createOpenAIEmbedder } from './create-openai-embedder';

const exporter = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({
  spanProcessors: [new SimpleSpanProcessor(exporter)],
}).getTracer('test');

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('createOpenAIEmbedder', () => {
  let llm: ScriptedOpenAI;
  let client: OpenAI;
  beforeAll(async () => {
    llm = await startScriptedOpenAI();
    client = new OpenAI({ apiKey: 'sk-test', baseURL: llm.baseURL, maxRetries: 0 });
  });
  afterAll(() => llm.close());
  beforeEach(() => exporter.reset());

  const bodies = (from: number) =>
    llm.requests.slice(from).map((request) => request.body as Record<string, unknown>);

  it('embeds in batches, keeps the input order and passes dimensions as floats', async () => {
    const embedder = createOpenAIEmbedder({
      client,
      model: 'text-embedding-3-small',
      dimensions: 256,
      batchSize: 2,
      tracer,
    });
    expect(embedder.model).toBe('text-embedding-3-small');
    expect(embedder.dimensions).toBe(256);
    const texts = ['alpha beta', 'gamma', 'delta epsilon', 'zeta', 'eta theta iota'];
    const before = llm.requests.length;
    const vectors = await embedder.embed(texts);

    expect(vectors).toEqual(texts.map((text) => embedText({ text, dimensions: 256 })));
    expect(bodies(before)).toEqual([
      {
        model: 'text-embedding-3-small',
        input: ['alpha beta', 'gamma'],
        encoding_format: 'float',
        dimensions: 256,
      },
      {
        model: 'text-embedding-3-small',
        input: ['delta epsilon', 'zeta'],
        encoding_format: 'float',
        dimensions: 256,
      },
      {
        model: 'text-embedding-3-small',
        input: ['eta theta iota'],
        encoding_format: 'float',
        dimensions: 256,
      },
    ]);
  });

  it('records an EMBEDDING span per request with the model name', async () => {
    const embedder = createOpenAIEmbedder({
      client,
      model: 'text-embedding-3-small',
      dimensions: 8,
      batchSize: 2,
      tracer,
    });
    await embedder.embed(['one', 'two', 'three']);
    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(2);
    for (const span of spans) {
      expect(span.name).toBe('llm.embed');
      expect(span.attributes['openinference.span.kind']).toBe('EMBEDDING');
      expect(span.attributes['embedding.model_name']).toBe('text-embedding-3-small');
      expect(span.attributes['llm.token_count.prompt']).toEqual(expect.any(Number));
    }
    expect(spans[0]!.attributes['embedding.embeddings.1.embedding.text']).toBe('two');
  });

  it('knows the OpenAI models’ sizes and sends no dimensions then', async () => {
    const embedder = createOpenAIEmbedder({ client, model: 'text-embedding-3-small' });
    expect(embedder.dimensions).toBe(1536);
    const before = llm.requests.length;
    const [vector] = await embedder.embed(['hello world']);
    expect(vector).toHaveLength(1536);
    expect(bodies(before)[0]).not.toHaveProperty('dimensions');
    expect(() => createOpenAIEmbedder({ client, model: 'nomic-embed-text' })).toThrow(ConfigError);
  });

  it('sends an empty text as a space and returns nothing for no texts', async () => {
    const embedder = createOpenAIEmbedder({ client, model: 'm', dimensions: 4 });
    const before = llm.requests.length;
    expect(await embedder.embed([])).toEqual([]);
    expect(llm.requests.length).toBe(before);
    const [vector] = await embedder.embed(['']);
    expect(vector).toEqual(embedText({ text: ' ', dimensions: 4 }));
    expect(bodies(before)[0]?.['input']).toEqual([' ']);
  });

  it('refuses vectors of another size than configured', async () => {
    // The scripted server answers 1536 numbers when no dimensions are sent.
    const embedder = createOpenAIEmbedder({ client, model: 'text-embedding-3-large' });
    await expect(embedder.embed(['x'])).rejects.toThrow(
      /returned 1536-dimensional vectors; 3072 were expected/,
    );
    await expect(embedder.embed(['x'])).rejects.toBeInstanceOf(ConfigError);
  });

  it('puts vectors in input order when the server lists them out of order', async () => {
    // A server that answers each text's length as a one-number vector, listed in reverse order.
    const server = createHttpServer((request, response) => {
      let raw = '';
      request.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      request.on('end', () => {
        const { input } = JSON.parse(raw) as { input: string[] };
        const data = input.map((text, index) => ({
          object: 'embedding',
          index,
          embedding: [text.length],
        }));
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ object: 'list', model: 'm', data: data.reverse() }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('no port');
      const reversing = new OpenAI({
        apiKey: 'x',
        baseURL: `http://127.0.0.1:${address.port}/v1`,
        maxRetries: 0,
      });
      const embedder = createOpenAIEmbedder({ client: reversing, model: 'm', dimensions: 1 });
      expect(await embedder.embed(['a', 'bb', 'ccc'])).toEqual([[1], [2], [3]]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('turns upstream failures into typed errors', async () => {
    // The scripted server rejects dimensions above 65536 with a 400.
    const tooBig = createOpenAIEmbedder({ client, model: 'm', dimensions: 70_000 });
    const error = await tooBig.embed(['x']).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).status).toBe(400);

    const offline = new OpenAI({
      apiKey: 'x',
      baseURL: `http://127.0.0.1:${await closedPort()}/v1`,
      maxRetries: 0,
    });
    await expect(
      createOpenAIEmbedder({ client: offline, model: 'm', dimensions: 4 }).embed(['x']),
    ).rejects.toBeInstanceOf(ConnectionError);

    const controller = new AbortController();
    controller.abort();
    await expect(
      createOpenAIEmbedder({ client, model: 'm', dimensions: 4 }).embed(['x'], {
        signal: controller.signal,
      }),
    ).rejects.toBeInstanceOf(AbortError);
  });
});
