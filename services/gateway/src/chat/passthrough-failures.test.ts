import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { getFreePort } from '@fleet/testing';
import { buildGateway, TEST_KEY, type TestGateway } from '../test-support/build-gateway';
import { readText } from '../test-support/read-text';

const chat = { model: 'm', messages: [{ role: 'user', content: 'Hi' }] };

describe('passthrough failures', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await buildGateway({ bodyLimit: 1024 });
  });
  afterAll(() => gateway.close());

  it('passes an upstream 429 through with its body and retry-after', async () => {
    gateway.llm!.enqueue({
      error: {
        status: 429,
        message: 'Rate limit reached for gpt-x',
        headers: { 'retry-after': '7' },
      },
    });
    const response = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .send(chat);
    expect(response.status).toBe(429);
    expect(response.headers['retry-after']).toBe('7');
    expect(response.body.error).toMatchObject({
      message: 'Rate limit reached for gpt-x',
      type: 'rate_limit_error',
    });
  });

  it('passes an upstream 500 through with its status', async () => {
    gateway.llm!.enqueue({ error: { status: 500, message: 'The server had an error' } });
    const response = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .send(chat);
    expect(response.status).toBe(500);
    expect(response.body.error.message).toBe('The server had an error');
  });

  it('wraps a non-OpenAI upstream error body in the envelope', async () => {
    gateway.llm!.enqueue({ error: { status: 503, body: '<html>Service Unavailable</html>' } });
    const response = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .send(chat);
    expect(response.status).toBe(503);
    expect(response.body.error).toEqual({
      message: 'The upstream LLM answered HTTP 503.',
      type: 'server_error',
      param: null,
      code: 'upstream_error',
    });
  });

  it('ends a stream the upstream cut off with an error event, never a clean [DONE]', async () => {
    gateway.llm!.enqueue({ content: 'a b c d e f g h', cutAfterChunks: 2 });
    const response = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .send({ ...chat, stream: true })
      .buffer(true)
      .parse(readText);
    expect(response.status).toBe(200);
    const body = response.body as string;
    expect(body).not.toContain('[DONE]');
    expect(body.trimEnd()).toMatch(/event: error\ndata: .*"code":"upstream_stream_interrupted"/);
    const last = body.trimEnd().split('\n').at(-1)!;
    expect(JSON.parse(last.replace(/^data: /, ''))).toMatchObject({
      error: { type: 'server_error', code: 'upstream_stream_interrupted' },
    });
  });

  it('resets the connection when a non-streaming body is cut off', async () => {
    gateway.llm!.enqueue({ content: 'a long answer', cutAfterChunks: 1 });
    await expect(
      request(gateway.app)
        .post('/v1/chat/completions')
        .auth(TEST_KEY, { type: 'bearer' })
        .send(chat),
    ).rejects.toThrow();
  });

  it('answers 413 when content-length is over the limit', async () => {
    const big = { ...chat, messages: [{ role: 'user', content: 'x'.repeat(2000) }] };
    const response = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .send(big);
    expect(response.status).toBe(413);
    expect(response.body.error.type).toBe('invalid_request_error');
    expect(response.body.error.message).toContain('1024 bytes');
  });

  it('answers 400 for malformed JSON', async () => {
    const response = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .set('content-type', 'application/json')
      .send('{"model": "m", "messages": [');
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('malformed_json');
  });

  it('answers 400 naming the field for an invalid request', async () => {
    const response = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .send({ model: 'm', messages: [{ role: 'wizard', content: 'hi' }] });
    expect(response.status).toBe(400);
    expect(response.body.error.param).toBe('messages[0].role');
    expect(response.body.error.message).toContain('role must be one of');
  });

  it('answers 415 for a body that is not JSON', async () => {
    const response = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .set('content-type', 'text/plain')
      .send('hello');
    expect(response.status).toBe(415);
  });
});

describe('passthrough over real sockets', () => {
  let gateway: TestGateway;
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    gateway = await buildGateway({ bodyLimit: 1024 });
    server = http.createServer(gateway.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await gateway.close();
  });

  it('aborts the upstream request when the client disconnects mid-stream', async () => {
    gateway.llm!.enqueue({ content: 'word '.repeat(200), chunkDelayMs: 20 });
    const clientRequest = http.request({
      port,
      method: 'POST',
      path: '/v1/chat/completions',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    });
    clientRequest.on('error', () => undefined);
    clientRequest.end(JSON.stringify({ ...chat, stream: true }));
    const response = await new Promise<http.IncomingMessage>((resolve) =>
      clientRequest.once('response', resolve),
    );
    await new Promise((resolve) => response.once('data', resolve));
    clientRequest.destroy();
    const aborted = await gateway.llm!.waitForAbort(5_000);
    expect(aborted.path).toBe('/v1/chat/completions');
  });

  it('answers 413 as soon as a chunked body passes the limit', async () => {
    const clientRequest = http.request({
      port,
      method: 'POST',
      path: '/v1/chat/completions',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    });
    clientRequest.on('error', () => undefined);
    const response = new Promise<http.IncomingMessage>((resolve) =>
      clientRequest.once('response', resolve),
    );
    // No content-length: the body arrives chunked and only its size tells.
    clientRequest.write('{"model":"m","messages":[{"role":"user","content":"');
    clientRequest.write('x'.repeat(4096));
    const answer = await response;
    expect(answer.statusCode).toBe(413);
    clientRequest.destroy();
  });
});

describe('passthrough without a usable upstream', () => {
  let gateway: TestGateway | undefined;
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });

  it('answers 503 in offline mode, saying how to configure an upstream', async () => {
    gateway = await buildGateway({ upstream: 'offline' });
    const response = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .send(chat);
    expect(response.status).toBe(503);
    expect(response.body.error.type).toBe('server_error');
    expect(response.body.error.message).toContain('OPENAI_BASE_URL');
  });

  it('answers 502 naming the upstream when nothing listens there', async () => {
    const port = await getFreePort();
    gateway = await buildGateway({ upstream: { unreachableUrl: `http://127.0.0.1:${port}/v1` } });
    const response = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .send(chat);
    expect(response.status).toBe(502);
    expect(response.body.error.message).toBe(
      `Could not reach the upstream LLM at http://127.0.0.1:${port}/v1: ECONNREFUSED.`,
    );
  });

  it('answers 504 when the upstream says nothing for the timeout', async () => {
    gateway = await buildGateway({ upstream: { replies: [{ hang: true }] }, timeoutMs: 200 });
    const response = await request(gateway.app)
      .post('/v1/chat/completions')
      .auth(TEST_KEY, { type: 'bearer' })
      .send(chat);
    expect(response.status).toBe(504);
    expect(response.body.error.message).toContain('LLM_TIMEOUT_MS');
  });
});
