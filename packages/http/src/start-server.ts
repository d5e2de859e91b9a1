import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { BadRequestError, HeadersTooLargeError, type FleetError } from '@fleet/errors';
import { renderErrorBody, type ErrorFormat } from './error-middleware';
import { type HttpLogger, silentLogger } from './logger';

/** Work to do after the server stops accepting requests (close Redis, flush traces, …). */
export type ShutdownHook = () => Promise<void> | void;

/** Options for {@link startServer}. */
export interface StartServerOptions {
  /** The request handler, usually the express app from `createApp`. */
  app: RequestListener;
  port: number;
  /** @default '127.0.0.1' */
  host?: string;
  logger?: HttpLogger;
  /** Run in order once the server is closed, e.g. `() => redis.quit()`. */
  onShutdown?: ShutdownHook[];
  /** How long in-flight requests get to finish before their sockets are closed. @default 10000 */
  shutdownTimeoutMs?: number;
  /** Signals that start a graceful shutdown and then exit the process; [] in tests. */
  signals?: NodeJS.Signals[];
  /**
   * Largest request head (request line and headers) in bytes; larger ones get a 431 and the
   * connection is closed. @default 16384 (Node's default)
   */
  maxHeaderSize?: number;
  /** How the 4xx bodies of requests that never reach the app look (see {@link answerClientErrors}). @default 'fleet' */
  errorFormat?: ErrorFormat;
}

/** A listening server and its lifecycle. */
export interface RunningServer {
  server: Server;
  /** e.g. `http://127.0.0.1:8080` */
  url: string;
  port: number;
  /** True from the moment shutdown starts (so `/readyz` can answer 503). */
  isShuttingDown(): boolean;
  /** Stops accepting, lets in-flight requests finish (up to the timeout), then runs the hooks. */
  shutdown(reason?: string): Promise<void>;
}

/** Node's own default for `maxHeaderSize`. */
export const DEFAULT_MAX_HEADER_SIZE = 16 * 1024;

/** How long a refused connection may go on sending (and reading its answer) before it is closed. */
const CLIENT_ERROR_LINGER_MS = 2000;

function describeBytes(bytes: number): string {
  return bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}

/** The answer to a request the HTTP parser refused, or undefined to just close the connection. */
function clientErrorAnswer(
  error: NodeJS.ErrnoException,
  maxHeaderSize: number,
): { status: number; reason: string; error: FleetError } | undefined {
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return {
      status: 431,
      reason: 'Request Header Fields Too Large',
      error: new HeadersTooLargeError(
        `The request headers are larger than the limit of ${describeBytes(maxHeaderSize)}; send smaller headers (e.g. a shorter Authorization or fewer cookies).`,
        { details: { limit: maxHeaderSize } },
      ),
    };
  }
  // As Node itself answers a request whose head or body took longer than `requestTimeout`.
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return {
      status: 408,
      reason: 'Request Timeout',
      error: new BadRequestError('The request was not received in time.', { status: 408 }),
    };
  }
  // Other parser errors (HPE_INVALID_METHOD, HPE_INVALID_HEADER_TOKEN, …) are malformed HTTP;
  // resets and anything else get no answer.
  if (error.code?.startsWith('HPE_') === true) {
    return {
      status: 400,
      reason: 'Bad Request',
      error: new BadRequestError('The request is not valid HTTP/1.1.'),
    };
  }
  return undefined;
}

/**
 * Answers requests Node's HTTP parser refuses before the app sees them (headers over
 * `maxHeaderSize`: 431; malformed HTTP: 400) with a small body in the service's error format and
 * `Connection: close`, then half-closes the connection and lets the client finish sending for a
 * moment, so it reads the answer instead of a TCP reset. Anything else just closes the socket.
 */
function answerClientErrors(
  server: Server,
  {
    maxHeaderSize,
    format,
    logger,
  }: { maxHeaderSize: number; format: ErrorFormat; logger: HttpLogger },
): void {
  const answered = new WeakSet<Socket>();
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // The parser reports every later chunk of a refused connection again.
    if (answered.has(socket)) return;
    answered.add(socket);
    const answer = clientErrorAnswer(error, maxHeaderSize);
    // A response already under way on this connection cannot be followed by another.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (answer === undefined || !socket.writable || inFlight?.headersSent === true) {
      socket.destroy();
      return;
    }
    logger.debug({ code: error.code, status: answer.status }, 'refused a request before routing');
    const body = JSON.stringify(
      renderErrorBody(answer.error, { format, requestId: randomUUID(), exposeStack: false }),
    );
    socket.end(
      `HTTP/1.1 ${answer.status} ${answer.reason}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
    const linger = setTimeout(() => socket.destroy(), CLIENT_ERROR_LINGER_MS);
    linger.unref();
    socket.once('close', () => clearTimeout(linger));
  });
}

/**
 * Listens and wires graceful shutdown (docs/architecture.md §1): on SIGTERM the service stops accepting,
 * `/readyz` turns 503, in-flight requests get `shutdownTimeoutMs` to finish, then the shutdown hooks
 * run (close Redis, flush traces) and the process exits 0.
 *
 * @example
 * const running = await startServer({ app, port: config.port, logger, onShutdown: [() => telemetry.shutdown()] });
 */
export async function startServer({
  app,
  port,
  host = '127.0.0.1',
  logger = silentLogger,
  onShutdown = [],
  shutdownTimeoutMs = 10_000,
  signals = ['SIGTERM', 'SIGINT'],
  maxHeaderSize = DEFAULT_MAX_HEADER_SIZE,
  errorFormat = 'fleet',
}: StartServerOptions): Promise<RunningServer> {
  const server = createServer({ maxHeaderSize }, app);
  // Longer than common load-balancer idle timeouts, so the proxy closes idle connections first.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  answerClientErrors(server, { maxHeaderSize, format: errorFormat, logger });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${urlHost === '0.0.0.0' || urlHost === '[::]' ? '127.0.0.1' : urlHost}:${address.port}`;

  let shuttingDown = false;
  let shutdownPromise: Promise<void> | undefined;

  // Connections and whether a response is in flight on them. Node's closeIdleConnections() misses
  // kept-alive sockets in some states (seen on Node 20 after an aborted stream), so the server
  // keeps its own books: idle sockets are destroyed at shutdown, busy ones once their response ends.
  const busy = new Map<Socket, number>();
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      busy.delete(socket);
    });
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    if (shuttingDown) res.setHeader('connection', 'close');
    res.once('close', () => {
      const left = (busy.get(socket) ?? 1) - 1;
      if (left > 0) busy.set(socket, left);
      else busy.delete(socket);
      if (shuttingDown && left <= 0) socket.destroy();
    });
  });

  async function closeServer(): Promise<void> {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) if (!busy.has(socket)) socket.destroy();
    const timer = setTimeout(() => {
      logger.warn(
        { timeoutMs: shutdownTimeoutMs },
        'in-flight requests did not finish in time; closing them',
      );
      for (const socket of sockets) socket.destroy();
    }, shutdownTimeoutMs);
    timer.unref();
    await closed;
    clearTimeout(timer);
  }

  function shutdown(reason = 'shutdown requested'): Promise<void> {
    shutdownPromise ??= (async () => {
      shuttingDown = true;
      logger.info({ reason }, 'shutting down');
      await closeServer();
      for (const hook of onShutdown) {
        try {
          await hook();
        } catch (error) {
          logger.error({ err: error }, 'a shutdown hook failed');
        }
      }
      logger.info({}, 'stopped');
    })();
    return shutdownPromise;
  }

  for (const signal of signals) {
    process.once(signal, () => {
      shutdown(signal).then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }

  return { server, url, port: address.port, isShuttingDown: () => shuttingDown, shutdown };
}
