import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';

/** `fetch`'s init, plus the `node:http` agent that carries the request. */
export type NodeHttpFetchInit = RequestInit & {
  /** The keep-alive pool (`http.Agent` for http:, `https.Agent` for https:). @default the global agent */
  agent?: http.Agent | undefined;
};

/** What fetch rejects with once `signal` aborted: its reason (an `AbortError` when it gave none). */
function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error
    ? reason
    : new DOMException('This operation was aborted', 'AbortError');
}

/** Statuses whose response has no body (`new Response` refuses one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

function headerRecord(headers: RequestInit['headers']): Record<string, string> {
  const record: Record<string, string> = {};
  if (headers === undefined) return record;
  if (headers instanceof Headers || Array.isArray(headers)) {
    for (const [name, value] of headers instanceof Headers ? headers.entries() : headers) {
      record[name.toLowerCase()] = value;
    }
    return record;
  }
  for (const [name, value] of Object.entries(headers as Record<string, string>)) {
    record[name.toLowerCase()] = value;
  }
  return record;
}

function responseHeaders(message: http.IncomingMessage): Headers {
  const headers = new Headers();
  const raw = message.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    headers.append(raw[index] ?? '', raw[index + 1] ?? '');
  }
  return headers;
}

/** The decoded body stream, as fetch gives it (gzip, deflate and br are undone). */
function decoded(message: http.IncomingMessage): Readable {
  const encoding = (message.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') return message.pipe(zlib.createGunzip());
  if (encoding === 'deflate') return message.pipe(zlib.createInflate());
  if (encoding === 'br') return message.pipe(zlib.createBrotliDecompress());
  return message;
}

/** A node stream as the web stream a Response carries, with back-pressure and cancel. */
function webBody(message: http.IncomingMessage, signal: AbortSignal | undefined): ReadableStream {
  const source = decoded(message);
  // Set once the stream is closed, errored or cancelled: later events from the socket are dropped.
  let done = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const fail = (cause: unknown): void => {
        if (done) return;
        done = true;
        controller.error(
          signal?.aborted === true ? abortReason(signal) : new TypeError('terminated', { cause }),
        );
      };
      source.on('data', (chunk: Buffer) => {
        if (done) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 1) <= 0) source.pause();
      });
      source.once('end', () => {
        if (done) return;
        done = true;
        controller.close();
      });
      source.once('error', fail);
      if (source !== message) message.once('error', fail);
      message.once('close', () => {
        if (!message.complete) fail(new Error('The connection closed before the body ended.'));
      });
    },
    pull() {
      source.resume();
    },
    cancel() {
      done = true;
      message.destroy();
    },
  });
}

/**
 * `fetch` on `node:http`/`node:https`, for the fleet's calls to its own services: the request
 * leaves in one write (headers and a string or byte body with `content-length`) over a keep-alive
 * `agent`, and the answer is a standard `Response`. On this fleet's hot paths it costs a fraction
 * of the global fetch's CPU (docs/benchmarks-history.md, "A2A calls on `node:http`"). Outgoing
 * calls are traced by OpenTelemetry's http instrumentation, which also writes `traceparent`.
 *
 * What it does not do, and hands to the global fetch instead: bodies other than a string or bytes
 * (streams, forms, blobs). Redirects are not followed (the fleet's POSTs are never redirected); a
 * 3xx is answered as it came. Failures look like fetch's: a `TypeError('fetch failed')` whose
 * `cause` is the socket error, or the signal's reason when aborted.
 *
 * @example
 * const agent = new http.Agent({ keepAlive: true });
 * const response = await nodeHttpFetch('http://rag-agent:8083/a2a', { method: 'POST', body, agent });
 */
export function nodeHttpFetch(
  input: string | URL | Request,
  init: NodeHttpFetchInit = {},
): Promise<Response> {
  const { body, agent } = init;
  const signal = init.signal ?? undefined;
  const url = new URL(input instanceof Request ? input.url : input.toString());
  const bytes =
    typeof body === 'string' ? Buffer.from(body) : body instanceof Uint8Array ? body : undefined;
  const supported = url.protocol === 'http:' || url.protocol === 'https:';
  if (input instanceof Request || !supported || (body != null && bytes === undefined)) {
    const { agent: _unused, ...rest } = init;
    return globalThis.fetch(input, rest);
  }
  if (signal?.aborted === true) return Promise.reject(abortReason(signal));
  const headers = headerRecord(init.headers);
  if (bytes !== undefined) headers['content-length'] = String(bytes.byteLength);
  const method = (init.method ?? 'GET').toUpperCase();
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<Response>((resolve, reject) => {
    let settled = false;
    // Read at call time, not import time: OpenTelemetry's http instrumentation patches it.
    const request = transport.request({
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method,
      headers,
      ...(agent === undefined ? {} : { agent }),
      ...(signal === undefined ? {} : { signal }),
    });
    request.once('error', (error) => {
      if (settled) return;
      settled = true;
      reject(
        signal?.aborted === true
          ? abortReason(signal)
          : new TypeError('fetch failed', { cause: error }),
      );
    });
    request.once('response', (message) => {
      settled = true;
      const status = message.statusCode ?? 502;
      const nullBody = NULL_BODY_STATUSES.has(status) || method === 'HEAD';
      if (nullBody) message.resume();
      resolve(
        new Response(nullBody ? null : webBody(message, signal), {
          status,
          statusText: message.statusMessage ?? '',
          headers: responseHeaders(message),
        }),
      );
    });
    request.end(bytes);
  });
}
