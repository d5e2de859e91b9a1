import { connect, type Socket } from 'node:net';

/** One HTTP/1.1 request as bytes: what {@link rawRequest} writes, exactly. */
export interface RawRequest {
  method: string;
  /** The request target as sent (not encoded here: a fuzzed path may be malformed on purpose). */
  path: string;
  /** In order; a name may repeat (duplicate headers are part of the point). */
  headers: [string, string][];
  /** The body bytes written. */
  body?: Buffer | undefined;
  /**
   * Write only this many bytes of the body, then half-close the socket (FIN): a body that is
   * really cut off, whatever `Content-Length` or chunking promised. Undefined: the whole body.
   */
  truncateAt?: number | undefined;
  /** Send the body with `Transfer-Encoding: chunked` (in chunks of this size) instead of as is. */
  chunkSize?: number | undefined;
}

/** How the exchange ended. */
export type RawOutcome =
  /** The server answered and closed (or the body ended as framed). */
  | 'complete'
  /** `stopWhen` said enough (an SSE stream waiting for a person, say): we let go. */
  | 'stopped'
  /** The bound passed first: a hang unless the request was cut off on purpose. */
  | 'timeout'
  /** The connection was reset or closed before a complete response. */
  | 'reset';

/** What came back. */
export interface RawResponse {
  outcome: RawOutcome;
  /** Undefined when no status line arrived. */
  status: number | undefined;
  /** Lower-cased names; repeated headers keep every value. */
  headers: Record<string, string[]>;
  /** The body, de-chunked. */
  body: Buffer;
  /** Milliseconds until the outcome. */
  elapsedMs: number;
  /** The socket error, if any. */
  error?: string;
}

/** Options for {@link rawRequest}. */
export interface RawRequestOptions {
  port: number;
  host?: string;
  /** The bound on the whole exchange. */
  timeoutMs: number;
  /** Called with the body so far (de-chunked) on every read; true lets go of the response. */
  stopWhen?: (body: Buffer, headers: Record<string, string[]>) => boolean;
}

/** The exact bytes of a request head. Header values are written as latin1 bytes, unvalidated. */
export function encodeHead(request: RawRequest): Buffer {
  const lines = [`${request.method} ${request.path} HTTP/1.1`];
  for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
}

function chunked(body: Buffer, size: number): Buffer {
  const pieces: Buffer[] = [];
  for (let at = 0; at < body.length; at += size) {
    const piece = body.subarray(at, at + size);
    pieces.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
  }
  pieces.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(pieces);
}

interface Parsed {
  status: number | undefined;
  headers: Record<string, string[]>;
  body: Buffer;
  /** The body ended as framed (Content-Length reached, last chunk seen). */
  framedEnd: boolean;
}

function decodeChunked(data: Buffer): { body: Buffer; done: boolean } {
  const pieces: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd === -1) return { body: Buffer.concat(pieces), done: false };
    const size = Number.parseInt(data.subarray(at, lineEnd).toString('latin1').split(';')[0]!, 16);
    if (!Number.isFinite(size)) return { body: Buffer.concat(pieces), done: false };
    if (size === 0) return { body: Buffer.concat(pieces), done: true };
    const start = lineEnd + 2;
    pieces.push(data.subarray(start, Math.min(start + size, data.length)));
    if (start + size + 2 > data.length) return { body: Buffer.concat(pieces), done: false };
    at = start + size + 2;
  }
}

/** Parses what arrived so far; tolerant of a response cut off anywhere. */
export function parseResponse(data: Buffer): Parsed {
  // Interim answers (`100 Continue` to `Expect: 100-continue`) come first: skip them.
  while (/^HTTP\/1\.[01] 1\d\d /.test(data.subarray(0, 16).toString('latin1'))) {
    const end = data.indexOf('\r\n\r\n');
    if (end === -1) break;
    data = data.subarray(end + 4);
  }
  const headEnd = data.indexOf('\r\n\r\n');
  if (headEnd === -1)
    return { status: undefined, headers: {}, body: Buffer.alloc(0), framedEnd: false };
  const [statusLine = '', ...headerLines] = data
    .subarray(0, headEnd)
    .toString('latin1')
    .split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1];
  const headers: Record<string, string[]> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon === -1) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    (headers[name] ??= []).push(line.slice(colon + 1).trim());
  }
  const rest = data.subarray(headEnd + 4);
  if (headers['transfer-encoding']?.some((value) => /chunked/i.test(value))) {
    const { body, done } = decodeChunked(rest);
    return {
      status: status === undefined ? undefined : Number(status),
      headers,
      body,
      framedEnd: done,
    };
  }
  const length = headers['content-length']?.[0];
  if (length !== undefined) {
    const size = Number(length);
    return {
      status: status === undefined ? undefined : Number(status),
      headers,
      body: rest.subarray(0, size),
      framedEnd: rest.length >= size,
    };
  }
  return {
    status: status === undefined ? undefined : Number(status),
    headers,
    body: rest,
    framedEnd: false,
  };
}

/**
 * Sends one request over a fresh TCP connection (`Connection: close` is the caller's to add) and
 * reads the response until the server closes, the body ends as framed, `stopWhen` holds or the
 * bound passes. Never throws: every way it can end is an outcome.
 */
export function rawRequest(request: RawRequest, options: RawRequestOptions): Promise<RawResponse> {
  const { port, host = '127.0.0.1', timeoutMs, stopWhen } = options;
  const begin = Date.now();
  return new Promise((resolve) => {
    const received: Buffer[] = [];
    let finished = false;
    let socketError: string | undefined;
    const socket: Socket = connect({ port, host, allowHalfOpen: true });
    const finish = (outcome: RawOutcome): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      socket.destroy();
      const parsed = parseResponse(Buffer.concat(received));
      resolve({
        outcome: outcome === 'reset' && parsed.framedEnd ? 'complete' : outcome,
        status: parsed.status,
        headers: parsed.headers,
        body: parsed.body,
        elapsedMs: Date.now() - begin,
        ...(socketError === undefined ? {} : { error: socketError }),
      });
    };
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      const parsed = parseResponse(Buffer.concat(received));
      if (parsed.status === undefined) return;
      if (parsed.framedEnd) finish('complete');
      else if (stopWhen?.(parsed.body, parsed.headers)) finish('stopped');
    });
    const ended = (): void => {
      const cutOff = socketError !== undefined && !parseResponse(Buffer.concat(received)).framedEnd;
      finish(received.length === 0 || cutOff ? 'reset' : 'complete');
    };
    socket.on('end', ended);
    socket.on('close', ended);
    socket.on('error', (error: NodeJS.ErrnoException) => {
      socketError = error.code ?? error.message;
      // A write can fail (EPIPE) after the server already answered and closed: keep reading what
      // arrived; 'close' follows.
    });
    socket.once('connect', () => {
      const body = request.body ?? Buffer.alloc(0);
      const framed = request.chunkSize === undefined ? body : chunked(body, request.chunkSize);
      const bytes = Buffer.concat([encodeHead(request), framed]);
      const headLength = bytes.length - framed.length;
      if (request.truncateAt === undefined) {
        socket.write(bytes);
        return;
      }
      socket.end(bytes.subarray(0, headLength + Math.min(request.truncateAt, framed.length)));
    });
  });
}
