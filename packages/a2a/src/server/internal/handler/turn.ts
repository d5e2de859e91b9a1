import type { StreamResponse, TaskState } from '../../../schemas/core';
import type { TaskRecord } from '../../task-store';
import type { AsyncQueue } from '../async-queue';

/** Why a turn was stopped before its agent finished. */
export type AbortCause = 'cancel' | 'disconnect' | 'shutdown';

/** One turn of a task running on this replica. */
export interface Turn {
  readonly taskId: string;
  readonly controller: AbortController;
  abortCause: AbortCause | undefined;
  record: TaskRecord;
  /** The events for the caller that started the turn (streaming), if any. */
  readonly queue: AsyncQueue<StreamResponse> | undefined;
  failure: Error | undefined;
  done: Promise<void>;
}

/** The status a stopped turn leaves its task in, by cause. */
export const ABORT_STATUS: Record<AbortCause, { state: TaskState; message: string }> = {
  cancel: { state: 'TASK_STATE_CANCELED', message: 'The task was canceled.' },
  disconnect: {
    state: 'TASK_STATE_CANCELED',
    message: 'The task was canceled: the client that started it went away.',
  },
  shutdown: {
    state: 'TASK_STATE_FAILED',
    message: 'The agent shut down before the task finished.',
  },
};

/** How many times a compare-and-set of a task record is tried before giving up. */
export const CAS_ATTEMPTS = 5;

/** Stops a turn (the first cause wins): its agent's signal aborts. */
export function abortTurn(turn: Turn, cause: AbortCause): void {
  if (turn.controller.signal.aborted) return;
  turn.abortCause = cause;
  turn.controller.abort(new Error(ABORT_STATUS[cause].message));
}
