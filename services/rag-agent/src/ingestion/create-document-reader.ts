import { extname, join } from 'node:path';
import {
  createWorkerPool,
  WorkerJobFailedError,
  WorkerJobLimitError,
  type WorkerPoolLogger,
  type WorkerPoolStats,
} from '@fleet/worker-pool';
import { DocumentLimitError } from './document-limit-error';
import { DocumentParseError } from './document-parse-error';
import { PARSE_BUDGET_NAMES } from './limits';
import { readDocument, type ReadDocumentInput, type ReadDocumentResult } from './read-document';
import type { ReadDocumentJobs } from './read-document-worker';

/** One file to read, and whose it is. */
export interface ReadRequest extends ReadDocumentInput {
  /** The tenant uploading it: reading is served fairly between tenants. */
  tenant: string;
  signal?: AbortSignal | undefined;
}

/** Reads uploads into chunks ({@link readDocument}); the document service's heavy half. */
export interface DocumentReader {
  /**
   * @throws what {@link readDocument} throws; `DocumentLimitError` (413) naming
   *   RAG_PARSE_TIMEOUT_MS or RAG_PARSE_MEMORY_MB when reading ran past its budget;
   *   `WorkerPoolBusyError` (503, retryable, `Retry-After`) when too many uploads wait.
   */
  read(request: ReadRequest): Promise<ReadDocumentResult>;
  /** Reading threads alive, uploads being read and waiting. */
  stats(): WorkerPoolStats;
  /** Stops the worker threads (on shutdown). */
  close(): Promise<void>;
}

/**
 * Reads on the calling thread, without budgets: for tests and tools that read trusted files. The
 * service reads through {@link createDocumentReader}.
 */
export const inProcessDocumentReader: DocumentReader = {
  read: ({ tenant: _tenant, signal: _signal, ...input }) => readDocument(input),
  stats: () => ({ workers: 0, running: 0, queued: 0 }),
  close: () => Promise.resolve(),
};

/** Options for {@link createDocumentReader}: the parse pool's budgets (RAG_PARSE_*). */
export interface CreateDocumentReaderOptions {
  /** Worker threads (RAG_PARSE_WORKERS). @default 2 */
  workers?: number;
  /** Time to read one document (RAG_PARSE_TIMEOUT_MS). @default 60000 */
  timeoutMs?: number;
  /** Heap of each worker thread, MiB (RAG_PARSE_MEMORY_MB). @default 1024 */
  maxMemoryMb?: number;
  /** Uploads waiting, every tenant together (RAG_PARSE_QUEUE_LENGTH). @default 32 */
  maxQueued?: number;
  /** Uploads of one tenant read at once (RAG_PARSE_TENANT_CONCURRENCY). @default 1 */
  maxRunningPerTenant?: number;
  /** A worker idle this long ends, giving its memory back. @default 30000 */
  idleTimeoutMs?: number;
  logger?: WorkerPoolLogger | undefined;
}

/** A pool failure said in terms of the file (what the person uploading it needs to hear). */
function documentError(error: unknown, filename: string): unknown {
  if (error instanceof WorkerJobLimitError) {
    const time = error.budget === 'time';
    const spent = time
      ? `reading it took longer than ${error.max / 1000} s (${PARSE_BUDGET_NAMES.parseTimeoutMs})`
      : `reading it needed more than ${error.max} MiB of memory (${PARSE_BUDGET_NAMES.parseMemoryMb})`;
    return new DocumentLimitError(
      `Cannot index "${filename}": ${spent}, so it was stopped. It is too large or too complex for the RAG agent; split it, or upload its text.`,
      { filename, limit: time ? 'parseTimeoutMs' : 'parseMemoryMb', max: error.max, cause: error },
    );
  }
  if (error instanceof WorkerJobFailedError) {
    return new DocumentParseError(
      filename,
      `Cannot read "${filename}": its content could not be parsed.`,
      { cause: error, details: { reason: error.message.slice(0, 200) } },
    );
  }
  return error;
}

/**
 * The RAG agent's document reader: every upload is read on a worker thread of a pool
 * (`@fleet/worker-pool`), so parsing and chunking never block the agent's event loop (questions,
 * `/readyz` and other tenants' uploads keep answering), each read is bounded in time and heap
 * (its thread is terminated and replaced past them), and uploads wait in a queue served
 * round-robin between tenants, each with at most `maxRunningPerTenant` being read.
 *
 * @example
 * const reader = createDocumentReader({ workers: config.parseWorkers, timeoutMs: config.parseTimeoutMs });
 * const read = await reader.read({ tenant, filename, bytes, limits });
 */
export function createDocumentReader({
  workers = 2,
  timeoutMs = 60_000,
  maxMemoryMb = 1024,
  maxQueued = 32,
  maxRunningPerTenant = 1,
  idleTimeoutMs,
  logger,
}: CreateDocumentReaderOptions = {}): DocumentReader {
  const pool = createWorkerPool<ReadDocumentJobs>({
    // The built module next to this one: `.js` in dist/, the `.ts` source under jest.
    entry: join(__dirname, `read-document-worker${extname(__filename)}`),
    name: 'document reader',
    size: workers,
    timeoutMs,
    maxMemoryMb,
    maxQueued,
    maxRunningPerTenant,
    ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
    settingNames: {
      queue: 'RAG_PARSE_QUEUE_LENGTH',
      timeout: PARSE_BUDGET_NAMES.parseTimeoutMs,
      memory: PARSE_BUDGET_NAMES.parseMemoryMb,
    },
    logger,
  });
  return {
    async read({ tenant, signal, ...input }) {
      try {
        return await pool.run({ tenant, kind: 'read', payload: input, signal });
      } catch (error) {
        throw documentError(error, input.filename);
      }
    },
    stats: () => pool.stats(),
    close: () => pool.close(),
  };
}
