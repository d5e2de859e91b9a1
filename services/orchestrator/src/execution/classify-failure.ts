import type { Part, StepFailure } from '@fleet/a2a';
import { FleetError, type ErrorCode } from '@fleet/errors';

/** A failed attempt, as the executor decides what to do next. */
export interface ClassifiedFailure {
  /** Short, human-readable reason (no stack, no secrets). */
  message: string;
  /** Transient: worth another attempt, and counted by the agent's circuit breaker. */
  transient: boolean;
  /**
   * Whose failure it is once no attempt is left: `fleet` for a transient failure (the agent could
   * not be reached or did not answer in time), a refused token and anything that is not a fleet
   * error (a bug); `task` for a non-retryable answer the agent sent (a JSON-RPC error about the
   * request, such as an invalid request or an unknown task).
   */
  failure: StepFailure;
}

/** Codes that mean the fleet itself could not do the work, not that the task went wrong. */
const FLEET_FAILURE_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'UNAUTHENTICATED',
  'PERMISSION_DENIED',
  'INTERNAL',
  'UPSTREAM_ERROR',
  'UPSTREAM_UNREACHABLE',
  'UPSTREAM_STREAM_INTERRUPTED',
  'UPSTREAM_TIMEOUT',
  'CLIENT_CLOSED_REQUEST',
]);

/**
 * Decides whether an error thrown while calling an agent is transient. Transient means the agent
 * could not be reached or did not answer in time: connection errors, time-outs, HTTP 408/429/5xx
 * (`FleetError.isRetryable`, which the A2A client sets from the status). Anything else — a
 * JSON-RPC error such as an invalid request, an unknown task, a refused token — is the same on
 * every attempt and is not retried. A thrown error is the fleet's failure unless it is the
 * agent's own non-retryable answer about the request ({@link ClassifiedFailure.failure}).
 */
export function classifyFailure(error: unknown): ClassifiedFailure {
  if (FleetError.isInstance(error)) {
    // An abort by the caller (run canceled) is never retried; time-outs arrive as
    // UpstreamTimeoutError, which is retryable.
    const fleet = error.isRetryable || FLEET_FAILURE_CODES.has(error.code);
    return {
      message: error.message,
      transient: error.isRetryable,
      failure: fleet ? 'fleet' : 'task',
    };
  }
  if (error instanceof Error) {
    if (error.name === 'TimeoutError') {
      return { message: error.message, transient: true, failure: 'fleet' };
    }
    return { message: error.message || error.name, transient: false, failure: 'fleet' };
  }
  return { message: String(error), transient: false, failure: 'fleet' };
}

/**
 * Whose failure a task the agent itself ended FAILED is, from its status message: the fleet's when
 * the agent says trying again may help (`{ retryable: true }`) or its error data part
 * (`{ error: { code } }`, docs/agents.md) names a failure of the agent's own dependencies (its
 * model upstream erring, unreachable or silent; an internal error; a lost replica); otherwise the
 * task's — the agent's own answer about the work (a program that failed, nothing found, not
 * configured for it), written for people.
 *
 * @example
 * reportedFailure([{ text: 'No mailbox is configured: …' }]); // 'task'
 */
export function reportedFailure(parts: readonly Part[]): StepFailure {
  for (const part of parts) {
    if (typeof part.data !== 'object' || part.data === null) continue;
    const data = part.data as Record<string, unknown>;
    if (data['retryable'] === true) return 'fleet';
    const error = data['error'];
    if (typeof error !== 'object' || error === null) continue;
    const code = (error as Record<string, unknown>)['code'];
    if (typeof code === 'string' && FLEET_FAILURE_CODES.has(code as ErrorCode)) return 'fleet';
  }
  return 'task';
}
