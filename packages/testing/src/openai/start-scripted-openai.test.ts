import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { embedText } from './embed-text';
import { type ScriptedOpenAI, startScriptedOpenAI } from './start-scripted-openai';

const user = (content: string) => [{ role: 'user' as const, content }];

describe('startScriptedOpenAI', () => {
  let llm: ScriptedOpenAI;
  let client: OpenAI;

  beforeEach(async () => {
    llm = await startScriptedOpenAI();
    client = new OpenAI({ apiKey: 'x', baseURL: llm.baseURL, maxRetries: 0 });
  });

  afterEach(async () => {
    await llm.close();
  });

  describe('chat completions', () => {
    it('answers a non-streaming request with the scripted content and records it', async () => {
      llm.enqueue({ content: 'Hello there' });
      const completion = await client.chat.completions.create({
        model: 'gpt-test',
        messages: user('Hi'),
      });
      expect(completion.object).toBe('chat.completion');
      expect(completion.id).toMatch(/^chatcmpl-/);
      expect(completion.model).toBe('gpt-test');
      expect(completion.choices[0]?.message).toMatchObject({
        role: 'assistant',
        content: 'Hello there',
      });
      expect(completion.choices[0]?.finish_reason).toBe('stop');
      expect(completion.usage?.completion_tokens).toBeGreaterThan(0);
      expect(completion.usage?.total_tokens).toBe(
        (completion.usage?.prompt_tokens ?? 0) + (completion.usage?.completion_tokens ?? 0),
      );
      expect(llm.requests).toHaveLength(1);
      expect(llm.requests[0]).toMatchObject({
        method: 'POST',
        path: '/v1/chat/completions',
        aborted: false,
        status: 200,
        body: { model: 'gpt-test', messages: [{ role: 'user', content: 'Hi' }] },
      });
      expect(llm.requests[0]?.headers.authorization).toBe('Bearer x');
    });

    it('echoes the last user message when the queue is empty, then uses respond', async () => {
      const first = await client.chat.completions.create({
        model: 'm',
        messages: [...user('one'), { role: 'assistant', content: 'ok' }, ...user('two')],
      });
      expect(first.choices[0]?.message.content).toBe('You said: two');

      await llm.close();
      llm = await startScriptedOpenAI({
        replies: [{ content: 'queued' }],
        respond: (_request, context) => ({
          content: `${context.model}:${context.lastUserMessage}`,
        }),
      });
      client = new OpenAI({ apiKey: 'x', baseURL: llm.baseURL, maxRetries: 0 });
      const answers = [];
      for (const text of ['a', 'b']) {
        const completion = await client.chat.completions.create({
          model: 'm',
          messages: user(text),
        });
        answers.push(completion.choices[0]?.message.content);
      }
      expect(answers).toEqual(['queued', 'm:b']);
    });

    it('streams content deltas, a finish chunk and a usage chunk when include_usage is set', async () => {
      llm.enqueue({
        content: 'The quick brown fox jumps',
        usage: { prompt_tokens: 7, completion_tokens: 5 },
      });
      const stream = await client.chat.completions.create({
        model: 'gpt-test',
        messages: user('Tell me'),
        stream: true,
        stream_options: { include_usage: true },
      });
      const chunks: ChatCompletionChunk[] = [];
      for await (const chunk of stream) chunks.push(chunk);

      expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
      const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
      expect(text).toBe('The quick brown fox jumps');
      expect(chunks.filter((chunk) => chunk.choices[0]?.delta.content).length).toBeGreaterThan(1);
      const last = chunks.at(-1);
      expect(last?.choices).toEqual([]);
      expect(last?.usage).toMatchObject({
        prompt_tokens: 7,
        completion_tokens: 5,
        total_tokens: 12,
      });
      expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
      expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
      expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
      expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    });

    it('sends the exact SSE framing with chunked encoding and [DONE]', async () => {
      llm.enqueue({ content: 'abcdef', chunkSize: 2 });
      const response = await fetch(`${llm.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: user('x'), stream: true }),
      });
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(response.headers.get('transfer-encoding')).toBe('chunked');
      const body = await response.text();
      const frames = body.split('\n\n').filter(Boolean);
      expect(frames.every((frame) => frame.startsWith('data: '))).toBe(true);
      expect(frames.at(-1)).toBe('data: [DONE]');
      const chunks = frames
        .slice(0, -1)
        .map((frame) => JSON.parse(frame.slice(6)) as ChatCompletionChunk);
      expect(chunks.map((chunk) => chunk.choices[0]?.delta.content)).toEqual([
        '',
        'ab',
        'cd',
        'ef',
        undefined,
      ]);
      expect(chunks.every((chunk) => !('usage' in chunk))).toBe(true);
      expect(chunks.at(-1)?.choices[0]).toEqual({
        index: 0,
        delta: {},
        logprobs: null,
        finish_reason: 'stop',
      });
    });

    it('returns tool calls in a non-streaming response', async () => {
      llm.enqueue({
        toolCalls: [
          { id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } },
          { name: 'get_time', arguments: '{"zone":"CET"}' },
        ],
      });
      const completion = await client.chat.completions.create({
        model: 'm',
        messages: user('weather?'),
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: {} } }],
      });
      const choice = completion.choices[0];
      expect(choice?.finish_reason).toBe('tool_calls');
      expect(choice?.message.content).toBeNull();
      expect(choice?.message.tool_calls).toEqual([
        {
          id: 'call_1',
          type: 'function',
          function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
        },
        {
          id: expect.stringMatching(/^call_/),
          type: 'function',
          function: { name: 'get_time', arguments: '{"zone":"CET"}' },
        },
      ]);
    });

    it('streams tool calls that the SDK stream helper reassembles', async () => {
      const args = { query: 'latest news about the A2A protocol', limit: 5 };
      llm.enqueue({
        content: 'Let me look.',
        toolCalls: [
          { id: 'call_a', name: 'web_search', arguments: args },
          { id: 'call_b', name: 'fetch_page', arguments: { url: 'https://example.com' } },
        ],
        chunkSize: 4,
      });
      const stream = client.chat.completions.stream({
        model: 'm',
        messages: user('news?'),
        tools: [{ type: 'function', function: { name: 'web_search', parameters: {} } }],
      });
      const final = await stream.finalChatCompletion();
      const message = final.choices[0]?.message;
      expect(message?.content).toBe('Let me look.');
      expect(final.choices[0]?.finish_reason).toBe('tool_calls');
      expect(message?.tool_calls?.map((call) => call.id)).toEqual(['call_a', 'call_b']);
      const [search, fetchPage] = message?.tool_calls ?? [];
      expect(search?.type === 'function' && search.function.name).toBe('web_search');
      expect(search?.type === 'function' && JSON.parse(search.function.arguments)).toEqual(args);
      expect(fetchPage?.type === 'function' && JSON.parse(fetchPage.function.arguments)).toEqual({
        url: 'https://example.com',
      });
    });

    it('answers JSON mode with a JSON object, and json_schema with a conforming value', async () => {
      const objectMode = await client.chat.completions.create({
        model: 'm',
        messages: user('give json'),
        response_format: { type: 'json_object' },
      });
      expect(JSON.parse(objectMode.choices[0]?.message.content ?? '')).toEqual({
        echo: 'give json',
      });

      const schemaMode = await client.chat.completions.create({
        model: 'm',
        messages: user('plan'),
        response_format: {
          type: 'json_schema',
          json_schema: {
            name: 'plan',
            schema: {
              type: 'object',
              properties: {
                rationale: { type: 'string' },
                confidence: { type: 'number' },
                kind: { type: 'string', enum: ['dag', 'single'] },
                nodes: { type: 'array', items: { type: 'string' } },
                extra: { anyOf: [{ type: 'null' }, { $ref: '#/$defs/extra' }] },
              },
              $defs: { extra: { type: 'object', properties: { ok: { type: 'boolean' } } } },
            },
          },
        },
      });
      expect(JSON.parse(schemaMode.choices[0]?.message.content ?? '')).toEqual({
        rationale: 'plan',
        confidence: 0,
        kind: 'dag',
        nodes: [],
        extra: { ok: false },
      });

      llm.enqueue({ json: { answer: 42 } });
      const scripted = await client.chat.completions.create({
        model: 'm',
        messages: user('x'),
        response_format: { type: 'json_object' },
      });
      expect(JSON.parse(scripted.choices[0]?.message.content ?? '')).toEqual({ answer: 42 });
    });

    it('answers structured output requests so the SDK parse helper validates them', async () => {
      const planSchema = z.object({
        nodes: z.array(z.object({ id: z.string(), agent: z.enum(['rag', 'web']) })).min(1),
        confidence: z.number().min(0).max(1),
        note: z.string().nullable(),
      });
      const result = await client.chat.completions.parse({
        model: 'm',
        messages: user('plan it'),
        response_format: zodResponseFormat(planSchema, 'plan'),
      });
      expect(result.choices[0]?.message.parsed).toEqual({
        nodes: [{ id: 'plan it', agent: 'rag' }],
        confidence: 0,
        note: 'plan it',
      });
    });

    it('passes reasoning content through as reasoning_content', async () => {
      llm.enqueue({ reasoningContent: 'thinking hard', content: 'done' });
      const response = await fetch(`${llm.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: user('x') }),
      });
      const body = (await response.json()) as { choices: { message: Record<string, unknown> }[] };
      expect(body.choices[0]?.message).toMatchObject({
        content: 'done',
        reasoning_content: 'thinking hard',
      });
    });

    it('reuses the rendered static reply for benchmarks', async () => {
      await llm.close();
      llm = await startScriptedOpenAI({ staticReply: { content: 'fixed answer', chunkSize: 3 } });
      client = new OpenAI({ apiKey: 'x', baseURL: llm.baseURL, maxRetries: 0 });
      const results = [];
      for (let index = 0; index < 2; index++) {
        const stream = await client.chat.completions.create({
          model: 'bench',
          messages: user(`q${index}`),
          stream: true,
        });
        let text = '';
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
        results.push(text);
      }
      expect(results).toEqual(['fixed answer', 'fixed answer']);
    });

    it('accepts the paths without the /v1 prefix', async () => {
      const noPrefix = new OpenAI({ apiKey: 'x', baseURL: llm.url, maxRetries: 0 });
      const completion = await noPrefix.chat.completions.create({
        model: 'm',
        messages: user('hey'),
      });
      expect(completion.choices[0]?.message.content).toBe('You said: hey');
      const models = await noPrefix.models.list();
      expect(models.data.map((model) => model.id)).toEqual(['scripted-model']);
      expect(llm.requests.map((request) => request.path)).toEqual(['/chat/completions', '/models']);
    });
  });

  describe('errors', () => {
    it('surfaces a 429 reply as RateLimitError with its headers', async () => {
      llm.enqueue({
        error: { status: 429, message: 'slow down', headers: { 'retry-after': '7' } },
      });
      const error = await client.chat.completions
        .create({ model: 'm', messages: user('x') })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.RateLimitError);
      const rateLimit = error as InstanceType<typeof OpenAI.RateLimitError>;
      expect(rateLimit.status).toBe(429);
      expect(rateLimit.headers.get('retry-after')).toBe('7');
      expect(rateLimit.error).toEqual({
        message: 'slow down',
        type: 'rate_limit_error',
        param: null,
        code: 'rate_limit_exceeded',
      });
    });

    it('surfaces a 500 reply as InternalServerError, also for streaming requests', async () => {
      llm.enqueue({ error: { status: 500 } }, { error: { status: 503 } });
      await expect(
        client.chat.completions.create({ model: 'm', messages: user('x') }),
      ).rejects.toBeInstanceOf(OpenAI.InternalServerError);
      const error = await client.chat.completions
        .create({ model: 'm', messages: user('x'), stream: true })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.InternalServerError);
      expect((error as InstanceType<typeof OpenAI.InternalServerError>).status).toBe(503);
    });

    it('sends a custom error body as given', async () => {
      llm.enqueue({ error: { status: 502, body: '<html>Bad Gateway</html>' } });
      const response = await fetch(`${llm.baseURL}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ messages: user('x') }),
      });
      expect(response.status).toBe(502);
      expect(await response.text()).toBe('<html>Bad Gateway</html>');
    });

    it('answers malformed JSON, an invalid body and an unknown path with the OpenAI envelope', async () => {
      const malformed = await fetch(`${llm.baseURL}/chat/completions`, {
        method: 'POST',
        body: '{"model":',
      });
      expect(malformed.status).toBe(400);
      expect(await malformed.json()).toMatchObject({
        error: { type: 'invalid_request_error', param: null, code: null },
      });

      const invalid = await fetch(`${llm.baseURL}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'm' }),
      });
      expect(invalid.status).toBe(400);
      expect(await invalid.json()).toMatchObject({ error: { param: 'messages' } });

      const unknown = await fetch(`${llm.baseURL}/nope`);
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
      await expect(client.models.retrieve('missing')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
      expect(llm.requests.map((request) => request.status)).toEqual([400, 400, 404, 404]);
    });

    it('sends an error event mid-stream that the SDK throws as an APIError', async () => {
      llm.enqueue({
        content: 'one two three',
        streamError: { afterChunks: 2, message: 'overloaded' },
      });
      const stream = await client.chat.completions.create({
        model: 'm',
        messages: user('x'),
        stream: true,
      });
      const seen: string[] = [];
      const error = await (async () => {
        for await (const chunk of stream) seen.push(chunk.choices[0]?.delta.content ?? '');
      })().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect((error as Error).message).toContain('overloaded');
      expect(seen).toHaveLength(2);
    });
  });

  describe('interruptions', () => {
    it('cuts a stream after N chunks so the SDK iteration fails instead of completing', async () => {
      llm.enqueue({ content: 'a b c d e f g h', cutAfterChunks: 3 });
      const stream = await client.chat.completions.create({
        model: 'm',
        messages: user('x'),
        stream: true,
      });
      const received: ChatCompletionChunk[] = [];
      const outcome = await (async () => {
        for await (const chunk of stream) received.push(chunk);
        return 'completed';
      })().catch((caught: unknown) => caught);
      expect(outcome).not.toBe('completed');
      // undici's error comes from Node's realm, not jest's, so check its shape, not instanceof.
      expect(outcome).toMatchObject({ name: 'TypeError', message: 'terminated' });
      expect(received).toHaveLength(3);
      expect(received.some((chunk) => chunk.choices[0]?.finish_reason)).toBe(false);
      expect(llm.requests[0]?.aborted).toBe(false);
    });

    it('cuts a stream so a raw fetch body read rejects', async () => {
      llm.enqueue({ content: 'a b c d', cutAfterChunks: 2 });
      const response = await fetch(`${llm.baseURL}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'm', messages: user('x'), stream: true }),
      });
      expect(response.status).toBe(200);
      await expect(response.text()).rejects.toThrow();
    });

    it('cuts after the last frame, before [DONE], when N exceeds the frames', async () => {
      llm.enqueue({ content: 'short', cutAfterChunks: 100 });
      const response = await fetch(`${llm.baseURL}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'm', messages: user('x'), stream: true }),
      });
      const reader: ReadableStreamDefaultReader<Uint8Array> = response.body!.getReader();
      let text = '';
      const outcome = await (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return 'ended';
          text += Buffer.from(value).toString('utf8');
        }
      })().catch((caught: unknown) => caught);
      expect(outcome).toMatchObject({ message: 'terminated' });
      expect(text).toContain('"finish_reason":"stop"');
      expect(text).not.toContain('[DONE]');
    });

    it('cuts a non-streaming body short', async () => {
      llm.enqueue({ content: 'whole answer', cutAfterChunks: 0 });
      await expect(
        client.chat.completions.create({ model: 'm', messages: user('x') }),
      ).rejects.toMatchObject({ name: 'TypeError', message: 'terminated' });
    });

    it('records a client abort while the server hangs', async () => {
      llm.enqueue({ hang: true });
      const controller = new AbortController();
      const pending = client.chat.completions.create(
        { model: 'm', messages: user('wait') },
        { signal: controller.signal },
      );
      await llm.waitForRequests(1);
      controller.abort();
      await expect(pending).rejects.toBeInstanceOf(OpenAI.APIUserAbortError);
      const aborted = await llm.waitForAbort();
      expect(aborted.aborted).toBe(true);
      expect(aborted.body).toMatchObject({ messages: [{ content: 'wait' }] });
    });

    it('records a client that stops reading a slow stream', async () => {
      llm.enqueue({ content: 'one two three four five six', chunkDelayMs: 20 });
      const stream = await client.chat.completions.create({
        model: 'm',
        messages: user('x'),
        stream: true,
      });
      for await (const chunk of stream) {
        if (chunk.choices[0]?.delta.content) break;
      }
      const aborted = await llm.waitForAbort();
      expect(aborted.path).toBe('/v1/chat/completions');
      expect(aborted.status).toBe(200);
    });

    it('answers after the scripted latency', async () => {
      llm.enqueue({ content: 'late', latencyMs: 30 });
      const completion = await client.chat.completions.create({ model: 'm', messages: user('x') });
      expect(completion.choices[0]?.message.content).toBe('late');
    });
  });

  describe('responses', () => {
    it('answers a non-streaming response with the scripted content and usage', async () => {
      llm.enqueue({ content: 'Hello there', usage: { prompt_tokens: 5, completion_tokens: 2 } });
      const response = await client.responses.create({
        model: 'gpt-test',
        instructions: 'Be brief.',
        input: 'Hi',
      });
      expect(response.object).toBe('response');
      expect(response.status).toBe('completed');
      expect(response.output_text).toBe('Hello there');
      expect(response.usage).toMatchObject({ input_tokens: 5, output_tokens: 2, total_tokens: 7 });
      expect(llm.requests[0]).toMatchObject({ path: '/v1/responses', status: 200 });
    });

    it('streams the event sequence the SDK stream helper accepts, and echoes by default', async () => {
      const stream = client.responses.stream({
        model: 'gpt-test',
        input: [{ role: 'user', content: [{ type: 'input_text', text: 'ping' }] }],
      });
      const types: string[] = [];
      stream.on('event', (event) => types.push(event.type));
      const final = await stream.finalResponse();
      expect(final.output_text).toBe('You said: ping');
      expect(types[0]).toBe('response.created');
      expect(types).toContain('response.output_text.delta');
      expect(types.at(-1)).toBe('response.completed');
      expect(final.usage?.total_tokens).toBeGreaterThan(0);
    });

    it('sends an error event mid-stream and cuts streams like chat', async () => {
      llm.enqueue({ content: 'a b c', streamError: { afterChunks: 1, message: 'overloaded' } });
      const body = await (
        await fetch(`${llm.baseURL}/responses`, {
          method: 'POST',
          body: JSON.stringify({ model: 'm', input: 'x', stream: true }),
        })
      ).text();
      expect(body).toMatch(/event: error\ndata: \{"type":"error","message":"overloaded"/);
      expect(body).not.toContain('[DONE]');
      llm.enqueue({ content: 'a b c', error: { status: 429, message: 'slow down' } });
      await expect(client.responses.create({ model: 'm', input: 'x' })).rejects.toMatchObject({
        status: 429,
      });
    });
  });

  describe('embeddings', () => {
    it('returns deterministic unit vectors as floats, honouring dimensions', async () => {
      const response = await client.embeddings.create({
        model: 'text-embedding-3-small',
        input: ['red apples', 'red apples', 'green pears'],
        dimensions: 64,
        encoding_format: 'float',
      });
      expect(response.object).toBe('list');
      expect(response.model).toBe('text-embedding-3-small');
      expect(response.usage.prompt_tokens).toBeGreaterThan(0);
      const [a, b, c] = response.data.map((item) => item.embedding);
      expect(a).toHaveLength(64);
      expect(a).toEqual(b);
      expect(a).not.toEqual(c);
      const norm = Math.sqrt((a ?? []).reduce((sum, value) => sum + value * value, 0));
      expect(norm).toBeCloseTo(1, 5);
      expect(response.data.map((item) => item.index)).toEqual([0, 1, 2]);
    });

    it('decodes identically with the SDK default (base64) encoding', async () => {
      const viaBase64 = await client.embeddings.create({ model: 'e', input: 'hello world' });
      expect(llm.requests[0]?.body).toMatchObject({ encoding_format: 'base64' });
      const viaFloat = await client.embeddings.create({
        model: 'e',
        input: 'hello world',
        encoding_format: 'float',
      });
      expect(viaBase64.data[0]?.embedding).toHaveLength(1536);
      expect(viaBase64.data[0]?.embedding).toEqual(viaFloat.data[0]?.embedding);
      expect(viaFloat.data[0]?.embedding).toEqual(embedText({ text: 'hello world' }));
    });

    it('ranks texts that share words as more similar', () => {
      const cosine = (left: number[], right: number[]) =>
        left.reduce((sum, value, index) => sum + value * (right[index] ?? 0), 0);
      const query = embedText({ text: 'invoice total for March' });
      const related = embedText({ text: 'The March invoice total was 300 EUR' });
      const unrelated = embedText({ text: 'Photosynthesis in green plants' });
      expect(cosine(query, related)).toBeGreaterThan(cosine(query, unrelated));
    });
  });

  describe('models', () => {
    it('lists and retrieves the configured models', async () => {
      await llm.close();
      llm = await startScriptedOpenAI({ models: ['a-model', 'b-model'] });
      client = new OpenAI({ apiKey: 'x', baseURL: llm.baseURL, maxRetries: 0 });
      const list = await client.models.list();
      expect(list.data.map((model) => model.id)).toEqual(['a-model', 'b-model']);
      expect(list.data[0]).toMatchObject({ object: 'model', owned_by: 'scripted' });
      expect(typeof list.data[0]?.created).toBe('number');
      await expect(client.models.retrieve('b-model')).resolves.toMatchObject({ id: 'b-model' });
    });
  });

  describe('waitForRequests', () => {
    it('rejects with a message when the requests do not arrive in time', async () => {
      await expect(llm.waitForRequests(1, 50)).rejects.toThrow('expected 1 requests, got 0');
    });
  });
});
