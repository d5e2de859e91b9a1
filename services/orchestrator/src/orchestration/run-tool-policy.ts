import { applyToolPolicy, deniedToolReason, parseToolSkillId, type ToolPolicy } from '@fleet/a2a';
import type { AvailableAgent } from '../discovery';
import type { InvokeAgent } from '../execution';

/**
 * The agents a run with `policy` may plan with: tools agents without the MCP tools the tenant may
 * not use (`applyToolPolicy` from `@fleet/a2a`), and without a tools agent none of whose tools is
 * left. Without a policy the agents are returned as they are.
 *
 * @example
 * const availableAgents = async () => agentsUnderToolPolicy(await directory.availableAgents(), policy);
 */
export function agentsUnderToolPolicy(
  agents: readonly AvailableAgent[],
  policy: ToolPolicy | undefined,
): AvailableAgent[] {
  if (policy === undefined) return [...agents];
  return agents.flatMap((agent) => {
    const summary = applyToolPolicy(agent.summary, policy);
    if (summary === undefined) return [];
    return summary === agent.summary ? [agent] : [{ ...agent, summary }];
  });
}

/** Options for {@link guardToolPolicy}. */
export interface GuardToolPolicyOptions {
  invokeAgent: InvokeAgent;
  /** Every agent discovery knows now, before any tool policy (to tell tools agents apart). */
  availableAgents: () => Promise<AvailableAgent[]>;
}

/**
 * Refuses, without calling its agent, a step whose skill is an MCP tool the run's tool policy
 * (`input.fleet.toolPolicy`) does not permit — whether the plan came from the planner or with the
 * request. The step fails with the reason, not retried (nothing was sent; it would fail the same
 * way). Following an existing task goes through; a continuation (a decision or an answer that
 * would make the agent act) is refused like a new step.
 *
 * @example
 * const invokeAgent = guardToolPolicy({ invokeAgent, availableAgents: () => directory.availableAgents() });
 */
export function guardToolPolicy({
  invokeAgent,
  availableAgents,
}: GuardToolPolicyOptions): InvokeAgent {
  return async function toolPolicyGuardedInvokeAgent(request) {
    const policy = request.input.fleet.toolPolicy;
    const skillId = request.node.skill;
    const acts =
      request.existingTask === undefined || request.existingTask.continuation !== undefined;
    if (policy !== undefined && skillId !== undefined && acts) {
      const agent = (await availableAgents()).find(
        (candidate) => candidate.name === request.node.agent,
      );
      // An agent discovery does not know (now) is judged by the skill id alone.
      const judged = agent?.summary ?? {
        name: request.node.agent,
        skills: parseToolSkillId(skillId) === undefined ? [] : [{ id: skillId, tags: ['mcp'] }],
      };
      const reason = deniedToolReason({ agent: judged, skillId, policy });
      if (reason !== undefined) {
        return {
          status: 'failed',
          error: `The step was not sent: ${reason}.`,
          retryable: false,
          failure: 'task',
        };
      }
    }
    return invokeAgent(request);
  };
}
