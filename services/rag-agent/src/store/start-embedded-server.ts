import { Worker } from 'node:worker_threads';
import { z } from 'zod';

/** Options for {@link startEmbeddedServer}. */
export interface StartEmbeddedServerOptions {
  /** PGlite's data directory (must exist). */
  dataDir: string;
  /** Connections the socket server accepts at once. */
  maxConnections: number;
}

/** A running embedded PostgreSQL: PGlite with pgvector, served on 127.0.0.1. */
export interface EmbeddedServer {
  host: string;
  port: number;
  /** Stops the socket server and closes PGlite (flushing it), then ends the worker. */
  stop(): Promise<void>;
}

/**
 * The worker's code. PGlite runs in a worker thread: its WASM PostgreSQL is CPU-bound (an HNSW
 * build takes seconds to minutes) and would otherwise stall the agent's event loop, and its
 * CommonJS build loads Node built-ins with dynamic `import()`, which only a plain Node context
 * allows (jest's module sandbox does not). Plain JavaScript in a string, so it runs the same from
 * `dist/` and from the TypeScript sources under jest; the packages come from `require.resolve` in
 * the parent.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { PGlite } = require(workerData.modules.pglite);
const { vector } = require(workerData.modules.pgvector);
const { PGLiteSocketServer } = require(workerData.modules.socket);
let db;
let server;
async function stop() {
  try {
    if (server) await server.stop();
  } finally {
    if (db && !db.closed) await db.close();
  }
}
function describe(error) {
  return error instanceof Error ? (error.stack || error.message) : String(error);
}
parentPort.on('message', (message) => {
  if (!message || message.type !== 'stop') return;
  stop().then(
    () => parentPort.postMessage({ type: 'stopped' }),
    (error) => parentPort.postMessage({ type: 'stopped', error: describe(error) }),
  );
});
(async () => {
  db = await PGlite.create({ dataDir: workerData.dataDir, extensions: { vector } });
  server = new PGLiteSocketServer({
    db,
    host: '127.0.0.1',
    port: 0,
    maxConnections: workerData.maxConnections,
  });
  await server.start();
  const port = Number(server.getServerConn().split(':').pop());
  parentPort.postMessage({ type: 'ready', port });
})().catch((error) => {
  parentPort.postMessage({ type: 'failed', error: describe(error) });
  stop().catch(() => undefined);
});
`;

const workerMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready'), port: z.number().int().positive() }),
  z.object({ type: z.literal('failed'), error: z.string() }),
  z.object({ type: z.literal('stopped'), error: z.string().optional() }),
]);
type WorkerMessage = z.infer<typeof workerMessageSchema>;

function nextMessage(worker: Worker): Promise<WorkerMessage> {
  return new Promise((resolve, reject) => {
    const cleanup = (): void => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    const onMessage = (value: unknown): void => {
      cleanup();
      const parsed = workerMessageSchema.safeParse(value);
      if (parsed.success) resolve(parsed.data);
      else reject(new Error('The embedded database worker sent an unexpected message.'));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const onExit = (code: number): void => {
      cleanup();
      reject(new Error(`The embedded database worker exited (code ${code}).`));
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
  });
}

/**
 * Starts PGlite with the pgvector extension on `dataDir` in a worker thread and serves it with
 * pglite-socket on 127.0.0.1 (a free port).
 *
 * @throws Error with PGlite's message when it cannot open the directory.
 */
export async function startEmbeddedServer({
  dataDir,
  maxConnections,
}: StartEmbeddedServerOptions): Promise<EmbeddedServer> {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      dataDir,
      maxConnections,
      modules: {
        pglite: require.resolve('@electric-sql/pglite'),
        pgvector: require.resolve('@electric-sql/pglite-pgvector'),
        socket: require.resolve('@electric-sql/pglite-socket'),
      },
    },
  });
  const first = await nextMessage(worker).catch(async (error: unknown) => {
    await worker.terminate();
    throw error;
  });
  if (first.type !== 'ready') {
    await worker.terminate();
    throw new Error(first.error ?? 'The embedded database worker stopped while starting.');
  }
  let stopping: Promise<void> | undefined;
  return {
    host: '127.0.0.1',
    port: first.port,
    stop() {
      stopping ??= (async () => {
        const stopped = nextMessage(worker);
        worker.postMessage({ type: 'stop' });
        try {
          const reply = await stopped;
          if (reply.type === 'stopped' && reply.error) {
            throw new Error(`The embedded database did not close cleanly: ${reply.error}`);
          }
        } finally {
          await worker.terminate();
        }
      })();
      return stopping;
    },
  };
}
