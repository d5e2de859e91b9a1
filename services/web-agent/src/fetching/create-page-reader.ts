import { extname, join } from 'node:path';
import {
  createWorkerPool,
  WorkerJobFailedError,
  WorkerJobLimitError,
  type WorkerPoolLogger,
  type WorkerPoolStats,
} from '@fleet/worker-pool';
import { ValidationError } from '@fleet/errors';
import {
  extractReadableText,
  type ExtractReadableTextOptions,
  type ReadableText,
} from './extract-readable-text';
import { PageLimitError } from './page-limit-error';
import type { ReadPageJobs } from './read-page-worker';

/** One fetched page to read, and whose it is. */
export interface PageReadRequest extends Pick<
  ExtractReadableTextOptions,
  'body' | 'mediaType' | 'url'
> {
  /** The tenant asking: pages are read fairly between tenants. */
  tenant: string;
  signal?: AbortSignal | undefined;
}

/** Extracts fetched pages' readable text ({@link extractReadableText}). */
export interface PageReader {
  /**
   * @throws {@link PageLimitError} (413) for a page nested too deep, or whose reading ran past
   *   WEB_READ_TIMEOUT_MS or WEB_READ_MEMORY_MB; `WorkerPoolBusyError` (503, retryable) when too
   *   many pages wait to be read.
   */
  read(request: PageReadRequest): Promise<ReadableText>;
  /** Reading threads alive, pages being read and waiting. */
  stats(): WorkerPoolStats;
  /** Stops the worker threads (on shutdown). */
  close(): Promise<void>;
}

/** Options for {@link createPageReader} and {@link inProcessPageReader}. */
export interface CreatePageReaderOptions {
  /** Worker threads (WEB_READ_WORKERS). @default 2 */
  workers?: number;
  /** Time to read one page (WEB_READ_TIMEOUT_MS). @default 10000 */
  timeoutMs?: number;
  /** Heap of each worker thread, MiB (WEB_READ_MEMORY_MB). @default 256 */
  maxMemoryMb?: number;
  /** Pages waiting, every tenant together (WEB_READ_QUEUE_LENGTH). @default 32 */
  maxQueued?: number;
  /** Pages of one tenant read at once (WEB_READ_TENANT_CONCURRENCY). @default 1 */
  maxRunningPerTenant?: number;
  /** Nesting refused before parsing (WEB_READ_MAX_NESTING_DEPTH). @default 150 */
  maxNestingDepth?: number;
  /** A worker idle this long ends, giving its memory back. @default 30000 */
  idleTimeoutMs?: number;
  logger?: WorkerPoolLogger | undefined;
}

/**
 * Reads on the calling thread, without time or memory budgets (the nesting limit still holds):
 * for tests and tools. The service reads through {@link createPageReader}.
 */
export function inProcessPageReader({
  maxNestingDepth,
}: Pick<CreatePageReaderOptions, 'maxNestingDepth'> = {}): PageReader {
  return {
    read: ({ tenant: _tenant, signal: _signal, ...page }) =>
      Promise.resolve(
        extractReadableText({
          ...page,
          ...(maxNestingDepth === undefined ? {} : { maxNestingDepth }),
        }),
      ),
    stats: () => ({ workers: 0, running: 0, queued: 0 }),
    close: () => Promise.resolve(),
  };
}

/** A pool failure said in terms of the page. */
function pageError(error: unknown, url: string): unknown {
  if (error instanceof WorkerJobLimitError) {
    const time = error.budget === 'time';
    return new PageLimitError({
      url,
      limit: time ? 'timeoutMs' : 'maxMemoryMb',
      max: error.max,
      reason: time
        ? `extracting its text took longer than ${error.max / 1000} s, so it was stopped`
        : `extracting its text needed more than ${error.max} MiB of memory, so it was stopped`,
      cause: error,
    });
  }
  if (error instanceof WorkerJobFailedError) {
    return new ValidationError(`Could not read ${url}: its content could not be parsed.`, {
      cause: error,
      details: { url },
    });
  }
  return error;
}

/**
 * The web agent's page reader: every fetched page's readable text is extracted on a worker thread
 * of a pool (`@fleet/worker-pool`), so Readability and linkedom never block the agent's event loop
 * (other tasks keep answering), each page is bounded in time and heap (its thread is terminated
 * and replaced past them), and pages wait in a queue served round-robin between tenants. A page
 * nested deeper than `maxNestingDepth` is refused before a DOM is built.
 *
 * @example
 * const pageReader = createPageReader({ workers: config.readWorkers, timeoutMs: config.readTimeoutMs });
 * const readable = await pageReader.read({ tenant, body: page.body, mediaType: page.mediaType, url: page.finalUrl });
 */
export function createPageReader({
  workers = 2,
  timeoutMs = 10_000,
  maxMemoryMb = 256,
  maxQueued = 32,
  maxRunningPerTenant = 1,
  maxNestingDepth,
  idleTimeoutMs,
  logger,
}: CreatePageReaderOptions = {}): PageReader {
  const pool = createWorkerPool<ReadPageJobs>({
    // The built module next to this one: `.js` in dist/, the `.ts` source under jest.
    entry: join(__dirname, `read-page-worker${extname(__filename)}`),
    name: 'page reader',
    size: workers,
    timeoutMs,
    maxMemoryMb,
    maxQueued,
    maxRunningPerTenant,
    ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
    settingNames: {
      queue: 'WEB_READ_QUEUE_LENGTH',
      timeout: 'WEB_READ_TIMEOUT_MS',
      memory: 'WEB_READ_MEMORY_MB',
    },
    logger,
  });
  return {
    async read({ tenant, signal, ...page }) {
      try {
        return await pool.run({
          tenant,
          kind: 'extract',
          payload: { ...page, ...(maxNestingDepth === undefined ? {} : { maxNestingDepth }) },
          signal,
        });
      } catch (error) {
        throw pageError(error, page.url);
      }
    },
    stats: () => pool.stats(),
    close: () => pool.close(),
  };
}
