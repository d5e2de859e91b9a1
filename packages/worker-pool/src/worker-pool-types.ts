import type { JobHandlers, JobKind, JobPayload, JobResult } from './serve-jobs';

/** The settings (environment variables) that set a pool's budgets, named in its errors. */
export interface WorkerPoolSettingNames {
  /** Sets `maxQueued`, e.g. `RAG_PARSE_QUEUE_LENGTH`. */
  queue?: string;
  /** Sets `timeoutMs`, e.g. `RAG_PARSE_TIMEOUT_MS`. */
  timeout?: string;
  /** Sets `maxMemoryMb`, e.g. `RAG_PARSE_MEMORY_MB`. */
  memory?: string;
}

/** Logging the pool does: a job stopped over its budget, a worker that died. */
export interface WorkerPoolLogger {
  warn(object: object, message?: string): void;
}

/** Options for `createWorkerPool`. */
export interface CreateWorkerPoolOptions {
  /**
   * Absolute path of the module each worker loads; it calls `serveJobs(handlers)`. A built
   * service passes its `.js` file; under jest the same expression yields the `.ts` source, which
   * the worker transpiles as it loads (see `WORKER_BOOTSTRAP`).
   */
  entry: string;
  /** What a worker is, in messages ("document reader"). @default 'worker' */
  name?: string;
  /** Worker threads at most; each runs one job at a time. @default 2 */
  size?: number;
  /** Jobs waiting in all; one more is refused with {@link WorkerPoolBusyError}. @default 32 */
  maxQueued?: number;
  /** Jobs one tenant may have waiting. @default half of `maxQueued`, rounded up */
  maxQueuedPerTenant?: number;
  /** Jobs of one tenant running at once; its other jobs wait their turn. @default 1 */
  maxRunningPerTenant?: number;
  /** Time one job may run; its worker is terminated past it. @default 60000 */
  timeoutMs?: number;
  /** Heap of each worker thread (V8 old generation), in MiB. @default 512 */
  maxMemoryMb?: number;
  /** A worker idle this long is ended, giving its memory back; the next job starts another. @default 30000 */
  idleTimeoutMs?: number;
  /** `Retry-After` of a refused job, in seconds. @default 5 */
  retryAfterSeconds?: number;
  settingNames?: WorkerPoolSettingNames;
  logger?: WorkerPoolLogger | undefined;
}

/** One job for {@link WorkerPool.run}. */
export interface WorkerJob<THandlers extends JobHandlers, TKind extends JobKind<THandlers>> {
  /** Whose work it is: jobs are served round-robin between tenants, each capped. */
  tenant: string;
  kind: TKind;
  /** Structured-cloned into the worker. */
  payload: JobPayload<THandlers, TKind>;
  /** Aborting removes a waiting job, or terminates the worker running it; the job rejects with `AbortError`. */
  signal?: AbortSignal | undefined;
}

/** What a pool is doing. */
export interface WorkerPoolStats {
  /** Worker threads alive (starting, idle or busy). */
  workers: number;
  /** Jobs running. */
  running: number;
  /** Jobs waiting. */
  queued: number;
}

/** A pool of worker threads for heavy, input-driven work. */
export interface WorkerPool<THandlers extends JobHandlers> {
  /**
   * Runs one job in a worker thread, when the tenant's turn comes.
   *
   * @throws {@link WorkerPoolBusyError} (503, retryable) at once when the queue or the tenant's
   *   share of it is full; {@link WorkerJobLimitError} (413) when the job ran past its time or its
   *   worker past its heap (the worker is terminated and replaced); the job's own typed error;
   *   {@link WorkerJobFailedError} (500) when the worker died otherwise; `AbortError` when the
   *   signal aborted; ServiceUnavailableError once the pool is closed.
   */
  run<TKind extends JobKind<THandlers>>(
    job: WorkerJob<THandlers, TKind>,
  ): Promise<JobResult<THandlers, TKind>>;
  stats(): WorkerPoolStats;
  /** Refuses new jobs, fails waiting and running ones, and terminates every worker. */
  close(): Promise<void>;
}
