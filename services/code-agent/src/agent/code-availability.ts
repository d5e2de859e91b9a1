import type { AgentAvailability } from '@fleet/a2a';

/** What {@link codeAvailability} needs to know about the agent's setup. */
export interface CodeAvailabilityInput {
  /** The sandbox's start-up check: whether it can run programs here, and why not. */
  sandbox: { available: boolean; reason?: string | undefined };
  /** True when no upstream LLM is configured: programs are run, never written. */
  offline: boolean;
}

/**
 * Whether the code agent can work (its card's availability extension and `/readyz`): without a
 * sandbox it runs nothing, so it is `unconfigured` with the sandbox's reason; offline it runs only a
 * program the task gives in a ```python block and writes none, so it is `degraded` (the planner
 * still plans it for a request only it can serve; a request without a program then fails saying
 * this); otherwise `ready`.
 *
 * @example
 * codeAvailability({ sandbox: { available: true }, offline: true });
 * // { state: 'degraded', reason: 'No LLM is configured, so the code agent …' }
 */
export function codeAvailability({ sandbox, offline }: CodeAvailabilityInput): AgentAvailability {
  if (!sandbox.available) {
    return {
      state: 'unconfigured',
      reason: `The code agent cannot run programs here: ${sandbox.reason ?? 'its sandbox is not available'}. Install bubblewrap (apt-get install bubblewrap) or set CODE_AGENT_SANDBOX, then restart the code agent.`,
    };
  }
  if (offline) {
    return {
      state: 'degraded',
      reason:
        'No LLM is configured, so the code agent writes no programs: it runs only a program the request gives in a ```python fenced block. Set OPENAI_BASE_URL and OPENAI_API_KEY for the code agent to have it write them.',
    };
  }
  return { state: 'ready' };
}
