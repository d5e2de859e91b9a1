import { PayloadTooLargeError, type FleetErrorOptions } from '@fleet/errors';

/** The budget a job ran out of: its time, or its worker's heap. */
export type WorkerBudget = 'time' | 'memory';

/** Options for {@link WorkerJobLimitError}. */
export interface WorkerJobLimitErrorOptions extends FleetErrorOptions {
  budget: WorkerBudget;
  /** The budget's value: milliseconds for `time`, MiB of heap for `memory`. */
  max: number;
  /** The setting that sets it (e.g. `RAG_PARSE_TIMEOUT_MS`), named in `details.limit`. */
  limit?: string | undefined;
}

/**
 * A job stopped because it went over its budget: its worker was terminated (and is replaced),
 * nothing of its work is kept. 413 `PAYLOAD_TOO_LARGE` (the input is too large or too complex to
 * read within the budget), not retryable; the details name the budget, its setting and value.
 */
export class WorkerJobLimitError extends PayloadTooLargeError {
  /** Which budget ran out. */
  readonly budget: WorkerBudget;
  /** Its value. */
  readonly max: number;

  constructor(
    message: string,
    { budget, max, limit, details, ...options }: WorkerJobLimitErrorOptions,
  ) {
    super(message, {
      ...options,
      retryable: false,
      details: { budget, max, ...(limit === undefined ? {} : { limit }), ...details },
    });
    this.budget = budget;
    this.max = max;
  }
}
