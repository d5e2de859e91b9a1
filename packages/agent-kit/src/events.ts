import { dataPart, RESULT_ARTIFACT_NAME, textPart, type Part } from '@fleet/a2a';
import type { AgentEvent } from '@fleet/a2a/server';
import { toFleetError } from '@fleet/errors';
import { errorData } from './error-data';

/** What an agent's execute function yields. */
export type AgentEvents = AsyncGenerator<AgentEvent, void, undefined>;

/** A WORKING status: what the agent is doing now (a progress line for the person), if it says. */
export function working(message?: string | Part[]): AgentEvent {
  return {
    type: 'status',
    state: 'TASK_STATE_WORKING',
    ...(message === undefined ? {} : { message }),
  };
}

/** The COMPLETED status, with a one-line summary of what was done. */
export function completed(message: string | Part[]): AgentEvent {
  return { type: 'status', state: 'TASK_STATE_COMPLETED', message };
}

/**
 * A REJECTED status: the request is not one this agent takes (empty, malformed, out of scope).
 * `data`, when given, travels as a data part beside the reason.
 */
export function rejected(reason: string, data?: unknown): AgentEvent {
  return {
    type: 'status',
    state: 'TASK_STATE_REJECTED',
    message: data === undefined ? reason : [textPart(reason), dataPart(data)],
  };
}

/** Options for {@link failed} and {@link refused}. */
export interface ErrorStatusOptions {
  /** Fields beside `error` in the data part, e.g. `{ code: 'print("hi")' }`. */
  extra?: Record<string, unknown>;
}

function errorStatus(
  state: 'TASK_STATE_FAILED' | 'TASK_STATE_REJECTED',
  error: unknown,
  { extra }: ErrorStatusOptions,
): AgentEvent {
  const fleetError = toFleetError(error);
  return {
    type: 'status',
    state,
    message: [textPart(fleetError.message), dataPart({ ...errorData(fleetError), ...extra })],
  };
}

/**
 * A FAILED status for any error: its message as text and the one error data part
 * (`{ error: { code, message, details? } }`, {@link errorData}), from which the gateway picks the
 * HTTP status and the orchestrator whether to retry.
 *
 * @example
 * try { … } catch (error) { if (context.signal.aborted) throw error; yield failed(error); }
 */
export function failed(error: unknown, options: ErrorStatusOptions = {}): AgentEvent {
  return errorStatus('TASK_STATE_FAILED', error, options);
}

/** A REJECTED status carrying an error the same way {@link failed} does (a refusal with a code). */
export function refused(error: unknown, options: ErrorStatusOptions = {}): AgentEvent {
  return errorStatus('TASK_STATE_REJECTED', error, options);
}

/**
 * The task's `result` artifact, in one chunk: the answer as text and, when given, the agent's
 * structured data beside it (the orchestrator passes the text on to later steps).
 */
export function result(text: string, data?: unknown, extraParts: readonly Part[] = []): AgentEvent {
  return {
    type: 'artifact',
    artifact: {
      name: RESULT_ARTIFACT_NAME,
      parts: [textPart(text), ...(data === undefined ? [] : [dataPart(data)]), ...extraParts],
    },
    lastChunk: true,
  };
}

/** `1 source`, `3 sources`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
