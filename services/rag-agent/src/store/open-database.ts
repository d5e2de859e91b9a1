import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import type { Logger } from '@fleet/telemetry';
import { acquireDataDirLock, type DataDirLock } from './acquire-data-dir-lock';
import { startEmbeddedServer, type EmbeddedServer } from './start-embedded-server';
import { StartupError } from './startup-error';
import { createVectorPool, registerVectorTypes } from './create-vector-pool';

/** How long a request waits to connect to a `DATABASE_URL` server (or for a free connection). */
export const SERVER_CONNECT_TIMEOUT_MS = 15_000;

/** What {@link openDatabase} logs through. */
export type DatabaseLogger = Pick<Logger, 'info' | 'warn' | 'error'>;

/** Options for {@link openDatabase}. */
export interface OpenDatabaseOptions {
  /** A `postgres://` URL of a server with pgvector. Unset: the embedded database in `dataDir`. */
  databaseUrl?: string | undefined;
  /** Where the embedded database keeps its files (created if missing). Ignored with a URL. */
  dataDir: string;
  logger: DatabaseLogger;
  /** Connections to a `databaseUrl` server. The embedded database always gets one. @default 10 */
  maxConnections?: number;
}

/** An open RAG database: a pg pool, whichever kind of server is behind it. */
export interface Database {
  pool: pg.Pool;
  /** True for the embedded PGlite. */
  embedded: boolean;
  /** Where the pool connects, without credentials (for logs). */
  location: string;
  /**
   * Ends the pool; for the embedded database also stops its socket server, closes PGlite (which
   * flushes it to disk) and releases the data directory. Safe to call twice.
   */
  close(): Promise<void>;
}

function describeUrl(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    return `${url.hostname}:${url.port || '5432'}${url.pathname}`;
  } catch {
    return 'DATABASE_URL';
  }
}

function errorText(error: unknown): string {
  // Connecting to `localhost` tries ::1 and 127.0.0.1; Node reports both in an AggregateError
  // whose own message is empty.
  if (error instanceof AggregateError && error.errors.length > 0) return errorText(error.errors[0]);
  if (error instanceof Error) {
    return error.message || (error as NodeJS.ErrnoException).code || error.name;
  }
  return String(error);
}

async function openServer(
  options: OpenDatabaseOptions & { databaseUrl: string },
): Promise<Database> {
  const { databaseUrl, logger, maxConnections = 10 } = options;
  const location = describeUrl(databaseUrl);
  const pool = createVectorPool({
    connectionString: databaseUrl,
    max: maxConnections,
    // A server that does not answer (a dropped route, a firewall) fails a request in this time
    // with a 503 instead of holding it for the OS's connect timeout (minutes). Also the longest a
    // request waits for a free connection.
    connectionTimeoutMillis: SERVER_CONNECT_TIMEOUT_MS,
  });
  // An idle connection that dies (server restart) is reported here; unhandled it would crash.
  pool.on('error', (error) => logger.warn({ err: error }, 'RAG database connection lost'));
  try {
    await registerVectorTypes(pool);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new StartupError(
      `Cannot connect to the RAG database at ${location} (DATABASE_URL): ${errorText(error)}. Check the URL and that the server is up, or unset DATABASE_URL to use the embedded database.`,
      { cause: error },
    );
  }
  logger.info({ database: location }, 'RAG database: PostgreSQL server');
  let closing: Promise<void> | undefined;
  return {
    pool,
    embedded: false,
    location,
    close() {
      closing ??= pool.end();
      return closing;
    },
  };
}

async function openEmbedded(options: OpenDatabaseOptions): Promise<Database> {
  const { logger } = options;
  const dataDir = path.resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true });
  const lock: DataDirLock = await acquireDataDirLock(dataDir);
  let server: EmbeddedServer | undefined;
  let pool: pg.Pool | undefined;
  const shutdown = async (): Promise<void> => {
    try {
      await pool?.end().catch(() => undefined);
      await server?.stop();
    } finally {
      await lock.release();
    }
  };
  try {
    // PGlite is one PostgreSQL backend. pglite-socket can multiplex several connections onto it,
    // but it interleaves their protocol messages outside transactions and they share one session
    // (unnamed prepared statements and portals, SET), so concurrent pool connections could bind
    // one query's parameters to another's statement. A pool of one connection avoids that: queries
    // queue in the pool. The server's second slot only absorbs a reconnect racing the old socket's
    // close.
    server = await startEmbeddedServer({ dataDir, maxConnections: 2 });
    pool = createVectorPool({
      host: server.host,
      port: server.port,
      user: 'postgres',
      database: 'postgres',
      max: 1,
      // Keep the one connection open: closing and reopening it gains nothing here.
      idleTimeoutMillis: 0,
    });
    pool.on('error', (error) =>
      logger.warn({ err: error }, 'embedded RAG database connection lost'),
    );
    await registerVectorTypes(pool);
  } catch (error) {
    await shutdown().catch(() => undefined);
    throw new StartupError(
      `Cannot open the embedded RAG database in ${dataDir}: ${errorText(error)}. If the directory is damaged, move it away (the documents must then be ingested again) or set RAG_DATA_DIR elsewhere.`,
      { cause: error },
    );
  }
  const location = `embedded PGlite in ${dataDir} (${server.host}:${server.port})`;
  logger.info({ dataDir, port: server.port }, 'RAG database: embedded PGlite');
  let closing: Promise<void> | undefined;
  return {
    pool,
    embedded: true,
    location,
    close() {
      closing ??= shutdown();
      return closing;
    },
  };
}

/**
 * Opens the RAG database (docs/architecture.md §7). With `databaseUrl`: a `pg.Pool` to that server
 * (which needs pgvector; `migrate` checks). Without: an embedded PostgreSQL, PGlite with the
 * pgvector extension, keeping its files in `dataDir` and served over the PostgreSQL wire protocol
 * by pglite-socket on 127.0.0.1 (a free port), with a `pg.Pool` of one connection to it — so the
 * same store code runs against both. The embedded database takes a lock on `dataDir`: a second
 * process fails instead of corrupting it.
 *
 * The embedded database is single-connection: queries run one at a time, in order.
 *
 * @throws StartupError when the server cannot be reached, the data directory is in use by another
 *   process, or PGlite cannot open it.
 * @example
 * const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, logger });
 * await migrate(database.pool, { embeddingModel: embedder.model, dimensions: embedder.dimensions });
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const { databaseUrl } = options;
  if (databaseUrl !== undefined) return openServer({ ...options, databaseUrl });
  return openEmbedded(options);
}
