/**
 * The reason a run is aborted with when its orchestrator hands the session over instead of
 * ending it (graceful shutdown, or a runner lease it lost): agent tasks are left alone — not
 * canceled — and nothing more is recorded, so another orchestrator can resume the session from
 * where it stopped.
 */
export class RunHandover extends Error {
  constructor(message = 'The orchestrator handed the session over; another one can resume it.') {
    super(message);
    this.name = 'RunHandover';
  }
}

/** True when `reason` (an abort signal's reason) is a {@link RunHandover}. */
export function isRunHandover(reason: unknown): reason is RunHandover {
  return reason instanceof RunHandover;
}
