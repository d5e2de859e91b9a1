import type { Part } from '../schemas/core';
import { DEFAULT_TURN_LEASE_MS, failLostTurn } from './internal/handler/turn-lease';
import type { TaskRecord, TaskStore } from './task-store';

/** Options for {@link endLostTurn}. */
export interface EndLostTurnOptions {
  store: TaskStore;
  taskId: string;
  /** The status message of the FAILED status. */
  message: string | Part[];
  /** The status update's metadata. */
  metadata?: Record<string, unknown> | undefined;
  /** The turn lease of the agent's handler. @default 10000 */
  leaseMs?: number | undefined;
}

/**
 * Ends a task whose turn was lost (its replica died mid-turn: no live lease, unchanged for a whole
 * lease) with a FAILED status of the caller's words, compare-and-set and published like the
 * handler's own ending of lost turns. For an agent that takes lost turns over
 * (`lostTurns: 'take-over'`) and has carried a task's work on under another task: the old one
 * must not stay WORKING for ever. Returns the ended record, or undefined when the task was not
 * lost (a live turn runs it, it changed within a lease, it ended, or it is gone).
 *
 * @example
 * await endLostTurn({ store, taskId: old, message: 'Carried on under task X.', metadata: { handedOver: true } });
 */
export function endLostTurn({
  store,
  taskId,
  message,
  metadata,
  leaseMs = DEFAULT_TURN_LEASE_MS,
}: EndLostTurnOptions): Promise<TaskRecord | undefined> {
  return failLostTurn(taskId, {
    store,
    isRunningHere: () => false,
    leaseMs,
    message,
    ...(metadata === undefined ? {} : { metadata }),
  });
}
