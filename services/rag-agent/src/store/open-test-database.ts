import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  findLocalImage,
  startPostgresContainer,
  type LocalImageLookup,
  type PostgresContainer,
} from '@fleet/testing';
import { createLogger } from '@fleet/telemetry';
import { openDatabase, type Database } from './open-database';

/** The machine's PostgreSQL 15 (no pgvector) that tests use for the server code path. */
export const TEST_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** A logger that writes nothing. */
export const silentLogger = createLogger({ service: 'rag-agent-test', level: 'silent' });

/** An embedded database in a fresh temporary directory, and how to throw both away. */
export interface TestDatabase {
  database: Database;
  /** A fresh temporary directory (the embedded database's files; unused by a server). */
  dataDir: string;
  /** Closes the database and deletes its directory (a server's scratch schema is dropped). */
  dispose(): Promise<void>;
}

/**
 * Test helper: opens the embedded PGlite (real PostgreSQL with real pgvector) in a new temporary
 * directory. Starting one takes a few seconds (initdb), so a test file shares one.
 */
export async function openTestDatabase(): Promise<TestDatabase> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'rag-store-test-'));
  const database = await openDatabase({ dataDir, logger: silentLogger });
  return {
    database,
    dataDir,
    async dispose() {
      await database.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The pgvector images a test container may start, in order, unless FLEET_PGVECTOR_IMAGE names one. */
export const PGVECTOR_IMAGES = ['pgvector/pgvector:pg17', 'localhost/fleet-base/pgvector:17'];

/** A database the store's tests run against: the embedded PGlite, or a PostgreSQL server. */
export interface StoreBackend {
  /** For test titles. */
  name: string;
  /** Why this backend does not run here, and how to run it; undefined when it runs. */
  skipped?: string;
  /** Opens an empty database: a new PGlite, or a new scratch schema on the server. */
  open(): Promise<TestDatabase>;
  /** Lets go of what the backend started (the container); the test file's `afterAll`. */
  release(): Promise<void>;
}

const embeddedBackend: StoreBackend = {
  name: 'embedded PGlite',
  open: openTestDatabase,
  release: () => Promise.resolve(),
};

/** How long the first query waits for a server that has just started ("starting up"). */
const FIRST_QUERY_TIMEOUT_MS = 20_000;

/**
 * A scratch schema on the server at `databaseUrl`, first in the search path (pgvector's types
 * stay in `public`), so the tests never see or touch the database's own tables; dropped by
 * `dispose`. The same as `pnpm bench rag` does with a DATABASE_URL.
 */
async function openScratchSchema(databaseUrl: string): Promise<TestDatabase> {
  const schema = `rag_test_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'rag-store-test-'));
  const deadline = Date.now() + FIRST_QUERY_TIMEOUT_MS;
  for (;;) {
    const admin = await openDatabase({ databaseUrl, dataDir, logger: silentLogger }).catch(
      (error: unknown) => error as Error,
    );
    if (!(admin instanceof Error)) {
      try {
        // In `public`, where a scratch schema's search path finds it (a user who may not create
        // it gets migrate's own error later).
        await admin.pool
          .query('CREATE EXTENSION IF NOT EXISTS vector SCHEMA public')
          .catch(() => undefined);
        await admin.pool.query(`CREATE SCHEMA ${schema}`);
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
      } finally {
        await admin.close();
      }
    } else if (Date.now() > deadline) {
      throw admin;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `-c search_path=${schema},public`);
  const database = await openDatabase({
    databaseUrl: url.toString(),
    dataDir,
    logger: silentLogger,
    maxConnections: 4,
  });
  return {
    database,
    dataDir,
    async dispose() {
      try {
        await database.pool.query(`DROP SCHEMA ${schema} CASCADE`);
      } finally {
        await database.close();
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  };
}

const HOW_TO_RUN =
  'To run them: DATABASE_URL=postgres://user:password@host:5432/db pnpm test -- services/rag-agent/src/store ' +
  '(a PostgreSQL with pgvector; the tests work in a scratch schema and drop it), ' +
  'or install podman or docker and have a pgvector image locally (`podman pull pgvector/pgvector:pg17`; ' +
  'FLEET_PGVECTOR_IMAGE names another, FLEET_CONTAINER_RUNTIME the runtime). See docs/rag.md.';

/**
 * The server backend: `DATABASE_URL` when set; otherwise a container of this test file's own
 * (podman or docker with a pgvector image already there, started on first use and removed by
 * `release`); otherwise skipped, saying how to run it.
 */
function serverBackend(env: NodeJS.ProcessEnv = process.env): StoreBackend {
  const databaseUrl = env['DATABASE_URL'] || undefined;
  if (databaseUrl !== undefined) {
    return {
      name: 'PostgreSQL server (DATABASE_URL)',
      open: () => openScratchSchema(databaseUrl),
      release: () => Promise.resolve(),
    };
  }
  const image = env['FLEET_PGVECTOR_IMAGE'] || undefined;
  const runtime = env['FLEET_CONTAINER_RUNTIME'] || undefined;
  const lookup: LocalImageLookup = findLocalImage({
    images: image === undefined ? PGVECTOR_IMAGES : [image],
    ...(runtime === undefined ? {} : { runtimes: [runtime] }),
  });
  if (lookup.found === undefined) {
    return {
      name: 'PostgreSQL server',
      skipped: `no PostgreSQL server to test against: DATABASE_URL is unset and no container can be started (${lookup.missing}). ${HOW_TO_RUN}`,
      open: () => Promise.reject(new Error('skipped')),
      release: () => Promise.resolve(),
    };
  }
  const found = lookup.found;
  let container: Promise<PostgresContainer> | undefined;
  return {
    name: `PostgreSQL server (${found.image} in ${path.basename(found.runtime)})`,
    async open() {
      container ??= startPostgresContainer({ ...found, database: 'rag' });
      return openScratchSchema((await container).url);
    },
    async release() {
      const started = container;
      container = undefined;
      await (await started?.catch(() => undefined))?.stop();
    },
  };
}

let backends: StoreBackend[] | undefined;

/**
 * Every backend the store's tests run against: the embedded PGlite always, and a PostgreSQL
 * server with pgvector (see {@link serverBackend}) when there is one. Decided once per test file.
 */
export function storeBackends(): StoreBackend[] {
  backends ??= [embeddedBackend, serverBackend()];
  return backends;
}

/** One suite of a test file per backend (see {@link backendSuites}). */
export interface BackendSuite {
  /** `<title> on <backend>`; for a skipped one, also why and how to run it. */
  title: string;
  backend: StoreBackend;
  /** True when the backend cannot run here: `describe.skip` it (a warning said why). */
  skip: boolean;
}

/**
 * The suites to `describe` for `title`, one per backend. A backend that cannot run here is
 * returned with `skip` and a title that says why and how to run it, and a warning says so too.
 *
 * @example
 * for (const { title, backend, skip } of backendSuites('createDocumentStore')) {
 *   (skip ? describe.skip : describe)(title, () => {
 *     let test: TestDatabase;
 *     beforeAll(async () => (test = await backend.open()));
 *     afterAll(async () => { await test.dispose(); await backend.release(); });
 *   });
 * }
 */
export function backendSuites(title: string): BackendSuite[] {
  return storeBackends().map((backend) => {
    if (backend.skipped === undefined) {
      return { title: `${title} on ${backend.name}`, backend, skip: false };
    }
    console.warn(`${title} on a ${backend.name}: skipped. ${backend.skipped}`);
    return {
      title: `${title} on a ${backend.name} (skipped: ${backend.skipped})`,
      backend,
      skip: true,
    };
  });
}
