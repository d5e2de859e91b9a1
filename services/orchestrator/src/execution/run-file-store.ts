import type { AgentCard, RunFileStore } from '@fleet/a2a';
import { ServiceUnavailableError } from '@fleet/errors';
import type { AvailableAgent } from '../discovery';

/**
 * The agent that keeps run files: a card skill tagged `files` (the RAG agent's skill that
 * answers the files command, `filesCommandSchema`).
 */
export function filesAgentOf(agents: readonly AvailableAgent[]): AvailableAgent | undefined {
  const keeps = (card: AgentCard): boolean =>
    card.skills.some((skill) => skill.tags.includes('files'));
  return agents.find((agent) => keeps(agent.card));
}

/** Options for {@link createDiscoveredRunFileStore}. */
export interface DiscoveredRunFileStoreOptions {
  /** The agents discovered now: the file store is the one {@link filesAgentOf} finds. */
  availableAgents: () => Promise<AvailableAgent[]>;
  /**
   * A client of that agent's file store (`createRunFilesClient`); undefined when none can be
   * made. Called again when the agent's card changes.
   */
  open: (agent: AvailableAgent) => RunFileStore | undefined;
}

/**
 * The fleet's {@link RunFileStore} as the orchestrator finds it: every call goes to the agent that
 * keeps files among the agents discovered at that moment (its client made once per card). With
 * no such agent, or none that can be opened, a call rejects with `ServiceUnavailableError`: the
 * run refuses its files with that reason and goes on.
 *
 * @example
 * const store = createDiscoveredRunFileStore({ availableAgents, open: openRunFileStore });
 */
export function createDiscoveredRunFileStore({
  availableAgents,
  open,
}: DiscoveredRunFileStoreOptions): RunFileStore {
  let current: { card: AgentCard; store: RunFileStore | undefined } | undefined;
  const storeNow = async (): Promise<RunFileStore> => {
    const agent = filesAgentOf(await availableAgents());
    if (agent === undefined) {
      throw new ServiceUnavailableError(
        'no agent that keeps files (a card skill tagged "files": the RAG agent) is available',
      );
    }
    if (current?.card !== agent.card) current = { card: agent.card, store: open(agent) };
    if (current.store === undefined) {
      throw new ServiceUnavailableError(`the file store of ${agent.name} cannot be reached`);
    }
    return current.store;
  };
  return {
    put: async (input) => (await storeNow()).put(input),
    get: async (input) => (await storeNow()).get(input),
    info: async (input) => (await storeNow()).info(input),
    list: async (input) => (await storeNow()).list(input),
    remove: async (input) => (await storeNow()).remove(input),
  };
}
