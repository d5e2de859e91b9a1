import { ThreadPool } from './thread-pool';
import type { JobHandlers } from './serve-jobs';
import type { CreateWorkerPoolOptions, WorkerPool } from './worker-pool-types';

export type {
  CreateWorkerPoolOptions,
  WorkerJob,
  WorkerPool,
  WorkerPoolLogger,
  WorkerPoolSettingNames,
  WorkerPoolStats,
} from './worker-pool-types';

function positive(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new TypeError(`${name} must be a positive integer, got ${String(value)}`);
  }
  return value;
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
  return new ThreadPool<THandlers>({
    entry,
    name,
    size: positive('size', size),
    maxQueued: positive('maxQueued', maxQueued),
    maxQueuedPerTenant: positive(
      'maxQueuedPerTenant',
      maxQueuedPerTenant ?? Math.ceil(maxQueued / 2),
    ),
    maxRunningPerTenant: positive('maxRunningPerTenant', maxRunningPerTenant),
    timeoutMs: positive('timeoutMs', timeoutMs),
    maxMemoryMb: positive('maxMemoryMb', maxMemoryMb),
    idleTimeoutMs: positive('idleTimeoutMs', idleTimeoutMs),
    retryAfterSeconds,
    settingNames,
    logger,
  });
}
