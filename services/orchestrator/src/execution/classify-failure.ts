import { FleetError } from '@fleet/errors';

/** A failed attempt, as the executor decides what to do next. */
export interface ClassifiedFailure {
  /** Short, human-readable reason (no stack, no secrets). */
  message: string;
  /** Transient: worth another attempt, and counted by the agent's circuit breaker. */
  transient: boolean;
}

/**
 * Decides whether an error thrown while calling an agent is transient. Transient means the agent
 * could not be reached or did not answer in time: connection errors, time-outs, HTTP 408/429/5xx
 * (`FleetError.isRetryable`, which the A2A client sets from the status). Anything else — a
 * JSON-RPC error such as an invalid request, an unknown task, a refused token — is the same on
 * every attempt and is not retried.
 */
export function classifyFailure(error: unknown): ClassifiedFailure {
  if (FleetError.isInstance(error)) {
    // An abort by the caller (run canceled) is never retried; time-outs arrive as
    // UpstreamTimeoutError, which is retryable.
    return { message: error.message, transient: error.isRetryable };
  }
  if (error instanceof Error) {
    if (error.name === 'TimeoutError') return { message: error.message, transient: true };
    return { message: error.message || error.name, transient: false };
  }
  return { message: String(error), transient: false };
}
