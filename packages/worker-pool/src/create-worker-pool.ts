import { Worker } from 'node:worker_threads';
import { AbortError, ServiceUnavailableError } from '@fleet/errors';
import { FairQueue } from './fair-queue';
import { reviveError, workerMessageSchema, type WorkerMessage } from './job-messages';
import type { JobHandlers, JobKind, JobPayload, JobResult } from './serve-jobs';
import { bootstrapData, WORKER_BOOTSTRAP } from './worker-bootstrap';
import { WorkerJobFailedError } from './worker-job-failed-error';
import { WorkerJobLimitError, type WorkerBudget } from './worker-job-limit-error';
import { WorkerPoolBusyError } from './worker-pool-busy-error';

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

/** Options for {@link createWorkerPool}. */
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

interface PendingJob {
  id: number;
  tenant: string;
  kind: string;
  payload: unknown;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  /** Terminated or exiting: it takes no job. */
  ending: boolean;
  job: { pending: PendingJob; timer: NodeJS.Timeout } | undefined;
  idleTimer: NodeJS.Timeout | undefined;
}

function positive(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new TypeError(`${name} must be a positive integer, got ${String(value)}`);
  }
  return value;
}

function describeMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/**
 * A pool of worker threads (`node:worker_threads`) that keeps heavy, input-driven work off the
 * service's event loop and bounds what one job may cost:
 *
 * - **time**: a job that runs past `timeoutMs` has its worker terminated (even in a tight
 *   synchronous loop) and fails with {@link WorkerJobLimitError}; the worker is replaced;
 * - **memory**: each worker has a V8 heap of `maxMemoryMb` (`resourceLimits`); a job that needs
 *   more kills only its worker, and fails with {@link WorkerJobLimitError};
 * - **queue**: at most `maxQueued` jobs wait, a tenant at most `maxQueuedPerTenant`; past that a
 *   job is refused at once with {@link WorkerPoolBusyError} (503, retryable, `Retry-After`);
 * - **fairness**: waiting jobs are served round-robin between tenants (a FIFO per tenant,
 *   {@link FairQueue}), and a tenant has at most `maxRunningPerTenant` running, so one tenant's
 *   monsters delay only that tenant.
 *
 * Workers start on demand, load the entry once, and end after `idleTimeoutMs` without work.
 *
 * @example
 * const pool = createWorkerPool<ParseJobs>({
 *   entry: join(__dirname, `parse-worker${extname(__filename)}`),
 *   name: 'document reader',
 *   timeoutMs: config.parseTimeoutMs,
 *   maxMemoryMb: config.parseMemoryMb,
 * });
 * const parsed = await pool.run({ tenant, kind: 'parse', payload: { filename, bytes } });
 */
export function createWorkerPool<THandlers extends JobHandlers>({
  entry,
  name = 'worker',
  size = 2,
  maxQueued = 32,
  maxQueuedPerTenant,
  maxRunningPerTenant = 1,
  timeoutMs = 60_000,
  maxMemoryMb = 512,
  idleTimeoutMs = 30_000,
  retryAfterSeconds = 5,
  settingNames = {},
  logger,
}: CreateWorkerPoolOptions): WorkerPool<THandlers> {
  positive('size', size);
  positive('timeoutMs', timeoutMs);
  positive('maxMemoryMb', maxMemoryMb);
  positive('idleTimeoutMs', idleTimeoutMs);
  const queue = new FairQueue<PendingJob>({
    maxQueued: positive('maxQueued', maxQueued),
    maxQueuedPerTenant: positive(
      'maxQueuedPerTenant',
      maxQueuedPerTenant ?? Math.ceil(maxQueued / 2),
    ),
    maxRunningPerTenant: positive('maxRunningPerTenant', maxRunningPerTenant),
  });
  const workerData = { fleetWorkerPool: bootstrapData(entry) };
  const slots = new Set<Slot>();
  let nextId = 1;
  let closed = false;

  const live = (): Slot[] => [...slots].filter((slot) => !slot.ending);

  function named(setting: string | undefined): string {
    return setting === undefined ? '' : ` (${setting})`;
  }

  function limitError(budget: WorkerBudget): WorkerJobLimitError {
    const max = budget === 'time' ? timeoutMs : maxMemoryMb;
    const limit = budget === 'time' ? settingNames.timeout : settingNames.memory;
    const message =
      budget === 'time'
        ? `The ${name} needed more than ${describeMs(timeoutMs)}${named(limit)}, so it was stopped.`
        : `The ${name} needed more than ${maxMemoryMb} MiB of memory${named(limit)}, so it was stopped.`;
    return new WorkerJobLimitError(message, { budget, max, limit });
  }

  /** Ends a slot's job: the tenant's turn is released and the worker may take the next. */
  function release(slot: Slot): PendingJob | undefined {
    const job = slot.job;
    if (job === undefined) return undefined;
    clearTimeout(job.timer);
    slot.job = undefined;
    queue.done(job.pending.tenant);
    if (job.pending.onAbort) job.pending.signal?.removeEventListener('abort', job.pending.onAbort);
    return job.pending;
  }

  /** Terminates a slot's worker (it is replaced on demand) and fails its job with `error`. */
  function stop(slot: Slot, error: unknown): void {
    slot.ending = true;
    clearTimeout(slot.idleTimer);
    const pending = release(slot);
    pending?.reject(error);
    void slot.worker.terminate().catch(() => undefined);
    dispatch();
  }

  function onMessage(slot: Slot, raw: unknown): void {
    const parsed = workerMessageSchema.safeParse(raw);
    if (!parsed.success) return;
    const message: WorkerMessage = parsed.data;
    if (message.type === 'ready') {
      slot.ready = true;
      dispatch();
      return;
    }
    if (slot.job?.pending.id !== message.id) return;
    const pending = release(slot);
    if (message.type === 'result') pending?.resolve(message.value);
    else pending?.reject(reviveError(message.error));
    dispatch();
  }

  function onError(slot: Slot, error: Error & { code?: string }): void {
    const job = slot.job;
    const outOfMemory = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
    if (job !== undefined) {
      logger?.warn(
        { tenant: job.pending.tenant, kind: job.pending.kind, err: error, outOfMemory },
        outOfMemory
          ? `a ${name} job ran out of its ${maxMemoryMb} MiB heap; its worker is replaced`
          : `a ${name} worker died running a job; it is replaced`,
      );
      stop(
        slot,
        outOfMemory
          ? limitError('memory')
          : new WorkerJobFailedError(`The ${name} failed unexpectedly: ${error.message}`, {
              cause: error,
            }),
      );
      return;
    }
    slot.ending = true;
    if (!slot.ready) {
      // The entry did not load: fail what waits rather than start workers that fail the same way.
      logger?.warn({ err: error, entry }, `a ${name} worker could not start`);
      for (const { item } of queue.drain()) {
        item.reject(
          new WorkerJobFailedError(`The ${name} could not start: ${error.message}`, {
            cause: error,
          }),
        );
      }
    }
  }

  function onExit(slot: Slot, code: number): void {
    slots.delete(slot);
    clearTimeout(slot.idleTimer);
    const pending = release(slot);
    pending?.reject(new WorkerJobFailedError(`The ${name} exited (code ${code}) during the job.`));
    dispatch();
  }

  function spawn(): void {
    const worker = new Worker(WORKER_BOOTSTRAP, {
      eval: true,
      workerData,
      name,
      resourceLimits: { maxOldGenerationSizeMb: maxMemoryMb },
    });
    const slot: Slot = {
      worker,
      ready: false,
      ending: false,
      job: undefined,
      idleTimer: undefined,
    };
    slots.add(slot);
    worker.on('message', (message: unknown) => onMessage(slot, message));
    worker.on('error', (error: Error) => onError(slot, error));
    worker.on('exit', (code) => onExit(slot, code));
  }

  function start(slot: Slot, pending: PendingJob): void {
    clearTimeout(slot.idleTimer);
    slot.idleTimer = undefined;
    const timer = setTimeout(() => {
      const job = slot.job;
      if (job?.pending !== pending) return;
      logger?.warn(
        { tenant: pending.tenant, kind: pending.kind, timeoutMs },
        `a ${name} job ran past its ${describeMs(timeoutMs)}; its worker is terminated and replaced`,
      );
      stop(slot, limitError('time'));
    }, timeoutMs);
    slot.job = { pending, timer };
    if (pending.onAbort) {
      pending.signal?.removeEventListener('abort', pending.onAbort);
    }
    pending.onAbort = () => {
      if (slot.job?.pending === pending) {
        stop(slot, new AbortError(`The ${name} job was cancelled.`));
      }
    };
    pending.signal?.addEventListener('abort', pending.onAbort, { once: true });
    slot.worker.postMessage({
      type: 'job',
      id: pending.id,
      kind: pending.kind,
      payload: pending.payload,
    });
  }

  function idle(slot: Slot): void {
    if (slot.idleTimer !== undefined) return;
    slot.idleTimer = setTimeout(() => {
      if (slot.job !== undefined || slot.ending) return;
      slot.ending = true;
      void slot.worker.terminate().catch(() => undefined);
    }, idleTimeoutMs);
    slot.idleTimer.unref();
  }

  function dispatch(): void {
    if (closed) return;
    for (const slot of live()) {
      if (!slot.ready || slot.job !== undefined) continue;
      const next = queue.take();
      if (next === undefined) {
        idle(slot);
        continue;
      }
      start(slot, next.item);
    }
    // Start workers for what waits, up to the pool's size.
    const available = live().filter((slot) => slot.job === undefined).length;
    for (let wanted = queue.size - available; wanted > 0 && live().length < size; wanted--) {
      spawn();
    }
  }

  function busy(tenant: string, scope: 'pool' | 'tenant'): WorkerPoolBusyError {
    const queued = scope === 'pool' ? queue.size : queue.queuedFor(tenant);
    const limit = scope === 'pool' ? maxQueued : (maxQueuedPerTenant ?? Math.ceil(maxQueued / 2));
    const message =
      scope === 'pool'
        ? `Every ${name} is busy and ${queued} jobs are waiting, the most there may be${named(settingNames.queue)}; try again in ${retryAfterSeconds} s.`
        : `${queued} of this tenant's jobs are already waiting for a ${name}, the most one tenant may have waiting${settingNames.queue === undefined ? '' : ` (half of ${settingNames.queue})`}; try again in ${retryAfterSeconds} s, when they are done.`;
    return new WorkerPoolBusyError(message, { scope, queued, limit, retryAfterSeconds });
  }

  return {
    run(job) {
      const { tenant, kind, payload, signal } = job;
      if (closed) {
        return Promise.reject(new ServiceUnavailableError(`The ${name} pool is shutting down.`));
      }
      if (signal?.aborted === true) {
        return Promise.reject(new AbortError(`The ${name} job was cancelled.`));
      }
      const refusal = queue.admit(tenant);
      // A full queue still lets a job through that a free worker can start right now (the
      // waiting jobs are all of tenants at their running cap).
      const startsNow =
        refusal === 'pool' &&
        queue.runningFor(tenant) < maxRunningPerTenant &&
        live().some((slot) => slot.ready && slot.job === undefined);
      if (refusal !== undefined && !startsNow) return Promise.reject(busy(tenant, refusal));
      return new Promise((resolve, reject) => {
        const pending: PendingJob = {
          id: nextId++,
          tenant,
          kind,
          payload,
          signal,
          onAbort: undefined,
          resolve: resolve,
          reject,
        };
        // While it waits, an abort takes it out of the queue.
        pending.onAbort = () => {
          if (queue.remove(tenant, pending)) {
            reject(new AbortError(`The ${name} job was cancelled.`));
          }
        };
        signal?.addEventListener('abort', pending.onAbort, { once: true });
        queue.push(tenant, pending);
        dispatch();
      });
    },
    stats() {
      return {
        workers: live().length,
        running: live().filter((slot) => slot.job !== undefined).length,
        queued: queue.size,
      };
    },
    async close() {
      closed = true;
      const closing = new ServiceUnavailableError(`The ${name} pool is shutting down.`);
      for (const { item } of queue.drain()) item.reject(closing);
      const exits = [...slots].map((slot) => {
        slot.ending = true;
        clearTimeout(slot.idleTimer);
        release(slot)?.reject(closing);
        return slot.worker.terminate().catch(() => undefined);
      });
      await Promise.all(exits);
    },
  };
}
