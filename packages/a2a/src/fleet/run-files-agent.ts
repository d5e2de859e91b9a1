import type { AgentCard } from '../schemas/agent-card';

/**
 * The card skill id of the agent that keeps the fleet's run files (the RAG agent, which answers
 * the `files` commands: {@link filesCommandSchema}).
 */
export const RUN_FILES_SKILL = 'files';

/** The tag every card skill that answers the `files` commands carries. */
export const RUN_FILES_SKILL_TAG = 'run-files';

/** True when the card has a skill that answers the `files` commands (tagged `files` and `run-files`). */
export function keepsRunFiles(card: AgentCard): boolean {
  return card.skills.some(
    (skill) => skill.tags.includes('files') && skill.tags.includes(RUN_FILES_SKILL_TAG),
  );
}

/**
 * The agent that keeps the fleet's run files: the first whose card has a skill tagged `files` and
 * `run-files` (the RAG agent's "Run files" skill); undefined when none is available.
 *
 * @example
 * const agent = filesAgentOf(await directory.availableAgents());
 * if (agent) createRunFilesClient({ client: new A2AClient({ url: agent.url, token }), agentUrl: agent.url });
 */
export function filesAgentOf<TAgent extends { card: AgentCard }>(
  agents: readonly TAgent[],
): TAgent | undefined {
  return agents.find((agent) => keepsRunFiles(agent.card));
}
