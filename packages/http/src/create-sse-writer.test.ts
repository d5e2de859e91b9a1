import { afterEach, describe, expect, it } from '@jest/globals';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NotFoundError } from '@fleet/errors';
import { createSseWriter } from './create-sse-writer';
import { assignRequestId } from './request-id';

const servers: http.Server[] = [];

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise((resolve) => {
          server.closeAllConnections();
          server.close(resolve);
        }),
    ),
  );
});

async function serve(
  handler: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>,
): Promise<string> {
  const server = http.createServer((req, res) => void handler(req, res));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const tick = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('createSseWriter', () => {
  it('sends the SSE headers with the extra ones, then one-line data and event frames, then ends', async () => {
    const url = await serve((_req, res) => {
      const sse = createSseWriter(res);
      sse.open({ headers: { 'x-routing-mode': 'orchestration' } });
      sse.data(JSON.stringify({ n: 1, text: 'two\nlines' }));
      sse.data('first\nsecond');
      sse.event('progress', '{"step":1}');
      sse.data('[DONE]');
      sse.end();
      sse.end();
    });
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    expect(response.headers.get('x-routing-mode')).toBe('orchestration');
    expect(await response.text()).toBe(
      'data: {"n":1,"text":"two\\nlines"}\n\n' +
        'data: first\ndata: second\n\n' +
        'event: progress\ndata: {"step":1}\n\n' +
        'data: [DONE]\n\n',
    );
  });

  it('sends the frames of one event-loop turn in one socket write, and later frames at once', async () => {
    const corkedAfter: number[] = [];
    const url = await serve(async (_req, res) => {
      const sse = createSseWriter(res);
      sse.open();
      sse.data('one');
      sse.data('two');
      corkedAfter.push(res.socket?.writableCorked ?? -1);
      await new Promise((resolve) => setImmediate(resolve));
      corkedAfter.push(res.socket?.writableCorked ?? -1);
      await tick(5);
      sse.data('three');
      corkedAfter.push(res.socket?.writableCorked ?? -1);
      sse.end();
    });
    const response = await fetch(url);
    expect(await response.text()).toBe('data: one\n\ndata: two\n\ndata: three\n\n');
    // Held while the turn writes, released on the next one; a later frame opens a new hold.
    expect(corkedAfter).toEqual([1, 0, 1]);
  });

  it('sends the keep-alive comment while the stream is quiet, and stops it at the end', async () => {
    const url = await serve(async (_req, res) => {
      const sse = createSseWriter(res, { keepAliveMs: 10, keepAliveComment: 'keep-alive' });
      sse.open();
      await tick(60);
      sse.end();
    });
    const text = await (await fetch(url)).text();
    expect(text).toMatch(/^(: keep-alive\n\n)+$/);
  });

  it('renders a failure as an event: error frame with the fleet body by default, then ends', async () => {
    const url = await serve((req, res) => {
      assignRequestId(req, res);
      const sse = createSseWriter(res);
      sse.open();
      sse.data('{}');
      sse.fail(new NotFoundError('Session s-1 does not exist.'));
      sse.data('{"late":true}');
    });
    const text = await (await fetch(url, { headers: { 'x-request-id': 'r-7' } })).text();
    expect(text).toBe(
      'data: {}\n\nevent: error\ndata: {"error":{"code":"NOT_FOUND","message":"Session s-1 does not exist.","requestId":"r-7"}}\n\n',
    );
  });

  it('renders a failure with the renderError it was given', async () => {
    const url = await serve((_req, res) => {
      const sse = createSseWriter(res, { renderError: (error) => ({ oops: String(error) }) });
      sse.open();
      sse.fail('broken');
    });
    expect(await (await fetch(url)).text()).toBe('event: error\ndata: {"oops":"broken"}\n\n');
  });

  it('notices a client that goes away: onClose once, closed, and writes are dropped', async () => {
    let closes = 0;
    let writer: ReturnType<typeof createSseWriter> | undefined;
    const url = await serve((_req, res) => {
      writer = createSseWriter(res, { keepAliveMs: 5, onClose: () => (closes += 1) });
      writer.open();
      writer.data('{"first":true}');
    });
    const controller = new AbortController();
    const response = await fetch(url, { signal: controller.signal });
    const reader = response.body?.getReader();
    await reader?.read();
    controller.abort();
    while (writer?.closed !== true) await tick(5);
    expect(closes).toBe(1);
    expect(() => {
      writer?.data('{"after":true}');
      writer?.fail(new Error('late'));
      writer?.end();
    }).not.toThrow();
    expect(closes).toBe(1);
  });

  it('releases without ending, so the caller can answer otherwise', async () => {
    let closedSeen: boolean | undefined;
    const url = await serve((_req, res) => {
      const sse = createSseWriter(res, { keepAliveMs: 5, onClose: () => (closedSeen = true) });
      sse.release();
      res.statusCode = 404;
      res.setHeader('content-type', 'application/json');
      res.end('{"error":"no"}');
    });
    const response = await fetch(url);
    expect(response.status).toBe(404);
    expect(await response.text()).toBe('{"error":"no"}');
    expect(closedSeen).toBeUndefined();
  });

  it('passes a proxied stream through: keeps its headers, adds no keep-alive, flushes the headers on the next turn', async () => {
    let release: () => void = () => undefined;
    const url = await serve((_req, res) => {
      const sse = createSseWriter(res, { keepAliveMs: 5 });
      res.setHeader('content-type', 'text/event-stream');
      sse.open({ status: 200, passthrough: true });
      release = () => {
        res.write('data: {"upstream":1}\n\n');
        sse.end();
      };
    });
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('cache-control')).toBeNull();
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    await tick(30);
    release();
    expect(await response.text()).toBe('data: {"upstream":1}\n\n');
  });
});
