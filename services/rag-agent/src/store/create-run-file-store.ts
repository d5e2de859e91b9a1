import { createHash } from 'node:crypto';
import type { Pool } from 'pg';
import {
  checkRunFile,
  cleanRunFileName,
  newRunFileId,
  type RunFile,
  type RunFileSource,
  type RunFileStore,
} from '@fleet/a2a';
import { NotFoundError, PayloadTooLargeError, ValidationError } from '@fleet/errors';
import { whileDatabaseAvailable } from './database-unavailable';
import { withTransaction } from './with-transaction';

/** Largest run file kept when RAG_MAX_RUN_FILE_BYTES is unset: 16 MiB. */
export const DEFAULT_MAX_RUN_FILE_BYTES = 16 * 1024 * 1024;
/** Most files one `put` keeps. */
export const MAX_RUN_FILES_PER_PUT = 64;
/** Most files a session's listing returns (the oldest). */
export const MAX_LISTED_RUN_FILES = 500;
/** Longest tenant, session, node or agent name a run file records. */
export const MAX_RUN_FILE_LABEL_LENGTH = 256;
/** Expired rows one sweep statement deletes (a sweep repeats it until none are left). */
const SWEEP_BATCH = 500;

/** Options for {@link createRunFileStore}. */
export interface CreateRunFileStoreOptions {
  /** A pool to a migrated database (see `openDatabase` and `migrate`). */
  pool: Pool;
  /** Largest file kept, in bytes (RAG_MAX_RUN_FILE_BYTES). @default 16777216 (16 MiB) */
  maxFileBytes?: number;
  /** The clock: what "expired" and `createdAt` are measured by. @default Date.now */
  now?: () => number;
}

/** The RAG agent's run file store: the fleet's {@link RunFileStore}, plus the expiry sweep. */
export interface DatabaseRunFileStore extends RunFileStore {
  /** The per-file limit in bytes, as configured. */
  readonly maxFileBytes: number;
  /** Deletes every expired file; resolves to how many were deleted. */
  sweepExpired(): Promise<number>;
}

interface RunFileRow {
  id: string;
  session_id: string | null;
  node_id: string | null;
  agent: string | null;
  source: RunFileSource;
  name: string;
  media_type: string;
  size_bytes: number;
  sha256: string;
  created_at: Date | string;
  expires_at: Date | string;
}

const INFO_COLUMNS =
  'id, session_id, node_id, agent, source, name, media_type, size_bytes, sha256, created_at, expires_at';

function isoOf(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

function toRunFile(row: RunFileRow): RunFile {
  return {
    id: row.id,
    name: row.name,
    mediaType: row.media_type,
    size: row.size_bytes,
    sha256: row.sha256,
    source: row.source,
    ...(row.session_id === null ? {} : { sessionId: row.session_id }),
    ...(row.node_id === null ? {} : { nodeId: row.node_id }),
    ...(row.agent === null ? {} : { agent: row.agent }),
    createdAt: isoOf(row.created_at),
    expiresAt: isoOf(row.expires_at),
  };
}

function formatMiB(bytes: number): string {
  return bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0
    ? `${bytes / (1024 * 1024)} MiB`
    : `${bytes.toLocaleString('en-US')} bytes`;
}

function checkLabel(label: string, value: string | undefined): void {
  if (value !== undefined && value.length > MAX_RUN_FILE_LABEL_LENGTH) {
    throw new ValidationError(
      `The run file's ${label} is ${value.length} characters; at most ${MAX_RUN_FILE_LABEL_LENGTH} are kept.`,
      { param: label },
    );
  }
}

function notFound(id: string): NotFoundError {
  return new NotFoundError(`There is no file ${id} (it may have expired).`, {
    details: { id },
  });
}

/** A file of a put, checked and ready to insert. */
interface CheckedFile {
  id: string;
  name: string;
  mediaType: string;
  bytes: Buffer;
  sha256: string;
}

/** The labels of a put, each checked as a label ({@link checkLabel}). */
function checkPutLabels(labels: {
  tenant: string;
  sessionId: string | undefined;
  nodeId: string | undefined;
  agent: string | undefined;
}): void {
  checkLabel('tenant', labels.tenant);
  checkLabel('sessionId', labels.sessionId);
  checkLabel('nodeId', labels.nodeId);
  checkLabel('agent', labels.agent);
}

/** A put's file count and expiry checked; its creation time and expiry as epoch milliseconds. */
function checkPutShape(
  fileCount: number,
  expiresAt: string,
  created: number,
): { created: number; expires: number } {
  if (fileCount === 0) {
    throw new ValidationError('A put needs at least one file.', { param: 'files' });
  }
  if (fileCount > MAX_RUN_FILES_PER_PUT) {
    throw new ValidationError(
      `A put keeps at most ${MAX_RUN_FILES_PER_PUT} files; this one has ${fileCount}.`,
      { param: 'files', details: { files: fileCount, limit: MAX_RUN_FILES_PER_PUT } },
    );
  }
  const expires = Date.parse(expiresAt);
  if (Number.isNaN(expires)) {
    throw new ValidationError(`expiresAt (${expiresAt}) is not an ISO-8601 time.`, {
      param: 'expiresAt',
    });
  }
  if (expires <= created) {
    throw new ValidationError(`expiresAt (${expiresAt}) is already past.`, {
      param: 'expiresAt',
    });
  }
  return { created, expires };
}

/** One file of a put: its name cleaned, its size and type checked against its bytes, hashed. */
function checkUpload(
  upload: { name: string; mediaType: string; bytes: Uint8Array },
  index: number,
  maxFileBytes: number,
): CheckedFile {
  const name = cleanRunFileName(upload.name, `file-${index + 1}`);
  if (upload.bytes.byteLength > maxFileBytes) {
    throw new PayloadTooLargeError(
      `${name} is ${formatMiB(upload.bytes.byteLength)}; the largest run file kept is ${formatMiB(maxFileBytes)} (RAG_MAX_RUN_FILE_BYTES).`,
      {
        param: 'file',
        details: { filename: name, bytes: upload.bytes.byteLength, limit: maxFileBytes },
      },
    );
  }
  const check = checkRunFile({ name, mediaType: upload.mediaType, bytes: upload.bytes });
  if (!check.ok) {
    throw new ValidationError(check.reason, { param: 'file', details: { filename: name } });
  }
  const bytes = Buffer.from(upload.bytes.buffer, upload.bytes.byteOffset, upload.bytes.byteLength);
  return {
    id: newRunFileId(),
    name,
    mediaType: check.mediaType,
    bytes,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  };
}

/** What {@link insertRunFiles} keeps: the checked files and the labels of their put. */
interface RunFileInsert {
  tenant: string;
  sessionId: string | undefined;
  nodeId: string | undefined;
  agent: string | undefined;
  source: string;
  files: readonly CheckedFile[];
  createdAt: Date;
  expiry: Date;
}

/** Inserts a put's files in one transaction (all or none), in the put's order. */
function insertRunFiles(
  pool: CreateRunFileStoreOptions['pool'],
  put: RunFileInsert,
): Promise<RunFileRow[]> {
  return withTransaction(pool, async (client) => {
    const kept: RunFileRow[] = [];
    for (const [index, file] of put.files.entries()) {
      // A microsecond apart, so a session's listing keeps the order of the put.
      const inserted = await client.query<RunFileRow>(
        `INSERT INTO run_files (id, tenant, session_id, node_id, agent, source, name,
           media_type, size_bytes, sha256, content, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11,
           $12::timestamptz + $13::integer * interval '1 microsecond', $14)
         RETURNING ${INFO_COLUMNS}`,
        [
          file.id,
          put.tenant,
          put.sessionId ?? null,
          put.nodeId ?? null,
          put.agent ?? null,
          put.source,
          file.name,
          file.mediaType,
          file.bytes.byteLength,
          file.sha256,
          file.bytes,
          put.createdAt,
          index,
          put.expiry,
        ],
      );
      const row = inserted.rows[0];
      if (row === undefined) throw new Error(`INSERT of ${file.name} returned no row`);
      kept.push(row);
    }
    return kept;
  });
}

/**
 * The fleet's run files in the RAG agent's PostgreSQL (`run_files`, migration 4), per tenant.
 * `put` cleans every name ({@link cleanRunFileName}), checks every type against the bytes
 * ({@link checkRunFile}) and the size against `maxFileBytes`, then keeps the files in one
 * transaction (all or none). Reads (`get`, `info`, `list`) never return an expired file, and never
 * another tenant's; {@link DatabaseRunFileStore.sweepExpired} deletes the expired rows (run it
 * periodically: {@link startRunFileSweep}). A database that cannot be reached fails with the
 * retryable `ServiceUnavailableError`.
 *
 * @example
 * const files = createRunFileStore({ pool: database.pool, maxFileBytes: config.maxRunFileBytes });
 * const [chart] = await files.put({ tenant, files: [{ name: 'chart.png', mediaType: 'image/png', bytes }], source: 'step', expiresAt });
 */
export function createRunFileStore({
  pool,
  maxFileBytes = DEFAULT_MAX_RUN_FILE_BYTES,
  now = Date.now,
}: CreateRunFileStoreOptions): DatabaseRunFileStore {
  async function readOne(
    tenant: string,
    id: string,
    withContent: boolean,
  ): Promise<RunFileRow & { content?: Buffer }> {
    const result = await pool.query<RunFileRow & { content?: Buffer }>(
      `SELECT ${INFO_COLUMNS}${withContent ? ', content' : ''} FROM run_files
       WHERE tenant = $1 AND id = $2 AND expires_at > $3`,
      [tenant, id, new Date(now())],
    );
    const row = result.rows[0];
    if (row === undefined) throw notFound(id);
    return row;
  }

  return {
    maxFileBytes,

    put({ tenant, files, sessionId, nodeId, agent, source, expiresAt }) {
      return whileDatabaseAvailable(async () => {
        checkPutLabels({ tenant, sessionId, nodeId, agent });
        const { created, expires } = checkPutShape(files.length, expiresAt, now());
        const checked = files.map((upload, index) => checkUpload(upload, index, maxFileBytes));
        const rows = await insertRunFiles(pool, {
          tenant,
          sessionId,
          nodeId,
          agent,
          source,
          files: checked,
          createdAt: new Date(created),
          expiry: new Date(expires),
        });
        return rows.map(toRunFile);
      });
    },

    get({ tenant, id }) {
      return whileDatabaseAvailable(async () => {
        const row = await readOne(tenant, id, true);
        return { file: toRunFile(row), bytes: row.content ?? Buffer.alloc(0) };
      });
    },

    info({ tenant, id }) {
      return whileDatabaseAvailable(async () => toRunFile(await readOne(tenant, id, false)));
    },

    list({ tenant, sessionId }) {
      return whileDatabaseAvailable(async () => {
        const result = await pool.query<RunFileRow>(
          `SELECT ${INFO_COLUMNS} FROM run_files
           WHERE tenant = $1 AND session_id = $2 AND expires_at > $3
           ORDER BY created_at, id
           LIMIT ${MAX_LISTED_RUN_FILES}`,
          [tenant, sessionId, new Date(now())],
        );
        return result.rows.map(toRunFile);
      });
    },

    remove({ tenant, id }) {
      return whileDatabaseAvailable(async () => {
        // An expired file is already gone for its readers: deleting it says so too.
        const result = await pool.query<{ live: boolean }>(
          'DELETE FROM run_files WHERE tenant = $1 AND id = $2 RETURNING expires_at > $3 AS live',
          [tenant, id, new Date(now())],
        );
        return result.rows[0]?.live === true;
      });
    },

    sweepExpired() {
      return whileDatabaseAvailable(async () => {
        let deleted = 0;
        for (;;) {
          const result = await pool.query(
            `DELETE FROM run_files WHERE (tenant, id) IN (
               SELECT tenant, id FROM run_files WHERE expires_at <= $1 LIMIT ${SWEEP_BATCH})`,
            [new Date(now())],
          );
          const count = result.rowCount ?? 0;
          deleted += count;
          if (count < SWEEP_BATCH) return deleted;
        }
      });
    },
  };
}

/** Where {@link startRunFileSweep} reports. */
export interface RunFileSweepLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

/**
 * Runs `store.sweepExpired()` every `intervalMs` (the timer does not keep the process alive; a
 * sweep that fails is logged and tried again next time). Resolves `stop`, which clears the timer
 * and waits for a running sweep.
 *
 * @example
 * const sweep = startRunFileSweep({ store: files, intervalMs: config.fileSweepIntervalSeconds * 1000, logger });
 * // on shutdown: await sweep.stop();
 */
export function startRunFileSweep({
  store,
  intervalMs,
  logger,
}: {
  store: Pick<DatabaseRunFileStore, 'sweepExpired'>;
  intervalMs: number;
  logger: RunFileSweepLogger;
}): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  const sweep = () => {
    if (running !== undefined) return;
    running = store
      .sweepExpired()
      .then((deleted) => {
        if (deleted > 0) logger.info({ deleted }, `Deleted ${deleted} expired run files.`);
      })
      .catch((error: unknown) => {
        logger.warn(
          { err: error },
          'Deleting the expired run files failed; trying again at the next sweep.',
        );
      })
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(sweep, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
