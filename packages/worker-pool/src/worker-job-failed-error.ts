import { InternalError, type FleetErrorOptions } from '@fleet/errors';

/**
 * A job whose worker failed in a way that is not the job's own typed error: it threw something
 * that is not a `FleetError`, or the thread died (its worker is replaced). 500; the message says
 * what happened, the cause (when there is one) is for the logs.
 */
export class WorkerJobFailedError extends InternalError {
  constructor(message: string, options: FleetErrorOptions = {}) {
    super(message, { retryable: false, ...options });
  }
}
