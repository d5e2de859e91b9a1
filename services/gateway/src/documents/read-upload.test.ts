import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildGateway, TEST_KEY, type TestGateway } from '../test-support/build-gateway';
import { startRagAgentDouble, type RagAgentDouble } from '../test-support/rag-agent-double';
import { rawRequest, type RawResponse } from '../test-support/raw-http';
import { serve, type Served } from '../test-support/serve';
import { createDocumentsClient } from './documents-client';

const BOUNDARY = 'fleet-boundary-7f3a';
const UPLOAD_LIMIT = 4096;

/** One multipart part: headers and content, without the closing boundary. */
function part(disposition: string, content: string, contentType = 'text/plain'): string {
  return `--${BOUNDARY}\r\nContent-Disposition: form-data; ${disposition}\r\nContent-Type: ${contentType}\r\n\r\n${content}\r\n`;
}
const closing = `--${BOUNDARY}--\r\n`;

function multipartHeaders(body: Buffer | string): Record<string, string> {
  return {
    authorization: `Bearer ${TEST_KEY}`,
    'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
    'content-length': String(Buffer.byteLength(body)),
  };
}

interface ErrorEnvelope {
  error: { message: string; type: string; param: string | null; code: string | null };
}

function errorOf(response: RawResponse): ErrorEnvelope['error'] {
  return (response.json as ErrorEnvelope).error;
}

describe('POST /v1/documents with bodies that are not well-formed (raw HTTP)', () => {
  let agent: RagAgentDouble;
  let gateway: TestGateway;
  let served: Served;

  beforeAll(async () => {
    agent = await startRagAgentDouble();
    gateway = await buildGateway({
      upstream: 'offline',
      overrides: {
        documents: createDocumentsClient({ client: agent.client, agentUrl: agent.url }),
        uploadLimit: UPLOAD_LIMIT,
      },
    });
    served = await serve(gateway.app);
  });
  afterAll(async () => {
    await served.close();
    await gateway.close();
    await agent.close();
  });

  const post = (body: Buffer | string, headers = multipartHeaders(body)) =>
    rawRequest(served.url, { path: '/v1/documents', headers, body });

  /** The gateway still answers: a list, then a real upload. */
  async function expectStillServing(): Promise<void> {
    const list = await rawRequest(served.url, {
      method: 'GET',
      path: '/v1/documents',
      headers: { authorization: `Bearer ${TEST_KEY}` },
    });
    expect(list.status).toBe(200);
    const body = part('name="file"; filename="ok.txt"', `still here ${Date.now()}`) + closing;
    const upload = await post(body);
    expect(upload.status).toBe(201);
  }

  it('answers 400 to a body cut off before its closing boundary, and keeps serving', async () => {
    // The file part starts, its content never ends: busboy fails the file stream mid-file.
    const truncated = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="cut.txt"\r\nContent-Type: text/plain\r\n\r\nhalf a docu`;
    const response = await post(truncated);
    expect(response.status).toBe(400);
    expect(errorOf(response)).toMatchObject({ type: 'invalid_request_error' });
    expect(errorOf(response).message).toMatch(/multipart body cannot be read/i);
    await expectStillServing();
  });

  it('answers 400 when the cut falls in an ignored file part or after a complete file', async () => {
    const inIgnored =
      part('name="purpose"', 'assistants') +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="other"; filename="x.txt"\r\n\r\nabc`;
    const first = await post(inIgnored);
    expect(first.status).toBe(400);
    expect(errorOf(first).type).toBe('invalid_request_error');

    const afterFile = part('name="file"; filename="a.txt"', 'complete file') + `--${BOUNDARY}\r\n`;
    const second = await post(afterFile);
    expect(second.status).toBe(400);
    expect(errorOf(second).type).toBe('invalid_request_error');
    await expectStillServing();
  });

  it('refuses a `file` field sent twice, also with another part between them', async () => {
    const twice =
      part('name="file"; filename="a.txt"', 'first') +
      part('name="purpose"', 'between') +
      part('name="file"; filename="b.txt"', 'second') +
      closing;
    const response = await post(twice);
    expect(response.status).toBe(400);
    expect(errorOf(response)).toMatchObject({ type: 'invalid_request_error', param: 'file' });
    expect(errorOf(response).message).toMatch(/one file per upload/);

    // The second `file` arrives while the first is still being read (no CRLF between them).
    const interleaved =
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\n${'a'.repeat(2000)}\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="b.txt"\r\n\r\n${'b'.repeat(2000)}`;
    const cut = await post(interleaved);
    expect(cut.status).toBe(400);
    expect(errorOf(cut).type).toBe('invalid_request_error');
    await expectStillServing();
  });

  it('refuses a `file` part without a file name', async () => {
    const body =
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename=""\r\nContent-Type: text/plain\r\n\r\nno name\r\n` +
      closing;
    const response = await post(body);
    expect(response.status).toBe(400);
    expect(errorOf(response)).toMatchObject({ type: 'invalid_request_error', param: 'file' });
    await expectStillServing();
  });

  it('answers 413 while a chunked body is still streaming past the limit', async () => {
    let sent = 0;
    let answered = false;
    const response = await rawRequest(served.url, {
      path: '/v1/documents',
      headers: {
        authorization: `Bearer ${TEST_KEY}`,
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        'transfer-encoding': 'chunked',
      },
      body: async (req) => {
        req.once('response', () => (answered = true));
        req.write(
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\n\r\n`,
        );
        // Up to 4 MiB, 16 KiB at a time, until the answer arrives.
        while (!answered && sent < 4 * 1024 * 1024) {
          const chunk = Buffer.alloc(16 * 1024, 'x');
          sent += chunk.length;
          if (!req.write(chunk)) await new Promise((resolve) => req.once('drain', resolve));
          await new Promise((resolve) => setImmediate(resolve));
        }
      },
    });
    expect(response.status).toBe(413);
    expect(errorOf(response).type).toBe('invalid_request_error');
    expect(errorOf(response).message).toContain('4 KiB (GATEWAY_UPLOAD_LIMIT)');
    expect(sent).toBeLessThan(4 * 1024 * 1024);
    await expectStillServing();
  });

  it('refuses a compressed body with 415 instead of reading or inflating it', async () => {
    const body = gzipSync(part('name="file"; filename="a.txt"', 'zipped') + closing);
    const response = await post(body, { ...multipartHeaders(body), 'content-encoding': 'gzip' });
    expect(response.status).toBe(415);
    expect(errorOf(response).type).toBe('invalid_request_error');
    expect(errorOf(response).message).toMatch(/Content-Encoding: gzip/);
  });
});
