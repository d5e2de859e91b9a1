import net from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RESULT_ARTIFACT_NAME, textPart } from '@fleet/a2a';
import { startServer, type RunningServer } from '@fleet/http';
import { buildGateway, TEST_KEY, type TestGateway } from '../test-support/build-gateway';
import {
  startOrchestratorDouble,
  type OrchestratorDouble,
} from '../test-support/orchestrator-double';
import { startRagAgentDouble } from '../test-support/rag-agent-double';
import { rawRequest, socketExchange } from '../test-support/raw-http';
import { createDocumentsClient } from '../documents';

const BODY_LIMIT = 8 * 1024 * 1024;

/**
 * The gateway's limits, as a client meets them on a server started the way `main.ts` starts it
 * (`startServer`, OpenAI error bodies, Node's 16 KiB header limit).
 */
describe('gateway limits', () => {
  let orchestrator: OrchestratorDouble;
  let gateway: TestGateway;
  let running: RunningServer;

  beforeAll(async () => {
    // The double keeps a2aRouter's default body limit (1 MiB): an internal hop smaller than the
    // gateway's, as the orchestrator had.
    orchestrator = await startOrchestratorDouble(async function* (_context, call) {
      await Promise.resolve();
      yield {
        type: 'artifact',
        artifact: { name: RESULT_ARTIFACT_NAME, parts: [textPart(`Done: ${call.text.length}`)] },
      };
    });
    gateway = await buildGateway({
      upstream: 'offline',
      bodyLimit: BODY_LIMIT,
      // Text limit out of the way: this file is about an internal hop's body limit.
      overrides: { orchestratorClient: orchestrator.client, agentTextLimit: 16 * 1000 * 1000 },
    });
    running = await startServer({
      app: gateway.app,
      port: 0,
      signals: [],
      maxHeaderSize: 16 * 1024,
      errorFormat: 'openai',
    });
  });
  afterAll(async () => {
    await running.shutdown();
    await gateway.close();
    await orchestrator.close();
  });

  const chat = (body: Buffer | string, headers: Record<string, string> = {}) =>
    rawRequest(running.url, {
      path: '/v1/chat/completions',
      headers: {
        authorization: `Bearer ${TEST_KEY}`,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'x-routing-mode': 'orchestration',
        ...headers,
      },
      body,
    });

  it('answers an orchestration request an internal hop refuses with the gateway’s own limit', async () => {
    const body = JSON.stringify({
      model: 'fleet',
      messages: [{ role: 'user', content: `Summarise: ${'x'.repeat(7 * 1000 * 1000)}` }],
    });
    const response = await chat(body);
    expect(response.status).toBe(413);
    const error = (response.json as { error: { message: string; type: string } }).error;
    expect(error.type).toBe('invalid_request_error');
    expect(error.message).toContain('8 MiB (GATEWAY_BODY_LIMIT)');
    expect(error.message).toMatch(/fewer or shorter messages/);
    expect(error.message).not.toMatch(/1 MiB|1048576/);
  });

  it('answers 431 with a small body and a clean close to a 70 KB Authorization header', async () => {
    const head =
      `GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
      `Authorization: Bearer ${'k'.repeat(70 * 1024)}\r\n\r\n`;
    const exchange = await socketExchange(running.port, head);
    expect(exchange.error?.code).toBeUndefined();
    expect(exchange.ending).toBe('end');
    const [statusLine, ...rest] = exchange.received.split('\r\n');
    expect(statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(rest).toContain('Connection: close');
    const body = JSON.parse(exchange.received.slice(exchange.received.indexOf('\r\n\r\n') + 4));
    expect(body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'headers_too_large',
    });
    expect(body.error.message).toContain('16 KiB');
    expect(exchange.received.length).toBeLessThan(1024);
    // The server goes on serving.
    const models = await rawRequest(running.url, {
      method: 'GET',
      path: '/v1/models',
      headers: { authorization: `Bearer ${TEST_KEY}` },
    });
    expect(models.status).toBe(200);
  });

  it('refuses compressed request bodies with 415 at once, without inflating them', async () => {
    // 16 MiB of zeros compress to about 16 KiB: inflated, twice the body limit.
    const bomb = gzipSync(Buffer.alloc(16 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(64 * 1024);
    for (const encoding of ['gzip', 'br', 'deflate']) {
      const started = Date.now();
      const response = await chat(bomb, { 'content-encoding': encoding });
      expect(response.status).toBe(415);
      const error = (response.json as { error: { message: string; type: string } }).error;
      expect(error.type).toBe('invalid_request_error');
      expect(error.message).toContain(`Content-Encoding: ${encoding}`);
      expect(Date.now() - started).toBeLessThan(2000);
    }
    const approval = await rawRequest(running.url, {
      path: '/v1/sessions/s-1/approvals/a-1',
      headers: {
        authorization: `Bearer ${TEST_KEY}`,
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      },
      body: bomb,
    });
    expect(approval.status).toBe(415);
  });

  it('answers 413 to a chunked body as soon as it passes the limit', async () => {
    // A raw socket: the server answers and closes while the client is still writing, so a write
    // may fail (EPIPE) — what counts is the answer read off the socket, and how much was sent.
    const { received, sent } = await new Promise<{ received: string; sent: number }>(
      (resolve, reject) => {
        const socket = net.connect(running.port, '127.0.0.1');
        let text = '';
        let written = 0;
        let done = false;
        const finish = (): void => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          socket.destroy();
          resolve({ received: text, sent: written });
        };
        const timer = setTimeout(() => {
          socket.destroy();
          reject(new Error('no answer within 20 s'));
        }, 20_000);
        socket.on('data', (data: Buffer) => {
          text += data.toString('utf8');
          if (text.includes('\r\n\r\n')) finish();
        });
        socket.on('error', () => undefined); // EPIPE / ECONNRESET once the server has answered
        socket.on('close', finish);
        const frame = (data: Buffer | string): string | Buffer =>
          Buffer.concat([
            Buffer.from(`${Buffer.byteLength(data).toString(16)}\r\n`),
            Buffer.from(data),
            Buffer.from('\r\n'),
          ]);
        socket.write(
          `POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TEST_KEY}\r\n` +
            'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
        );
        socket.write(frame('{"model":"fleet","messages":[{"role":"user","content":"'));
        const pump = (): void => {
          while (!done && written < 64 * 1024 * 1024) {
            const chunk = Buffer.alloc(256 * 1024, 'x');
            written += chunk.length;
            if (!socket.write(frame(chunk))) {
              socket.once('drain', pump);
              return;
            }
          }
        };
        pump();
      },
    );
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    expect(sent).toBeLessThan(64 * 1024 * 1024);
  });

  it('answers an upload the RAG agent refuses as too large with the gateway’s upload limit', async () => {
    // The double takes A2A bodies up to 8 MiB: a 7 MiB file, base64-encoded, is more.
    const agent = await startRagAgentDouble();
    const documents = await buildGateway({
      upstream: 'offline',
      overrides: {
        documents: createDocumentsClient({ client: agent.client, agentUrl: agent.url }),
        uploadLimit: 16 * 1024 * 1024,
      },
    });
    try {
      const boundary = 'limits-boundary';
      const body = Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n`,
        ),
        Buffer.alloc(7 * 1024 * 1024, 'a'),
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const served = await startServer({ app: documents.app, port: 0, signals: [] });
      try {
        const response = await rawRequest(served.url, {
          path: '/v1/documents',
          headers: {
            authorization: `Bearer ${TEST_KEY}`,
            'content-type': `multipart/form-data; boundary=${boundary}`,
            'content-length': String(body.length),
          },
          body,
        });
        expect(response.status).toBe(413);
        const error = (response.json as { error: { message: string } }).error;
        expect(error.message).toContain('16 MiB (GATEWAY_UPLOAD_LIMIT)');
        expect(error.message).not.toMatch(/8 MiB|bytes; the limit/);
      } finally {
        await served.shutdown();
      }
    } finally {
      await documents.close();
      await agent.close();
    }
  });
});
