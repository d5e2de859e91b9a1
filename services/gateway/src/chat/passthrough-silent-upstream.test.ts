import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { buildGateway, TEST_KEY, type TestGateway } from '../test-support/build-gateway';
import { rawRequest } from '../test-support/raw-http';
import { serve, type Served } from '../test-support/serve';

/** How the hand-written upstream answers the next request. */
type UpstreamScript = (res: http.ServerResponse) => void;

const CHAT = { model: 'm', messages: [{ role: 'user', content: 'Hi' }] };
const TIMEOUT_MS = 300;

/**
 * An OpenAI-compatible upstream that answers each request with the script it is given: what a
 * scripted LLM cannot do (send headers, then nothing; send any headers it likes).
 */
async function startUpstream(): Promise<{
  baseURL: string;
  next: (script: UpstreamScript) => void;
  close: () => Promise<void>;
}> {
  let script: UpstreamScript = (res) => res.end('{}');
  const server = http.createServer((req, res) => {
    req.resume();
    req.once('end', () => script(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    next: (each) => {
      script = each;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('passthrough: an upstream that sends its headers, then nothing', () => {
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  let gateway: TestGateway;
  let served: Served;

  beforeAll(async () => {
    upstream = await startUpstream();
    gateway = await buildGateway({
      upstream: { unreachableUrl: upstream.baseURL },
      timeoutMs: TIMEOUT_MS,
    });
    served = await serve(gateway.app);
  });
  afterAll(async () => {
    await served.close();
    await gateway.close();
    await upstream.close();
  });

  const post = (body: object, path = '/v1/chat/completions') =>
    rawRequest(served.url, {
      path,
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('answers 504 naming LLM_TIMEOUT_MS when a JSON answer never starts, instead of closing the connection', async () => {
    upstream.next((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
    });
    const answer = await post(CHAT);
    expect(answer.status).toBe(504);
    expect(answer.json).toEqual({
      error: {
        message: expect.stringContaining('LLM_TIMEOUT_MS') as unknown,
        type: 'server_error',
        param: null,
        code: 'upstream_timeout',
      },
    });
  });

  it('answers 504 for embeddings too', async () => {
    upstream.next((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
    });
    const answer = await post({ model: 'e', input: 'x' }, '/v1/embeddings');
    expect(answer.status).toBe(504);
  });

  it('ends a stream that goes silent after its headers with an OpenAI error event naming the time-out', async () => {
    upstream.next((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'Hel' }, finish_reason: null }] })}\n\n`,
      );
    });
    const answer = await post({ ...CHAT, stream: true });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('"Hel"');
    expect(answer.text).not.toContain('[DONE]');
    const last = answer.text.trimEnd().split('\n\n').at(-1) ?? '';
    expect(last).toMatch(/^event: error\ndata: /);
    expect(JSON.parse(last.replace(/^event: error\ndata: /, ''))).toEqual({
      error: {
        message: expect.stringContaining('LLM_TIMEOUT_MS') as unknown,
        type: 'server_error',
        param: null,
        code: 'upstream_timeout',
      },
    });
  });
});

describe("passthrough: the upstream's hop-by-hop and CORS headers", () => {
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  let gateway: TestGateway;
  let served: Served;

  beforeAll(async () => {
    upstream = await startUpstream();
    gateway = await buildGateway({ upstream: { unreachableUrl: upstream.baseURL } });
    served = await serve(gateway.app);
  });
  afterEach(() => upstream.next((res) => res.end('{}')));
  afterAll(async () => {
    await served.close();
    await gateway.close();
    await upstream.close();
  });

  const UPSTREAM_HEADERS = {
    'content-type': 'application/json',
    'access-control-allow-origin': '*',
    'access-control-allow-credentials': 'true',
    'access-control-allow-headers': 'authorization',
    'access-control-expose-headers': 'x-request-id',
    'timing-allow-origin': '*',
    'alt-svc': 'h3=":443"; ma=86400',
    'strict-transport-security': 'max-age=31536000',
    'x-upstream-private': 'secret-hop',
    connection: 'x-upstream-private',
    'openai-processing-ms': '42',
    'x-ratelimit-remaining-requests': '99',
  };

  it.each([false, true])(
    'passes none of them to the client (stream: %s); the answer and its OpenAI headers still pass',
    async (stream) => {
      upstream.next((res) => {
        res.writeHead(200, {
          ...UPSTREAM_HEADERS,
          ...(stream ? { 'content-type': 'text/event-stream' } : {}),
        });
        res.end(stream ? 'data: {"choices":[]}\n\ndata: [DONE]\n\n' : '{"choices":[]}');
      });
      const answer = await rawRequest(served.url, {
        path: '/v1/chat/completions',
        headers: {
          authorization: `Bearer ${TEST_KEY}`,
          'content-type': 'application/json',
          origin: 'https://evil.example',
        },
        body: JSON.stringify({ ...CHAT, stream }),
      });
      expect(answer.status).toBe(200);
      for (const name of Object.keys(answer.headers)) {
        expect(name).not.toMatch(/^access-control-|^timing-allow-origin$/);
      }
      expect(answer.headers['alt-svc']).toBeUndefined();
      expect(answer.headers['strict-transport-security']).toBeUndefined();
      // Named in the upstream's Connection header: hop-by-hop (RFC 9110 §7.6.1).
      expect(answer.headers['x-upstream-private']).toBeUndefined();
      expect(answer.headers['openai-processing-ms']).toBe('42');
      expect(answer.headers['x-ratelimit-remaining-requests']).toBe('99');
    },
  );
});
