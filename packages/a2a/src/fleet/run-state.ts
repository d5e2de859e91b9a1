import type { NodeState, RunState, StepFailure } from './conventions';

/** A step's end as {@link runState} and {@link isFleetFailure} read it. */
export interface StepEnd {
  state: NodeState;
  /** Set on a failed step; absent counts as `task` (the agent's own report). */
  failure?: StepFailure | undefined;
}

/**
 * How much of a run's work was done (docs/architecture.md §5, "Failures"): `completed` when every
 * step was done, `failed` when none was and at least one failed, else `partial` (some step not
 * done; a run whose every step a person declined is `partial` too: nothing failed).
 *
 * @example
 * runState([{ state: 'completed' }, { state: 'failed', failure: 'task' }]); // 'partial'
 */
export function runState(steps: readonly StepEnd[]): RunState {
  if (steps.every((step) => step.state === 'completed')) return 'completed';
  if (steps.some((step) => step.state === 'completed')) return 'partial';
  return steps.some((step) => step.state === 'failed') ? 'failed' : 'partial';
}

/**
 * True when the run is the fleet's failure, not an answer: no step was done, and every step that
 * did not get done failed for a reason of the fleet (unreachable, silent, circuit open, upstream
 * failing). A run with any step ended for a reason of its task — a program that failed, an agent
 * not configured, a denial — is answered, with that step's explanation.
 *
 * @example
 * isFleetFailure([{ state: 'failed', failure: 'fleet' }]); // true
 */
export function isFleetFailure(steps: readonly StepEnd[]): boolean {
  if (steps.length === 0 || steps.some((step) => step.state === 'completed')) return false;
  const failed = steps.filter((step) => step.state === 'failed');
  return (
    failed.length > 0 &&
    steps.every(
      (step) => step.state === 'skipped' || (step.state === 'failed' && step.failure === 'fleet'),
    )
  );
}
