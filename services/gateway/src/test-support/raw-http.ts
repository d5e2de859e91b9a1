import http from 'node:http';
import net from 'node:net';

/** A response read off the wire, body as text. */
export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  json: unknown;
}

/** Options for {@link rawRequest}. */
export interface RawRequestOptions {
  method?: string;
  path: string;
  /** Sent exactly as given: no Content-Length is added (set it, or the body is chunked). */
  headers?: Record<string, string>;
  /** Written in order; a function is called with the request to write at its own pace. */
  body?: Buffer | string | ((req: http.ClientRequest) => Promise<void>);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * One request with `node:http`, bodies written as given (truncated, malformed, chunked…): what
 * supertest and fetch would not send. Uses a fresh connection (no agent).
 */
export function rawRequest(
  baseUrl: string,
  { method = 'POST', path, headers = {}, body }: RawRequestOptions,
): Promise<RawResponse> {
  return new Promise<RawResponse>((resolve, reject) => {
    const req = http.request(`${baseUrl}${path}`, { method, headers, agent: false });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('error', reject);
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: parseJson(text) }),
      );
    });
    if (typeof body === 'function') {
      body(req).then(
        () => req.end(),
        (error: unknown) => req.destroy(error as Error),
      );
    } else {
      req.end(body);
    }
  });
}

/** What a raw socket exchange saw: the bytes received, and how the connection ended. */
export interface SocketExchange {
  received: string;
  /** 'end': the server closed cleanly (FIN); 'error': reset or other socket error. */
  ending: 'end' | 'error';
  error?: NodeJS.ErrnoException;
}

/**
 * Writes `data` on a plain TCP connection and reads until the server closes it (or `timeoutMs`),
 * reporting whether it closed cleanly or with a reset.
 */
export function socketExchange(
  port: number,
  data: Buffer | string,
  { timeoutMs = 5000 }: { timeoutMs?: number } = {},
): Promise<SocketExchange> {
  return new Promise<SocketExchange>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    let ended = false;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`The server did not close the connection in ${timeoutMs} ms.`));
    }, timeoutMs);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('end', () => {
      ended = true;
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({ received, ending: 'error', error });
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ received, ending: ended ? 'end' : 'error' });
    });
    socket.on('connect', () => socket.write(data));
  });
}
