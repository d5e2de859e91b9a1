import { Worker } from 'node:worker_threads';
import { AbortError, ServiceUnavailableError } from '@fleet/errors';
import { FairQueue } from './fair-queue';
import { reviveError, workerMessageSchema, type WorkerMessage } from './job-messages';
import type { JobHandlers, JobKind, JobResult } from './serve-jobs';
import { bootstrapData, WORKER_BOOTSTRAP } from './worker-bootstrap';
import { WorkerJobFailedError } from './worker-job-failed-error';
import { WorkerJobLimitError, type WorkerBudget } from './worker-job-limit-error';
import { WorkerPoolBusyError } from './worker-pool-busy-error';
import type {
  WorkerJob,
  WorkerPool,
  WorkerPoolLogger,
  WorkerPoolSettingNames,
  WorkerPoolStats,
} from './worker-pool-types';

/** A pool's settings, checked and with their defaults applied. */
export interface ThreadPoolSettings {
  entry: string;
  name: string;
  size: number;
  maxQueued: number;
  maxQueuedPerTenant: number;
  maxRunningPerTenant: number;
  timeoutMs: number;
  maxMemoryMb: number;
  idleTimeoutMs: number;
  retryAfterSeconds: number;
  settingNames: WorkerPoolSettingNames;
  logger: WorkerPoolLogger | undefined;
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

function describeMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** ` (SETTING_NAME)` after a budget in a message, when the setting is known. */
function named(setting: string | undefined): string {
  return setting === undefined ? '' : ` (${setting})`;
}

/**
 * The pool `createWorkerPool` returns: worker threads in slots, each running one job at a time,
 * fed from a {@link FairQueue}. A slot's worker is terminated past a job's time, dies past its
 * heap, and ends after `idleTimeoutMs` without work; workers start on demand.
 */
export class ThreadPool<THandlers extends JobHandlers> implements WorkerPool<THandlers> {
  private readonly queue: FairQueue<PendingJob>;
  private readonly workerData: { fleetWorkerPool: unknown };
  private readonly slots = new Set<Slot>();
  private nextId = 1;
  private closed = false;

  constructor(private readonly settings: ThreadPoolSettings) {
    this.queue = new FairQueue<PendingJob>({
      maxQueued: settings.maxQueued,
      maxQueuedPerTenant: settings.maxQueuedPerTenant,
      maxRunningPerTenant: settings.maxRunningPerTenant,
    });
    this.workerData = { fleetWorkerPool: bootstrapData(settings.entry) };
  }

  run<TKind extends JobKind<THandlers>>(
    job: WorkerJob<THandlers, TKind>,
  ): Promise<JobResult<THandlers, TKind>> {
    const { tenant, kind, payload, signal } = job;
    const { name } = this.settings;
    if (this.closed) {
      return Promise.reject(new ServiceUnavailableError(`The ${name} pool is shutting down.`));
    }
    if (signal?.aborted === true) {
      return Promise.reject(new AbortError(`The ${name} job was cancelled.`));
    }
    const refusal = this.queue.admit(tenant);
    // A full queue still lets a job through that a free worker can start right now (the
    // waiting jobs are all of tenants at their running cap).
    const startsNow =
      refusal === 'pool' &&
      this.queue.runningFor(tenant) < this.settings.maxRunningPerTenant &&
      this.live().some((slot) => slot.ready && slot.job === undefined);
    if (refusal !== undefined && !startsNow) return Promise.reject(this.busy(tenant, refusal));
    return new Promise((resolve, reject) => {
      const pending: PendingJob = {
        id: this.nextId++,
        tenant,
        kind,
        payload,
        signal,
        onAbort: undefined,
        resolve,
        reject,
      };
      // While it waits, an abort takes it out of the queue.
      pending.onAbort = () => {
        if (this.queue.remove(tenant, pending)) {
          reject(new AbortError(`The ${name} job was cancelled.`));
        }
      };
      signal?.addEventListener('abort', pending.onAbort, { once: true });
      this.queue.push(tenant, pending);
      this.dispatch();
    });
  }

  stats(): WorkerPoolStats {
    return {
      workers: this.live().length,
      running: this.live().filter((slot) => slot.job !== undefined).length,
      queued: this.queue.size,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    const closing = new ServiceUnavailableError(`The ${this.settings.name} pool is shutting down.`);
    for (const { item } of this.queue.drain()) item.reject(closing);
    const exits = [...this.slots].map((slot) => {
      slot.ending = true;
      clearTimeout(slot.idleTimer);
      this.release(slot)?.reject(closing);
      return slot.worker.terminate().catch(() => undefined);
    });
    await Promise.all(exits);
  }

  private live(): Slot[] {
    return [...this.slots].filter((slot) => !slot.ending);
  }

  private limitError(budget: WorkerBudget): WorkerJobLimitError {
    const { name, timeoutMs, maxMemoryMb, settingNames } = this.settings;
    const max = budget === 'time' ? timeoutMs : maxMemoryMb;
    const limit = budget === 'time' ? settingNames.timeout : settingNames.memory;
    const message =
      budget === 'time'
        ? `The ${name} needed more than ${describeMs(timeoutMs)}${named(limit)}, so it was stopped.`
        : `The ${name} needed more than ${maxMemoryMb} MiB of memory${named(limit)}, so it was stopped.`;
    return new WorkerJobLimitError(message, { budget, max, limit });
  }

  private busy(tenant: string, scope: 'pool' | 'tenant'): WorkerPoolBusyError {
    const { name, maxQueued, maxQueuedPerTenant, retryAfterSeconds, settingNames } = this.settings;
    const queued = scope === 'pool' ? this.queue.size : this.queue.queuedFor(tenant);
    const limit = scope === 'pool' ? maxQueued : maxQueuedPerTenant;
    const message =
      scope === 'pool'
        ? `Every ${name} is busy and ${queued} jobs are waiting, the most there may be${named(settingNames.queue)}; try again in ${retryAfterSeconds} s.`
        : `${queued} of this tenant's jobs are already waiting for a ${name}, the most one tenant may have waiting${settingNames.queue === undefined ? '' : ` (half of ${settingNames.queue})`}; try again in ${retryAfterSeconds} s, when they are done.`;
    return new WorkerPoolBusyError(message, { scope, queued, limit, retryAfterSeconds });
  }

  /** Ends a slot's job: the tenant's turn is released and the worker may take the next. */
  private release(slot: Slot): PendingJob | undefined {
    const job = slot.job;
    if (job === undefined) return undefined;
    clearTimeout(job.timer);
    slot.job = undefined;
    this.queue.done(job.pending.tenant);
    if (job.pending.onAbort) job.pending.signal?.removeEventListener('abort', job.pending.onAbort);
    return job.pending;
  }

  /** Terminates a slot's worker (it is replaced on demand) and fails its job with `error`. */
  private stop(slot: Slot, error: unknown): void {
    slot.ending = true;
    clearTimeout(slot.idleTimer);
    const pending = this.release(slot);
    pending?.reject(error);
    void slot.worker.terminate().catch(() => undefined);
    this.dispatch();
  }

  private onMessage(slot: Slot, raw: unknown): void {
    const parsed = workerMessageSchema.safeParse(raw);
    if (!parsed.success) return;
    const message: WorkerMessage = parsed.data;
    if (message.type === 'ready') {
      slot.ready = true;
      this.dispatch();
      return;
    }
    if (slot.job?.pending.id !== message.id) return;
    const pending = this.release(slot);
    if (message.type === 'result') pending?.resolve(message.value);
    else pending?.reject(reviveError(message.error));
    this.dispatch();
  }

  private onError(slot: Slot, error: Error & { code?: string }): void {
    const { name, maxMemoryMb, logger, entry } = this.settings;
    const job = slot.job;
    const outOfMemory = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
    if (job !== undefined) {
      logger?.warn(
        { tenant: job.pending.tenant, kind: job.pending.kind, err: error, outOfMemory },
        outOfMemory
          ? `a ${name} job ran out of its ${maxMemoryMb} MiB heap; its worker is replaced`
          : `a ${name} worker died running a job; it is replaced`,
      );
      this.stop(
        slot,
        outOfMemory
          ? this.limitError('memory')
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
      for (const { item } of this.queue.drain()) {
        item.reject(
          new WorkerJobFailedError(`The ${name} could not start: ${error.message}`, {
            cause: error,
          }),
        );
      }
    }
  }

  private onExit(slot: Slot, code: number): void {
    this.slots.delete(slot);
    clearTimeout(slot.idleTimer);
    const pending = this.release(slot);
    pending?.reject(
      new WorkerJobFailedError(`The ${this.settings.name} exited (code ${code}) during the job.`),
    );
    this.dispatch();
  }

  private spawn(): void {
    const { name, maxMemoryMb } = this.settings;
    const worker = new Worker(WORKER_BOOTSTRAP, {
      eval: true,
      workerData: this.workerData,
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
    this.slots.add(slot);
    worker.on('message', (message: unknown) => this.onMessage(slot, message));
    worker.on('error', (error: Error) => this.onError(slot, error));
    worker.on('exit', (code) => this.onExit(slot, code));
  }

  private start(slot: Slot, pending: PendingJob): void {
    const { name, timeoutMs, logger } = this.settings;
    clearTimeout(slot.idleTimer);
    slot.idleTimer = undefined;
    const timer = setTimeout(() => {
      if (slot.job?.pending !== pending) return;
      logger?.warn(
        { tenant: pending.tenant, kind: pending.kind, timeoutMs },
        `a ${name} job ran past its ${describeMs(timeoutMs)}; its worker is terminated and replaced`,
      );
      this.stop(slot, this.limitError('time'));
    }, timeoutMs);
    slot.job = { pending, timer };
    if (pending.onAbort) pending.signal?.removeEventListener('abort', pending.onAbort);
    pending.onAbort = () => {
      if (slot.job?.pending === pending) {
        this.stop(slot, new AbortError(`The ${name} job was cancelled.`));
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

  private idle(slot: Slot): void {
    if (slot.idleTimer !== undefined) return;
    slot.idleTimer = setTimeout(() => {
      if (slot.job !== undefined || slot.ending) return;
      slot.ending = true;
      void slot.worker.terminate().catch(() => undefined);
    }, this.settings.idleTimeoutMs);
    slot.idleTimer.unref();
  }

  private dispatch(): void {
    if (this.closed) return;
    for (const slot of this.live()) {
      if (!slot.ready || slot.job !== undefined) continue;
      const next = this.queue.take();
      if (next === undefined) {
        this.idle(slot);
        continue;
      }
      this.start(slot, next.item);
    }
    // Start workers for what waits, up to the pool's size.
    const available = this.live().filter((slot) => slot.job === undefined).length;
    for (
      let wanted = this.queue.size - available;
      wanted > 0 && this.live().length < this.settings.size;
      wanted--
    ) {
      this.spawn();
    }
  }
}
