import { afterEach, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, LookupFunction } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import zlib from 'node:zlib';
import { nodeHttpFetch } from './node-http-fetch';

let server: http.Server | undefined;
const agent = new http.Agent({ keepAlive: true });

async function serve(handler: http.RequestListener): Promise<string> {
  server = http.createServer(handler);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  agent.destroy();
  const running = server;
  server = undefined;
  if (running === undefined) return;
  running.closeAllConnections();
  await new Promise((resolve) => running.close(resolve));
});

describe('nodeHttpFetch', () => {
  it('sends the body with its length and answers a standard Response', async () => {
    let seen: Record<string, string | undefined> = {};
    const url = await serve((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen = {
          method: req.method,
          length: req.headers['content-length'],
          type: req.headers['content-type'],
          body,
        };
        res.writeHead(201, { 'x-answer': 'yes', 'content-type': 'application/json' });
        res.end('{"ok":true}');
      });
    });
    const response = await nodeHttpFetch(`${url}/a2a?x=1`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"é":1}',
      agent,
    });
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(201);
    expect(response.ok).toBe(true);
    expect(response.headers.get('x-answer')).toBe('yes');
    expect(await response.json()).toEqual({ ok: true });
    expect(seen).toEqual({
      method: 'POST',
      length: String(Buffer.byteLength('{"é":1}')),
      type: 'application/json',
      body: '{"é":1}',
    });
  });

  it('streams the body: the first bytes are readable before the server ends', async () => {
    let finish: (() => void) | undefined;
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
      finish = () => res.end('data: two\n\n');
    });
    const response = await nodeHttpFetch(url, { agent });
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(Buffer.from(first.value as Uint8Array).toString()).toBe('data: one\n\n');
    finish?.();
    const second = await reader.read();
    expect(Buffer.from(second.value as Uint8Array).toString()).toBe('data: two\n\n');
    expect((await reader.read()).done).toBe(true);
  });

  it('ends a body read with the signal reason when the caller aborts', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
    });
    const controller = new AbortController();
    const response = await nodeHttpFetch(url, { agent, signal: controller.signal });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('fails like fetch when the connection is refused', async () => {
    const url = await serve(() => undefined);
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
    const failure = await nodeHttpFetch(url, { agent }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect(failure).toMatchObject({ message: 'fetch failed', cause: { code: 'ECONNREFUSED' } });
  });

  it('fails a body whose connection closes before it ended', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('partial');
      setTimeout(() => res.socket?.destroy(), 10);
    });
    const response = await nodeHttpFetch(url, { agent });
    await expect(response.text()).rejects.toThrow();
  });

  it('undoes gzip, as fetch does, and gives no body for a 204', async () => {
    const url = await serve((req, res) => {
      if (req.url === '/empty') {
        res.writeHead(204);
        res.end();
        return;
      }
      res.writeHead(200, { 'content-encoding': 'gzip' });
      res.end(zlib.gzipSync('hello'));
    });
    expect(await (await nodeHttpFetch(url, { agent })).text()).toBe('hello');
    const empty = await nodeHttpFetch(`${url}/empty`, { agent });
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
  });

  it('hands bodies it does not send itself (a form) to the global fetch', async () => {
    const url = await serve((req, res) => {
      res.end(req.headers['content-type'] ?? '');
    });
    const response = await nodeHttpFetch(url, { method: 'POST', body: new URLSearchParams('a=1') });
    expect(await response.text()).toContain('application/x-www-form-urlencoded');
  });

  it('speaks TLS to a name pinned to one address: the certificate, SNI and Host are the name', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'node-http-fetch-'));
    try {
      execFileSync(
        'openssl',
        [
          ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'],
          ...['-nodes', '-days', '1', '-subj', '/CN=agent.test'],
          ...['-addext', 'subjectAltName=DNS:agent.test'],
          ...['-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')],
        ],
        { stdio: 'ignore' },
      );
      const cert = readFileSync(path.join(dir, 'cert.pem'));
      const seen: { servername?: string | false | null; host?: string | undefined } = {};
      const tlsServer = https.createServer(
        { key: readFileSync(path.join(dir, 'key.pem')), cert },
        (req, res) => {
          seen.servername = (req.socket as TLSSocket).servername;
          seen.host = req.headers.host;
          res.end('secure');
        },
      );
      await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
      const port = (tlsServer.address() as AddressInfo).port;
      // What the balanced fetch does per address: the name stays in the URL, the lookup is pinned.
      const lookup = ((
        _name: string,
        options: { all?: boolean },
        callback: (...args: unknown[]) => void,
      ) => {
        if (options.all === true) callback(null, [{ address: '127.0.0.1', family: 4 }]);
        else callback(null, '127.0.0.1', 4);
      }) as LookupFunction;
      const tlsAgent = new https.Agent({ keepAlive: true, ca: cert, lookup });
      try {
        const response = await nodeHttpFetch(`https://agent.test:${port}/a2a`, { agent: tlsAgent });
        expect(await response.text()).toBe('secure');
        expect(seen).toEqual({ servername: 'agent.test', host: `agent.test:${port}` });
      } finally {
        tlsAgent.destroy();
        tlsServer.closeAllConnections();
        await new Promise((resolve) => tlsServer.close(resolve));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
