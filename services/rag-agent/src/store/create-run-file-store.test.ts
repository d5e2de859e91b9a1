import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Pool } from 'pg';
import { RUN_FILE_ID_PATTERN, type RunFileUpload } from '@fleet/a2a';
import { NotFoundError, PayloadTooLargeError, ValidationError } from '@fleet/errors';
import { encodePng } from '@fleet/testing';
import {
  createRunFileStore,
  MAX_RUN_FILES_PER_PUT,
  startRunFileSweep,
  type DatabaseRunFileStore,
} from './create-run-file-store';
import { migrate } from './migrate';
import { runFiles as runFilesMigration } from './migrations/004-run-files';
import { openDatabase } from './open-database';
import {
  backendSuites,
  silentLogger,
  TEST_SERVER_URL,
  type StoreBackend,
  type TestDatabase,
} from './open-test-database';
import { keptChart, STEP_CHART_ORIGIN, text } from '../test-support/run-file-fixtures';

const SLOW = 120_000;
const settings = { embeddingModel: 'local-hashed-v1', dimensions: 64 };
const HOUR = 3_600_000;

const png = encodePng({ width: 2, height: 2 });

function upload(name: string, mediaType: string, bytes: Uint8Array): RunFileUpload {
  return { name, mediaType, bytes };
}

async function countRows(pool: Pool, tenant: string): Promise<number> {
  const result = await pool.query<{ count: string }>(
    'SELECT count(*)::text AS count FROM run_files WHERE tenant = $1',
    [tenant],
  );
  return Number(result.rows[0]?.count ?? 0);
}

/**
 * The machine's PostgreSQL 15 (no pgvector): `run_files` needs none, so this backend creates only
 * that table (migration 4's SQL) in a scratch schema, to run the run file store on a real server.
 */
const plainServerBackend: StoreBackend = {
  name: 'PostgreSQL server without pgvector (run_files only)',
  async open(): Promise<TestDatabase> {
    const schema = `run_files_test_${process.pid}_${Date.now()}`;
    const dataDir = path.join(os.tmpdir(), 'rag-run-files-test-unused');
    const admin = await openDatabase({
      databaseUrl: TEST_SERVER_URL,
      dataDir,
      logger: silentLogger,
    });
    try {
      await admin.pool.query(`CREATE SCHEMA ${schema}`);
    } finally {
      await admin.close();
    }
    const url = new URL(TEST_SERVER_URL);
    url.searchParams.set('options', `-c search_path=${schema}`);
    const database = await openDatabase({
      databaseUrl: url.toString(),
      dataDir,
      logger: silentLogger,
      maxConnections: 4,
    });
    await database.pool.query(runFilesMigration.sql({ dimensions: settings.dimensions }));
    return {
      database,
      dataDir,
      async dispose() {
        try {
          await database.pool.query(`DROP SCHEMA ${schema} CASCADE`);
        } finally {
          await database.close();
        }
      },
    };
  },
  release: () => Promise.resolve(),
};

const suites = [
  ...backendSuites('createRunFileStore').map((suite) => ({ ...suite, migrateAll: true })),
  {
    title: `createRunFileStore on the ${plainServerBackend.name}`,
    backend: plainServerBackend,
    skip: false,
    migrateAll: false,
  },
];

for (const { title, backend, skip, migrateAll } of suites) {
  (skip ? describe.skip : describe)(title, () => {
    let test: TestDatabase;
    let clock = Date.parse('2026-05-01T12:00:00.000Z');
    let store: DatabaseRunFileStore;
    const later = (hours: number) => new Date(clock + hours * HOUR).toISOString();
    /** A put of a step's files for `tenant`, kept `hours` (default 1). */
    const stepPut = (
      tenant: string,
      files: RunFileUpload[],
      { sessionId, hours = 1 }: { sessionId?: string; hours?: number } = {},
    ) => ({
      tenant,
      files,
      ...(sessionId === undefined ? {} : { sessionId }),
      source: 'step' as const,
      expiresAt: later(hours),
    });

    beforeAll(async () => {
      test = await backend.open();
      if (migrateAll) await migrate(test.database.pool, settings);
      store = createRunFileStore({
        pool: test.database.pool,
        maxFileBytes: 64 * 1024,
        now: () => clock,
      });
    }, SLOW);
    afterAll(async () => {
      await test?.dispose();
      await backend.release();
    }, SLOW);

    it('keeps files with cleaned names and checked types, and reads them back', async () => {
      const csv = text('city,temp\nOslo,4\n');
      const kept = await store.put({
        tenant: 'acme',
        files: [
          upload('../../charts/chart.png', 'application/octet-stream', png),
          upload('data.csv', 'text/csv; charset=utf-8', csv),
        ],
        ...STEP_CHART_ORIGIN,
        expiresAt: later(24),
      });
      expect(kept).toHaveLength(2);
      const [chart, data] = kept;
      expect(chart).toMatchObject({
        ...keptChart(png),
        createdAt: new Date(clock).toISOString(),
        expiresAt: later(24),
      });
      expect(chart?.id).toMatch(RUN_FILE_ID_PATTERN);
      expect(data).toMatchObject({ name: 'data.csv', mediaType: 'text/csv' });

      const read = await store.get({ tenant: 'acme', id: chart?.id ?? '' });
      expect(read.file).toEqual(chart);
      expect(Buffer.compare(read.bytes, Buffer.from(png))).toBe(0);
      expect(await store.info({ tenant: 'acme', id: data?.id ?? '' })).toEqual(data);
      expect(
        (await store.list({ tenant: 'acme', sessionId: 'session-1' })).map((f) => f.id),
      ).toEqual([chart?.id, data?.id]);
    });

    it('lists a session oldest first, in the order of each put', async () => {
      const names = ['c.txt', 'a.txt', 'b.txt'];
      const first = await store.put({
        tenant: 'acme',
        files: names.map((name) => upload(name, 'text/plain', text(name))),
        sessionId: 'session-order',
        source: 'attachment',
        expiresAt: later(1),
      });
      clock += 1000;
      const second = await store.put(
        stepPut('acme', [upload('0.txt', 'text/plain', text('0'))], { sessionId: 'session-order' }),
      );
      const listed = await store.list({ tenant: 'acme', sessionId: 'session-order' });
      expect(listed.map((file) => file.name)).toEqual(['c.txt', 'a.txt', 'b.txt', '0.txt']);
      expect(listed.map((file) => file.id)).toEqual([...first, ...second].map((file) => file.id));
      expect(listed[0]?.nodeId).toBeUndefined();
      expect(listed[0]?.source).toBe('attachment');
    });

    it('keeps tenants apart: another tenant’s id is not found and cannot be deleted', async () => {
      const [file] = await store.put(
        stepPut('acme', [upload('secret.md', 'text/markdown', text('# Secret'))], {
          sessionId: 'session-tenants',
        }),
      );
      const id = file?.id ?? '';
      await expect(store.get({ tenant: 'globex', id })).rejects.toBeInstanceOf(NotFoundError);
      await expect(store.info({ tenant: 'globex', id })).rejects.toBeInstanceOf(NotFoundError);
      expect(await store.list({ tenant: 'globex', sessionId: 'session-tenants' })).toEqual([]);
      expect(await store.remove({ tenant: 'globex', id })).toBe(false);
      expect((await store.info({ tenant: 'acme', id })).name).toBe('secret.md');
      await expect(
        store.get({ tenant: 'acme', id: 'file-00000000000000000000000000000000' }),
      ).rejects.toThrow(/There is no file file-0+/);
    });

    it('deletes a file: gone for every read after', async () => {
      const [file] = await store.put(
        stepPut('acme', [upload('notes.txt', 'text/plain', text('notes'))], {
          sessionId: 'session-delete',
        }),
      );
      const id = file?.id ?? '';
      expect(await store.remove({ tenant: 'acme', id })).toBe(true);
      expect(await store.remove({ tenant: 'acme', id })).toBe(false);
      await expect(store.get({ tenant: 'acme', id })).rejects.toBeInstanceOf(NotFoundError);
      expect(await store.list({ tenant: 'acme', sessionId: 'session-delete' })).toEqual([]);
    });

    it('never reads an expired file, and the sweep deletes the expired rows only', async () => {
      const [short] = await store.put(
        stepPut('expiry', [upload('short.txt', 'text/plain', text('short'))], {
          sessionId: 'session-expiry',
        }),
      );
      const [long] = await store.put(
        stepPut('expiry', [upload('long.txt', 'text/plain', text('long'))], {
          sessionId: 'session-expiry',
          hours: 48,
        }),
      );
      const id = short?.id ?? '';
      clock += 2 * HOUR;
      await expect(store.get({ tenant: 'expiry', id })).rejects.toBeInstanceOf(NotFoundError);
      await expect(store.info({ tenant: 'expiry', id })).rejects.toBeInstanceOf(NotFoundError);
      expect(
        (await store.list({ tenant: 'expiry', sessionId: 'session-expiry' })).map((f) => f.id),
      ).toEqual([long?.id]);
      // Still a row until the sweep: reads hide it, the sweep deletes it.
      expect(await countRows(test.database.pool, 'expiry')).toBe(2);
      expect(await store.sweepExpired()).toBeGreaterThanOrEqual(1);
      expect(await countRows(test.database.pool, 'expiry')).toBe(1);
      expect((await store.info({ tenant: 'expiry', id: long?.id ?? '' })).name).toBe('long.txt');
      expect(await store.sweepExpired()).toBe(0);
    });

    it('keeps all or none: a refused file stores nothing and is named', async () => {
      const before = await countRows(test.database.pool, 'atomic');
      const fake = store.put({
        tenant: 'atomic',
        files: [
          upload('good.csv', 'text/csv', text('a,b\n1,2\n')),
          upload('fake.png', 'image/png', text('not a png at all')),
        ],
        sessionId: 'session-atomic',
        source: 'step',
        expiresAt: later(1),
      });
      await expect(fake).rejects.toBeInstanceOf(ValidationError);
      await expect(fake).rejects.toThrow(/fake\.png says it is image\/png but its content is not/);
      const exe = store.put(
        stepPut('atomic', [upload('tool.exe', 'application/x-msdownload', text('MZ'))]),
      );
      await expect(exe).rejects.toThrow(/tool\.exe .* is not a kind of file the fleet keeps/);
      expect(await countRows(test.database.pool, 'atomic')).toBe(before);
      expect(await store.list({ tenant: 'atomic', sessionId: 'session-atomic' })).toEqual([]);
    });

    it('rolls back the files already inserted when a later insert fails', async () => {
      // Both ids collide with a row already there: the second insert fails inside the transaction.
      const [existing] = await store.put(
        stepPut('rollback', [upload('first.txt', 'text/plain', text('first'))]),
      );
      const pool = test.database.pool;
      const original = pool.connect.bind(pool);
      let inserts = 0;
      const spy = jest.spyOn(pool, 'connect').mockImplementation((async () => {
        const client = await original();
        const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
        (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
          if (typeof args[0] === 'string' && args[0].includes('INSERT INTO run_files')) {
            inserts += 1;
            if (inserts === 2) {
              const values = [...(args[1] as unknown[])];
              values[0] = existing?.id;
              return query(args[0], values);
            }
          }
          return query(...args);
        };
        return client;
      }) as never);
      try {
        await expect(
          store.put({
            tenant: 'rollback',
            files: [
              upload('second.txt', 'text/plain', text('second')),
              upload('third.txt', 'text/plain', text('third')),
            ],
            source: 'step',
            expiresAt: later(1),
          }),
        ).rejects.toThrow(/run_files_pkey/);
      } finally {
        spy.mockRestore();
      }
      expect(inserts).toBe(2);
      expect(await countRows(test.database.pool, 'rollback')).toBe(1);
    });

    it('refuses a file over the size limit, too many files, and a past expiry', async () => {
      const big = store.put(
        stepPut('limits', [upload('big.csv', 'text/csv', new Uint8Array(64 * 1024 + 1).fill(65))]),
      );
      await expect(big).rejects.toBeInstanceOf(PayloadTooLargeError);
      await expect(big).rejects.toThrow(/big\.csv is 65,537 bytes; .*RAG_MAX_RUN_FILE_BYTES/);
      const exact = await store.put(
        stepPut('limits', [upload('exact.csv', 'text/csv', new Uint8Array(64 * 1024).fill(65))]),
      );
      expect(exact[0]?.size).toBe(64 * 1024);

      const many = Array.from({ length: MAX_RUN_FILES_PER_PUT + 1 }, (_, index) =>
        upload(`f${index}.txt`, 'text/plain', text(String(index))),
      );
      await expect(store.put(stepPut('limits', many))).rejects.toThrow(/at most 64 files/);
      await expect(
        store.put(stepPut('limits', [upload('a.txt', 'text/plain', text('a'))], { hours: -1 })),
      ).rejects.toThrow(/already past/);
      await expect(store.put(stepPut('limits', []))).rejects.toBeInstanceOf(ValidationError);
      expect(await countRows(test.database.pool, 'limits')).toBe(1);
    });

    it('sweeps periodically and keeps going after a failed sweep', async () => {
      const sweeps: number[] = [];
      let calls = 0;
      const warnings: string[] = [];
      const sweep = startRunFileSweep({
        store: {
          sweepExpired: () => {
            calls += 1;
            if (calls === 1) return Promise.reject(new Error('database gone'));
            sweeps.push(calls);
            return Promise.resolve(3);
          },
        },
        intervalMs: 20,
        logger: { info: () => undefined, warn: (_fields, message) => warnings.push(message) },
      });
      await new Promise((resolve) => setTimeout(resolve, 150));
      await sweep.stop();
      const after = calls;
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(calls).toBe(after);
      expect(sweeps.length).toBeGreaterThanOrEqual(1);
      expect(warnings[0]).toMatch(/expired run files failed/);
    });
  });
}
