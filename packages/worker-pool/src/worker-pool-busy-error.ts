import { ServiceUnavailableError, type FleetErrorOptions } from '@fleet/errors';
import type { QueueRefusal } from './fair-queue';

/** Options for {@link WorkerPoolBusyError}. */
export interface WorkerPoolBusyErrorOptions extends FleetErrorOptions {
  /** Which bound was full: the whole queue, or the tenant's share of it. */
  scope: QueueRefusal;
  /** Jobs waiting in that scope. */
  queued: number;
  /** The bound. */
  limit: number;
  /** Seconds to wait before trying again (`Retry-After`). */
  retryAfterSeconds: number;
}

/**
 * A job refused because the pool's queue (or the tenant's share of it) is full: 503
 * `SERVICE_UNAVAILABLE`, retryable, with `retryAfterSeconds` (sent as `Retry-After`, and as
 * `details.retryAfterSeconds` in an A2A task's error data part). Nothing was started.
 */
export class WorkerPoolBusyError extends ServiceUnavailableError {
  /** Which bound was full. */
  readonly scope: QueueRefusal;

  constructor(
    message: string,
    { scope, queued, limit, retryAfterSeconds, details, ...options }: WorkerPoolBusyErrorOptions,
  ) {
    super(message, {
      ...options,
      retryable: true,
      retryAfterSeconds,
      details: { reason: 'busy', scope, queued, limit, retryAfterSeconds, ...details },
    });
    this.scope = scope;
  }
}
