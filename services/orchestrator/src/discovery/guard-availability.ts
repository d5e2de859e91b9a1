import type { InvokeAgent } from '../execution';
import type { AvailableAgent } from './agent-directory';
import { unavailableReason } from './read-availability';

/** Options for {@link guardAvailability}. */
export interface GuardAvailabilityOptions {
  invokeAgent: InvokeAgent;
  /** The agent as discovery knows it now (its card's availability). */
  findAgent: (name: string) => Promise<AvailableAgent | undefined>;
}

/**
 * Fails a step fast, without calling its agent, when the agent's card says it cannot do it: the
 * agent is `unconfigured`, or the step's skill is one of its `unavailableSkills` (docs/agents.md,
 * "Saying whether it can work"). The step fails with the agent's own reason (what to configure),
 * not retried (nothing was sent; sending again would fail the same way). Continuations and follows
 * of an existing task always go through: the agent has the task already.
 *
 * @example
 * const invokeAgent = guardAvailability({ invokeAgent: invoker, findAgent: (name) => directory.findAgent(name) });
 */
export function guardAvailability({
  invokeAgent,
  findAgent,
}: GuardAvailabilityOptions): InvokeAgent {
  return async function guardedInvokeAgent(request) {
    if (request.existingTask === undefined) {
      const agent = await findAgent(request.node.agent);
      const reason = unavailableReason(request.node, agent?.availability);
      if (reason !== undefined) return { status: 'failed', error: reason, retryable: false };
    }
    return invokeAgent(request);
  };
}
