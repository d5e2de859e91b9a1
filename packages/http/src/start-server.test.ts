import { describe, expect, it } from '@jest/globals';
import http from 'node:http';
import net from 'node:net';
import express from 'express';
import { healthRoutes } from './health';
import { startServer } from './start-server';

describe('startServer', () => {
  it('lets in-flight requests finish, then runs the hooks in order and stops accepting', async () => {
    const events: string[] = [];
    let release: () => void = () => undefined;
    const lifecycle = { isShuttingDown: () => false };
    const app = express();
    app.use(healthRoutes({ isShuttingDown: () => lifecycle.isShuttingDown() }));
    app.get('/slow', (_req, res) => {
      events.push('slow started');
      release = () => res.send('done');
    });
    const running = await startServer({
      app,
      port: 0,
      signals: [],
      onShutdown: [
        () => void events.push('hook 1'),
        () => Promise.resolve(void events.push('hook 2')),
      ],
    });
    lifecycle.isShuttingDown = () => running.isShuttingDown();
    const slow = fetch(`${running.url}/slow`).then((response) => response.text());
    while (!events.includes('slow started')) await new Promise((resolve) => setTimeout(resolve, 5));
    const stopping = running.shutdown('test');
    expect(running.isShuttingDown()).toBe(true);
    expect(events).toEqual(['slow started']);
    release();
    expect(await slow).toBe('done');
    await stopping;
    expect(events).toEqual(['slow started', 'hook 1', 'hook 2']);
    await expect(fetch(`${running.url}/healthz`)).rejects.toThrow();
  });
});

describe('startServer shutdown with kept-alive connections', () => {
  it('does not wait for idle keep-alive connections, nor for one whose stream the client aborted', async () => {
    const app = express();
    app.get('/ok', (_req, res) => {
      res.send('ok');
    });
    app.post('/stream', (_req, res) => {
      res.setHeader('content-type', 'text/event-stream');
      res.write('data: 1\n\n');
    });
    // A shutdown timeout far beyond jest's test timeout: waiting on any socket fails the test.
    const running = await startServer({ app, port: 0, signals: [], shutdownTimeoutMs: 600_000 });
    // A client that keeps its connections open for as long as the server lets it.
    const agent = new http.Agent({ keepAlive: true, keepAliveMsecs: 600_000 });
    const get = (path: string): Promise<http.IncomingMessage> =>
      new Promise((resolve, reject) => {
        http.get(`${running.url}${path}`, { agent }, resolve).on('error', reject);
      });
    // Two connections: a stream the client then aborts, and a request answered beside it.
    const streaming = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const request = http.request(`${running.url}/stream`, { agent, method: 'POST' }, resolve);
      request.on('error', reject);
      request.end('{"a":1}');
    });
    await new Promise((resolve) => streaming.once('data', resolve));
    const ok = await get('/ok');
    await new Promise((resolve) => ok.resume().once('end', resolve));
    streaming.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await running.shutdown('test');
    expect(running.isShuttingDown()).toBe(true);
    agent.destroy();
  });
});

describe('startServer and requests the HTTP parser refuses', () => {
  /** Writes raw bytes and reads until the server closes: how it closed, and what it sent. */
  function exchange(port: number, data: string): Promise<{ text: string; clean: boolean }> {
    return new Promise((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write(data));
      let text = '';
      let clean = false;
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('end', () => (clean = true));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve({ text, clean }));
    });
  }

  it('answers headers over maxHeaderSize with 431, a small body and a clean close', async () => {
    const app = express();
    app.get('/', (_req, res) => res.send('ok'));
    const running = await startServer({ app, port: 0, signals: [], maxHeaderSize: 8 * 1024 });
    try {
      const { text, clean } = await exchange(
        running.port,
        `GET / HTTP/1.1\r\nHost: x\r\nCookie: ${'c'.repeat(20 * 1024)}\r\n\r\n`,
      );
      expect(clean).toBe(true);
      expect(text.startsWith('HTTP/1.1 431 Request Header Fields Too Large\r\n')).toBe(true);
      expect(text).toContain('Connection: close');
      const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
      expect(body.error).toMatchObject({ code: 'HEADERS_TOO_LARGE', details: { limit: 8192 } });
      expect(body.error.message).toContain('8 KiB');
      // Under the limit, the same server answers.
      const ok = await exchange(
        running.port,
        `GET / HTTP/1.1\r\nHost: x\r\nCookie: ${'c'.repeat(4 * 1024)}\r\nConnection: close\r\n\r\n`,
      );
      expect(ok.text.startsWith('HTTP/1.1 200 OK')).toBe(true);
    } finally {
      await running.shutdown();
    }
  });

  it('answers malformed HTTP with 400', async () => {
    const running = await startServer({ app: express(), port: 0, signals: [] });
    try {
      const { text } = await exchange(running.port, 'NOT HTTP AT ALL\r\n\r\n');
      expect(text.startsWith('HTTP/1.1 400 Bad Request\r\n')).toBe(true);
      expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)).error.code).toBe('BAD_REQUEST');
    } finally {
      await running.shutdown();
    }
  });
});
