import type { Part, TaskState } from '../../../schemas/core';
import type { A2ALogger } from '../../handler-types';
import { dataPart, textPart } from '../../../schemas/helpers';
import type { TaskRecord, TaskStore } from '../../task-store';
import { agentMessage, withStatus } from '../task-updates';
import { CAS_ATTEMPTS } from './turn';

/** How long a running turn's lease lives without renewal (renewed every third of it). */
export const DEFAULT_TURN_LEASE_MS = 10_000;

/** The status text of a task whose replica stopped in the middle of its turn. */
export const LOST_TURN_MESSAGE =
  'The agent replica that was running this task stopped before it finished, so the task ends here. ' +
  'Anything the agent had already done may have taken effect; send a new message to try again.';

/**
 * The status message of a lost turn: the text, and the fleet's error data part saying it is a
 * failure of the fleet (a stopped replica), not of the task (docs/agents.md).
 */
function lostTurnParts(): Part[] {
  return [
    textPart(LOST_TURN_MESSAGE),
    dataPart({ error: { code: 'UPSTREAM_STREAM_INTERRUPTED', message: LOST_TURN_MESSAGE } }),
  ];
}

/** States in which a turn is running somewhere (not waiting for a message, not over). */
const RUNNING_STATES: ReadonlySet<TaskState> = new Set<TaskState>([
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
]);

/** Whether a task's record says a turn runs it. */
export function isRunningState(state: TaskState): boolean {
  return RUNNING_STATES.has(state);
}

/**
 * Holds the lease of a turn that runs here: set at once, renewed every third of `leaseMs`,
 * released when the turn ends. Other replicas read it to tell a turn that runs somewhere from one
 * whose replica died. A store without leases (one process) holds nothing.
 */
export function holdTurnLease(
  store: TaskStore,
  taskId: string,
  { leaseMs, logger }: { leaseMs: number; logger: A2ALogger | undefined },
): { release(): void } {
  if (store.holdTurn === undefined) return { release: () => undefined };
  const hold = (): void => {
    store.holdTurn?.(taskId, leaseMs).catch((error: unknown) => {
      logger?.warn({ taskId, err: error }, 'cannot renew the turn lease');
    });
  };
  hold();
  const timer = setInterval(hold, Math.max(1, Math.floor(leaseMs / 3)));
  timer.unref();
  return {
    release() {
      clearInterval(timer);
      store.releaseTurn?.(taskId).catch(() => undefined);
    },
  };
}

/**
 * What becomes of a task whose turn was lost (its replica died mid-turn):
 * - `fail`: `GetTask` and `SubscribeToTask` end it FAILED ({@link LOST_TURN_MESSAGE}). For agents
 *   whose turn lives only in the process running it: the agent may have acted, and nothing can
 *   carry the turn on.
 * - `take-over`: it is never failed for it. The agent keeps its work somewhere durable and can
 *   carry any turn on from there, so the task stays WORKING and a message sent to it (its
 *   `taskId`) starts a new turn on the replica that receives it: the take-over. Followers of the
 *   task see that turn's events as the rest of the task.
 */
export type LostTurnPolicy = 'fail' | 'take-over';

/** Options for {@link isTurnLost} and {@link failLostTurn}. */
export interface FailLostTurnOptions {
  store: TaskStore;
  /** Whether the turn runs on this replica (then it is not lost). */
  isRunningHere: (taskId: string) => boolean;
  leaseMs: number;
  now?: () => number;
}

/**
 * Whether the task in `record` has lost its turn: its record says a turn runs it, none runs here,
 * it has not changed for a whole lease (a turn that has just started may not hold its lease yet)
 * and its lease has lapsed. False for a store without leases (one process).
 */
export async function isTurnLost(
  record: TaskRecord,
  { store, isRunningHere, leaseMs, now = Date.now }: FailLostTurnOptions,
): Promise<boolean> {
  const { task } = record;
  if (store.turnHeld === undefined || isRunningHere(task.id)) return false;
  if (!isRunningState(task.status.state)) return false;
  const changedAt = Date.parse(task.status.timestamp ?? '');
  if (Number.isFinite(changedAt) && now() - changedAt < leaseMs) return false;
  return !(await store.turnHeld(task.id));
}

/** How {@link failLostTurn} ends a task. */
export interface LostTurnEnd {
  /** The status message. @default {@link LOST_TURN_MESSAGE}, with an error data part */
  message?: string | Part[] | undefined;
  /** The status update's metadata. */
  metadata?: Record<string, unknown> | undefined;
}

/**
 * Ends a task whose turn is lost ({@link isTurnLost}). It is marked FAILED (compare-and-set, so a
 * live writer wins) and the status is published, so followers on every replica see the end.
 * Returns the new record, or undefined when the task is not lost (or the store has no leases).
 */
export async function failLostTurn(
  taskId: string,
  options: FailLostTurnOptions & LostTurnEnd,
): Promise<TaskRecord | undefined> {
  const { store, message = lostTurnParts(), metadata } = options;
  if (store.turnHeld === undefined || options.isRunningHere(taskId)) return undefined;
  for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt += 1) {
    const current = await store.load(taskId);
    if (current === undefined || !(await isTurnLost(current, options))) return undefined;
    const task = withStatus(current.task, {
      state: 'TASK_STATE_FAILED',
      message: agentMessage(current.task, message),
    });
    const version = current.version + 1;
    if (await store.save({ task, version }, { expectedVersion: current.version })) {
      await store.publish(taskId, {
        type: 'event',
        version,
        event: {
          statusUpdate: {
            taskId,
            contextId: task.contextId,
            status: task.status,
            ...(metadata === undefined ? {} : { metadata }),
          },
        },
      });
      return { task, version };
    }
  }
  return undefined;
}
