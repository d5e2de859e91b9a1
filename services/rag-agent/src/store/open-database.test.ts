import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { LOCK_FILE_NAME } from './acquire-data-dir-lock';
import { openDatabase } from './open-database';
import { silentLogger, TEST_SERVER_URL } from './open-test-database';
import { StartupError } from './startup-error';

const SLOW = 120_000;

/** A pid that belonged to a process which has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '0']);
  return child.pid;
}

describe('openDatabase', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'rag-open-database-'));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  describe('embedded (DATABASE_URL unset)', () => {
    it(
      'creates the data directory, serves PGlite with pgvector over the wire protocol and keeps data across restarts',
      async () => {
        const dataDir = path.join(root, 'nested', 'rag-pglite');
        const database = await openDatabase({ dataDir, logger: silentLogger });
        try {
          expect(database.embedded).toBe(true);
          expect(database.location).toContain(dataDir);
          expect(existsSync(path.join(dataDir, 'PG_VERSION'))).toBe(true);
          await database.pool.query('CREATE EXTENSION IF NOT EXISTS vector');
          await database.pool.query('CREATE TABLE kept (id int, embedding vector(3))');
          await database.pool.query('INSERT INTO kept VALUES ($1, $2)', [1, '[1,2,3]']);
          const distance = await database.pool.query<{ distance: number }>(
            "SELECT embedding <=> '[1,2,3]' AS distance FROM kept",
          );
          expect(distance.rows[0]?.distance).toBeCloseTo(0, 6);
        } finally {
          await database.close();
        }
        // Closing twice is harmless.
        await database.close();
        expect(existsSync(path.join(dataDir, LOCK_FILE_NAME))).toBe(false);

        const reopened = await openDatabase({ dataDir, logger: silentLogger });
        try {
          const rows = await reopened.pool.query<{ id: number; embedding: number[] }>(
            'SELECT id, embedding FROM kept',
          );
          // The pgvector type parser turns the column into numbers.
          expect(rows.rows).toEqual([{ id: 1, embedding: [1, 2, 3] }]);
        } finally {
          await reopened.close();
        }
      },
      SLOW,
    );

    it(
      'refuses a data directory that is already open, in this process or another',
      async () => {
        const dataDir = path.join(root, 'locked');
        const database = await openDatabase({ dataDir, logger: silentLogger });
        try {
          const error = await openDatabase({ dataDir, logger: silentLogger }).catch(
            (caught: unknown) => caught,
          );
          expect(error).toBeInstanceOf(StartupError);
          expect((error as Error).message).toMatch(/already open in this process/);
          // The first one still works.
          await expect(database.pool.query('SELECT 1 AS one')).resolves.toMatchObject({
            rows: [{ one: 1 }],
          });
        } finally {
          await database.close();
        }

        // Another live process (our parent) holds the directory: refused, and its lock is kept.
        const lock = path.join(dataDir, LOCK_FILE_NAME);
        const foreign = JSON.stringify({ pid: process.ppid, hostname: os.hostname() });
        await writeFile(lock, foreign);
        const refused = await openDatabase({ dataDir, logger: silentLogger }).catch(
          (caught: unknown) => caught,
        );
        expect(refused).toBeInstanceOf(StartupError);
        expect((refused as Error).message).toContain(`in use by process ${process.ppid}`);
        expect((refused as Error).message).toContain('RAG_DATA_DIR');
        expect(await readFile(lock, 'utf8')).toBe(foreign);
      },
      SLOW,
    );

    it(
      'takes over a lock left by a process that is gone',
      async () => {
        const dataDir = path.join(root, 'stale');
        const first = await openDatabase({ dataDir, logger: silentLogger });
        await first.close();
        await writeFile(
          path.join(dataDir, LOCK_FILE_NAME),
          JSON.stringify({ pid: deadPid(), hostname: os.hostname() }),
        );
        const database = await openDatabase({ dataDir, logger: silentLogger });
        try {
          const lock = JSON.parse(await readFile(path.join(dataDir, LOCK_FILE_NAME), 'utf8')) as {
            pid: number;
          };
          expect(lock.pid).toBe(process.pid);
        } finally {
          await database.close();
        }
      },
      SLOW,
    );
  });

  describe('PostgreSQL server (DATABASE_URL)', () => {
    it('connects a pool to the server', async () => {
      const database = await openDatabase({
        databaseUrl: TEST_SERVER_URL,
        dataDir: path.join(root, 'unused'),
        logger: silentLogger,
      });
      try {
        expect(database.embedded).toBe(false);
        expect(database.location).toBe('127.0.0.1:5432/test');
        const result = await database.pool.query<{ version: string }>(
          "SELECT current_setting('server_version') AS version",
        );
        expect(result.rows[0]?.version).toMatch(/^\d+/);
      } finally {
        await database.close();
      }
      expect(existsSync(path.join(root, 'unused'))).toBe(false);
    });

    it('fails with a StartupError naming DATABASE_URL when the server is unreachable', async () => {
      const probe = createServer();
      await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
      const address = probe.address();
      await new Promise((resolve) => probe.close(resolve));
      if (address === null || typeof address === 'string') throw new Error('no port');
      const error = await openDatabase({
        databaseUrl: `postgres://fleet:secret-password@127.0.0.1:${address.port}/fleet`,
        dataDir: root,
        logger: silentLogger,
      }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StartupError);
      expect((error as Error).message).toMatch(
        /Cannot connect to the RAG database at 127\.0\.0\.1:\d+\/fleet \(DATABASE_URL\)/,
      );
      expect((error as Error).message).toContain('ECONNREFUSED');
      expect((error as Error).message).not.toContain('secret-password');

      // `localhost` fails on both ::1 and 127.0.0.1: the message still says why.
      const local = await openDatabase({
        databaseUrl: `postgres://localhost:${address.port}/fleet`,
        dataDir: root,
        logger: silentLogger,
      }).catch((caught: unknown) => caught);
      expect((local as Error).message).toContain('ECONNREFUSED');
    });
  });
});
