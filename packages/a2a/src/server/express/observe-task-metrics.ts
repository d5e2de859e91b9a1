import { Gauge, Histogram, type Registry } from 'prom-client';
import type { TaskState } from '../../schemas/core';
import type { A2AHandler } from '../handler-types';

/** Options for {@link observeTaskMetrics}. */
export interface ObserveTaskMetricsOptions {
  /** The handler whose turns are measured; its card's name is the `agent` label. */
  handler: A2AHandler;
  /** The service's registry (`createMetrics(...).registry`), served at `/metrics`. */
  registry: Registry;
}

/** Turn durations in seconds: quick lookups up to a long agent run. */
const DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900];

/** `TASK_STATE_INPUT_REQUIRED` → `input_required`: the `state` label (eight values at most). */
export function taskStateLabel(state: TaskState): string {
  return state.replace(/^TASK_STATE_/, '').toLowerCase();
}

/**
 * Adds the A2A server metrics of docs/operations.md to `registry`, fed by the handler's turns on
 * this replica:
 * - `a2a_tasks_in_flight{agent}` (gauge): turns running now — the load an agent replica carries;
 * - `a2a_task_duration_seconds{agent,state}` (histogram): each turn from its message to the
 *   state it stopped in (`completed`, `failed`, `canceled`, `rejected`, or interrupted:
 *   `input_required`, `auth_required`); `_count` counts turns by outcome.
 *
 * Returns the removal of the observer. A handler without `observeTurns` reports no turns.
 *
 * @example
 * const metrics = createMetrics({ serviceName: 'web-agent' });
 * observeTaskMetrics({ handler, registry: metrics.registry });
 */
export function observeTaskMetrics({ handler, registry }: ObserveTaskMetricsOptions): () => void {
  const agent = handler.card.name;
  const inFlight = new Gauge({
    name: 'a2a_tasks_in_flight',
    help: 'A2A task turns running on this replica, by agent.',
    labelNames: ['agent'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'a2a_task_duration_seconds',
    help: 'A2A task turns on this replica, from the message to the state they stopped in (terminal or interrupted), by agent and state.',
    labelNames: ['agent', 'state'],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  // Present from the first scrape (0), so `rate()` and absence alerts work before any task.
  const running = inFlight.labels({ agent });
  running.set(0);
  return (
    handler.observeTurns?.({
      started: () => running.inc(),
      ended: ({ state, seconds }) => {
        running.dec();
        duration.labels({ agent, state: taskStateLabel(state) }).observe(seconds);
      },
    }) ?? (() => undefined)
  );
}
