/** Worker threads for heavy, input-driven work: time and memory budgets, a fair bounded queue, typed errors. */
export { createWorkerPool } from './create-worker-pool';
export type {
  CreateWorkerPoolOptions,
  WorkerJob,
  WorkerPool,
  WorkerPoolLogger,
  WorkerPoolSettingNames,
  WorkerPoolStats,
} from './create-worker-pool';
export { FairQueue } from './fair-queue';
export { htmlNestsDeeperThan } from './html-nesting-depth';
export type { FairQueueOptions, QueueRefusal } from './fair-queue';
export { serveJobs } from './serve-jobs';
export type { JobHandlers, JobKind, JobPayload, JobResult } from './serve-jobs';
export { WorkerJobFailedError } from './worker-job-failed-error';
export { WorkerJobLimitError } from './worker-job-limit-error';
export type { WorkerBudget, WorkerJobLimitErrorOptions } from './worker-job-limit-error';
export { WorkerPoolBusyError } from './worker-pool-busy-error';
export type { WorkerPoolBusyErrorOptions } from './worker-pool-busy-error';
