import { describe, expect, it } from '@jest/globals';
import http from 'node:http';
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
