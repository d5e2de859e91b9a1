import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { getFreePort } from '@fleet/testing';
import {
  buildGateway,
  OTHER_KEY,
  TEST_KEY,
  UPSTREAM_KEY,
  type TestGateway,
} from '../test-support/build-gateway';
import { readText } from '../test-support/read-text';

/** A Responses request with the stateful and structured fields passthrough must keep. */
const RAW_REQUEST =
  '{"model":"gpt-x",  "input":[{"role":"user","content":[{"type":"input_text","text":"Hi"}]}],' +
  '"previous_response_id":"resp_abc","store":true,"conversation":{"id":"conv_1"},' +
  '"reasoning":{"effort":"low"},"text":{"format":{"type":"json_schema","name":"x","schema":{"type":"object"}}},' +
  '"tools":[{"type":"function","name":"f","parameters":{}}],"future_param":[1,2]}';

/** The SSE events of a body: `[event name, parsed data]`. */
function responseEvents(text: string): [string, Record<string, unknown>][] {
  return text
    .split('\n\n')
    .filter((frame) => frame.includes('data: '))
    .map((frame) => {
      const name = /^event: (.*)$/m.exec(frame)?.[1] ?? '';
      const data = /^data: (.*)$/m.exec(frame)?.[1] ?? 'null';
      return [name, JSON.parse(data) as Record<string, unknown>];
    });
}

function post(gateway: TestGateway, path: string) {
  return request(gateway.app).post(path).auth(TEST_KEY, { type: 'bearer' });
}

describe('POST /v1/responses (passthrough)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    // A static reply renders once per model and stream: asking the upstream directly and through
    // the gateway gives the same bytes, so passthrough can be compared byte for byte.
    gateway = await buildGateway({ upstream: { staticReply: { content: 'one two three' } } });
  });
  beforeEach(() => {
    gateway.llm!.requests.length = 0;
  });
  afterAll(() => gateway.close());

  it('forwards the exact request bytes, stateful and structured fields included', async () => {
    const response = await post(gateway, '/v1/responses')
      .set('content-type', 'application/json')
      .send(RAW_REQUEST);
    expect(response.status).toBe(200);
    expect(response.headers['x-routing-mode']).toBe('passthrough');
    const [forwarded] = gateway.llm!.requests;
    expect(forwarded?.path).toBe('/v1/responses');
    expect(forwarded?.rawBody).toBe(RAW_REQUEST);
    expect(forwarded?.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
  });

  it("answers with the upstream's body byte for byte", async () => {
    const body = { model: 'gpt-x', input: 'Hi' };
    const direct = await fetch(`${gateway.llm!.baseURL}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const expected = await direct.text();
    const response = await post(gateway, '/v1/responses').send(body).buffer(true).parse(readText);
    expect(response.status).toBe(200);
    expect(response.body).toBe(expected);
    expect(JSON.parse(expected)).toMatchObject({
      object: 'response',
      status: 'completed',
      usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number) },
    });
  });

  it("streams the upstream's events byte for byte, ending with response.completed", async () => {
    const body = { model: 'gpt-x', input: 'Hi', stream: true };
    const direct = await fetch(`${gateway.llm!.baseURL}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const expected = await direct.text();
    const response = await post(gateway, '/v1/responses').send(body).buffer(true).parse(readText);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(response.body).toBe(expected);
    const events = responseEvents(response.body as string);
    expect(events[0]?.[0]).toBe('response.created');
    expect(events.at(-1)?.[0]).toBe('response.completed');
    expect(events.map(([, data]) => data['sequence_number'])).toEqual(events.map((_, i) => i));
  });

  it('sends requests with tools or a structured text.format through passthrough whatever the header says', async () => {
    const response = await post(gateway, '/v1/responses')
      .set('x-routing-mode', 'orchestration')
      .set('content-type', 'application/json')
      .send(RAW_REQUEST);
    expect(response.status).toBe(200);
    expect(response.headers['x-routing-mode']).toBe('passthrough');
    expect(response.headers['x-routing-reason']).toMatch(/tools/);
    const structured = await post(gateway, '/v1/responses')
      .set('x-routing-mode', 'reasoning')
      .send({ model: 'm', input: 'Hi', text: { format: { type: 'json_object' } } });
    expect(structured.headers['x-routing-mode']).toBe('passthrough');
    expect(structured.headers['x-routing-reason']).toMatch(/response_format/);
  });

  it('refuses an unknown routing mode, a missing model and a bad input with 400', async () => {
    const mode = await post(gateway, '/v1/responses')
      .set('x-routing-mode', 'sideways')
      .send({ model: 'm', input: 'Hi' });
    expect(mode.status).toBe(400);
    expect(mode.body.error.param).toBe('X-Routing-Mode');
    const model = await post(gateway, '/v1/responses').send({ input: 'Hi' });
    expect(model.status).toBe(400);
    expect(model.body.error).toMatchObject({ type: 'invalid_request_error', param: 'model' });
    const input = await post(gateway, '/v1/responses').send({ model: 'm', input: 42 });
    expect(input.status).toBe(400);
    expect(input.body.error.param).toBe('input');
    expect(gateway.llm!.requests).toHaveLength(0);
  });

  it('answers 401 without a key, in the OpenAI envelope', async () => {
    for (const path of ['/v1/responses', '/v1/embeddings']) {
      const response = await request(gateway.app).post(path).send({ model: 'm', input: 'Hi' });
      expect(response.status).toBe(401);
      expect(response.body.error.type).toBe('authentication_error');
    }
  });

  it('answers for either tenant (each key is one tenant)', async () => {
    const response = await request(gateway.app)
      .post('/v1/responses')
      .auth(OTHER_KEY, { type: 'bearer' })
      .send({ model: 'm', input: 'Hi' });
    expect(response.status).toBe(200);
  });
});

describe('POST /v1/responses and /v1/embeddings: limits and failures', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await buildGateway({ bodyLimit: 1024 });
  });
  afterAll(() => gateway.close());

  it('answers 413 naming the gateway limit for a body over it', async () => {
    for (const path of ['/v1/responses', '/v1/embeddings']) {
      const response = await post(gateway, path).send({ model: 'm', input: 'x'.repeat(2048) });
      expect(response.status).toBe(413);
      expect(response.body.error.message).toMatch(/limit is 1024 bytes/);
    }
  });

  it('answers 415 to a compressed body', async () => {
    for (const path of ['/v1/responses', '/v1/embeddings']) {
      const response = await post(gateway, path)
        .set('content-type', 'application/json')
        .set('content-encoding', 'gzip')
        .send(gzipSync(JSON.stringify({ model: 'm', input: 'Hi' })));
      expect(response.status).toBe(415);
    }
  });

  it("passes the upstream's error status, body and retry-after through", async () => {
    gateway.llm!.enqueue({
      error: { status: 429, message: 'Slow down', headers: { 'retry-after': '3' } },
    });
    const response = await post(gateway, '/v1/responses').send({ model: 'm', input: 'Hi' });
    expect(response.status).toBe(429);
    expect(response.headers['retry-after']).toBe('3');
    expect(response.body.error.message).toBe('Slow down');
  });

  it('ends a stream the upstream cut before its last event with an error event', async () => {
    gateway.llm!.enqueue({ content: 'a b c d e f', cutAfterChunks: 4 });
    const response = await post(gateway, '/v1/responses')
      .send({ model: 'm', input: 'Hi', stream: true })
      .buffer(true)
      .parse(readText);
    expect(response.status).toBe(200);
    const events = responseEvents(response.body as string);
    expect(events.at(-1)?.[0]).toBe('error');
    expect(events.at(-1)?.[1]).toMatchObject({
      error: { message: expect.stringMatching(/cut off/) },
    });
  });

  it("keeps an upstream's own error event as the stream's clean end", async () => {
    gateway.llm!.enqueue({
      content: 'a b c',
      streamError: { afterChunks: 2, message: 'overloaded' },
    });
    const response = await post(gateway, '/v1/responses')
      .send({ model: 'm', input: 'Hi', stream: true })
      .buffer(true)
      .parse(readText);
    const events = responseEvents(response.body as string);
    expect(events).toHaveLength(3);
    expect(events.at(-1)).toEqual(['error', expect.objectContaining({ message: 'overloaded' })]);
  });

  it('forwards embeddings byte for byte and answers with the upstream body', async () => {
    const raw = '{"model":"text-embedding-3-small", "input":["a","b"],"dimensions":8,"user":"u"}';
    const direct = await fetch(`${gateway.llm!.baseURL}/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: raw,
    });
    const expected = await direct.text();
    const response = await post(gateway, '/v1/embeddings')
      .set('content-type', 'application/json')
      .send(raw)
      .buffer(true)
      .parse(readText);
    expect(response.status).toBe(200);
    expect(response.body).toBe(expected);
    expect(gateway.llm!.requests.at(-1)?.rawBody).toBe(raw);
  });

  it('refuses embeddings without input with 400', async () => {
    const response = await post(gateway, '/v1/embeddings').send({ model: 'm' });
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe('input');
  });

  it('passes an upstream embeddings error through with its status', async () => {
    // The scripted server refuses dimensions below 1 with its own 400 envelope.
    const response = await post(gateway, '/v1/embeddings').send({
      model: 'm',
      input: 'x',
      dimensions: -1,
    });
    expect(response.status).toBe(400);
    expect(response.body.error.message).toMatch(/dimensions/);
  });
});

describe('POST /v1/responses and /v1/embeddings without an upstream', () => {
  it('answers 503 offline, saying how to configure an upstream', async () => {
    const gateway = await buildGateway({ upstream: 'offline' });
    try {
      for (const path of ['/v1/responses', '/v1/embeddings']) {
        const response = await post(gateway, path).send({ model: 'm', input: 'Hi' });
        expect(response.status).toBe(503);
        expect(response.body.error.message).toMatch(/OPENAI_API_KEY|OPENAI_BASE_URL/);
      }
    } finally {
      await gateway.close();
    }
  });

  it('answers 502 when the upstream is unreachable', async () => {
    const port = await getFreePort();
    const gateway = await buildGateway({
      upstream: { unreachableUrl: `http://127.0.0.1:${port}/v1` },
    });
    try {
      for (const path of ['/v1/responses', '/v1/embeddings']) {
        const response = await post(gateway, path).send({ model: 'm', input: 'Hi' });
        expect(response.status).toBe(502);
      }
    } finally {
      await gateway.close();
    }
  });

  it('answers 504 when the upstream stays silent', async () => {
    const gateway = await buildGateway({ timeoutMs: 200 });
    try {
      gateway.llm!.enqueue({ hang: true });
      const response = await post(gateway, '/v1/responses').send({ model: 'm', input: 'Hi' });
      expect(response.status).toBe(504);
    } finally {
      await gateway.close();
    }
  });
});
