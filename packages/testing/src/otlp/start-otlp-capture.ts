import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { gunzip, inflate } from 'node:zlib';
import { readBody } from '../internal/read-body';
import { listen } from '../internal/listen';
import { trackSockets } from '../internal/track-sockets';
import { Waiters } from '../internal/waiters';
import type { CapturedSpan } from './captured-span';
import { decodeOtlpJson } from './decode-otlp-json';
import { decodeOtlpProtobuf } from './decode-otlp-protobuf';

const gunzipAsync = promisify(gunzip);
const inflateAsync = promisify(inflate);

/** Options for {@link startOtlpCapture}. */
export interface OtlpCaptureOptions {
  /** @default 0 (a free port) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
}

/** One export request the capture accepted. */
export interface CapturedExport {
  /** `application/json` or `application/x-protobuf` */
  contentType: string;
  /** The `content-encoding` header (`gzip`, `deflate`), when sent. */
  contentEncoding?: string;
  /** How many spans the request carried. */
  spanCount: number;
}

/** A running OTLP/HTTP trace receiver. */
export interface OtlpCapture {
  /** The base URL (`http://127.0.0.1:PORT`), for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  url: string;
  /** `url + '/v1/traces'`, for an exporter's `url` option or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`. */
  tracesUrl: string;
  /** Every span received, in arrival order. */
  spans: CapturedSpan[];
  /** The `content-type` of every export request accepted, in arrival order. */
  contentTypes: string[];
  /** Every export request accepted, in arrival order. */
  exports: CapturedExport[];
  /**
   * Resolves with all spans once `predicate(spans)` holds; rejects after `timeoutMs` listing the
   * span names received so far. @default timeoutMs 5000
   */
  waitForSpans(
    predicate: (spans: CapturedSpan[]) => boolean,
    timeoutMs?: number,
  ): Promise<CapturedSpan[]>;
  /** Forgets the spans and exports received so far. */
  clear(): void;
  close(): Promise<void>;
}

function reply(options: {
  response: ServerResponse;
  status: number;
  contentType: string;
  body: string;
}): void {
  const { response, status, contentType, body } = options;
  response.writeHead(status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}

async function decompress(body: Buffer, encoding: string | undefined): Promise<Buffer> {
  if (encoding === 'gzip') return gunzipAsync(body);
  if (encoding === 'deflate') return inflateAsync(body);
  return body;
}

/**
 * Starts an OTLP/HTTP trace receiver for tests: `POST /v1/traces` with OTLP/JSON
 * (`application/json`) or OTLP/protobuf (`application/x-protobuf`), gzip or not. It answers 200
 * (`{}` for JSON, an empty body for protobuf), 400 for a body it cannot decode, 415 for other
 * content types and 404 for other paths (so metrics and logs exporters fail loudly).
 *
 * @example
 * const otlp = await startOtlpCapture();
 * // start services with OTEL_EXPORTER_OTLP_ENDPOINT=otlp.url, make a request, then:
 * const spans = await otlp.waitForSpans((all) => all.some((span) => span.name === 'gateway.request'));
 */
export async function startOtlpCapture({
  port = 0,
  host = '127.0.0.1',
}: OtlpCaptureOptions = {}): Promise<OtlpCapture> {
  const spans: CapturedSpan[] = [];
  const contentTypes: string[] = [];
  const exports: CapturedExport[] = [];
  const waiters = new Waiters();

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '/').split('?')[0];
    const body = await readBody(request);
    if (body === undefined) return;
    if (path !== '/v1/traces' || request.method !== 'POST') {
      reply({
        response,
        status: 404,
        contentType: 'application/json',
        body: '{"error":"not found"}',
      });
      return;
    }
    const contentType =
      (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    const isJson = contentType === 'application/json';
    if (!isJson && contentType !== 'application/x-protobuf') {
      reply({
        response,
        status: 415,
        contentType: 'text/plain',
        body: `Unsupported content type: ${contentType}`,
      });
      return;
    }
    const contentEncoding = request.headers['content-encoding']?.toLowerCase();
    let decoded: CapturedSpan[];
    try {
      const raw = await decompress(body, contentEncoding);
      decoded = isJson ? decodeOtlpJson(raw.toString('utf8')) : decodeOtlpProtobuf(raw);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      reply({
        response,
        status: 400,
        contentType: 'text/plain',
        body: `Cannot decode the export: ${message}`,
      });
      return;
    }
    contentTypes.push(contentType);
    exports.push({
      contentType,
      ...(contentEncoding ? { contentEncoding } : {}),
      spanCount: decoded.length,
    });
    spans.push(...decoded);
    waiters.notify();
    if (isJson) reply({ response, status: 200, contentType: 'application/json', body: '{}' });
    else reply({ response, status: 200, contentType: 'application/x-protobuf', body: '' });
  }

  const server = createServer((request, response) => {
    handle(request, response).catch(() => response.destroy());
  });
  const closeServer = trackSockets(server);
  const { url } = await listen(server, { port, host });

  return {
    url,
    tracesUrl: `${url}/v1/traces`,
    spans,
    contentTypes,
    exports,
    waitForSpans(predicate, timeoutMs = 5000) {
      return waiters.waitFor({
        produce: () => (predicate(spans) ? [...spans] : undefined),
        timeoutMs,
        describe: () =>
          `span predicate not satisfied; received ${spans.length} spans: ${spans.map((span) => span.name).join(', ') || '(none)'}`,
      });
    },
    clear() {
      spans.length = 0;
      contentTypes.length = 0;
      exports.length = 0;
    },
    async close() {
      waiters.rejectAll(new Error('The OTLP capture server was closed'));
      await closeServer();
    },
  };
}
