import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
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

/**
 * Listens and wires graceful shutdown (ARCHITECTURE.md §1): on SIGTERM the service stops accepting,
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
}: StartServerOptions): Promise<RunningServer> {
  const server = createServer(app);
  // Longer than common load-balancer idle timeouts, so the proxy closes idle connections first.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;

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
