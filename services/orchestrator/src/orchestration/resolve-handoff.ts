import { resolveSteeringName, type AgentSummary, type HandoffRequest } from '@fleet/a2a';
import type { AvailableAgent } from '../discovery';
import { handoffTargetName, type HandoffTarget, type ResolveHandoff } from '../execution';

/** What {@link createHandoffResolver} looks in. */
export interface HandoffResolverOptions {
  /** The agents the run may use: the planner's (tenant tool policy and exclusions applied). */
  agents: () => Promise<AvailableAgent[]>;
  /**
   * The agents before the request's exclusions (`steering.exclude`), to say that a target was
   * excluded rather than unknown. Undefined: the run excludes nothing.
   */
  agentsBeforeSteering?: (() => Promise<AvailableAgent[]>) | undefined;
}

/**
 * The run's {@link ResolveHandoff}: a hand-off's `agent` is a card name, its `skill` a skill id
 * on any agent or `<agent>/<skill>` (as a steering name reads, `resolveSteeringName`); with both,
 * the skill must be the agent's. Only agents the run may use are targets; the refusal names what
 * was asked for and says whether the request excluded it or no agent this run may use has it.
 *
 * @example
 * const resolveHandoff = createHandoffResolver({ agents: options.availableAgents });
 */
export function createHandoffResolver({
  agents,
  agentsBeforeSteering,
}: HandoffResolverOptions): ResolveHandoff {
  return async (request) => {
    const name = handoffTargetName(request);
    let available: AvailableAgent[];
    try {
      available = await agents();
    } catch {
      return { refused: `the agents could not be listed to find "${name}"` };
    }
    const target = findTarget(
      request,
      available.map((agent) => agent.summary),
    );
    if (target !== undefined) return target;
    if (agentsBeforeSteering !== undefined) {
      const all = await agentsBeforeSteering().catch((): AvailableAgent[] => []);
      const excluded = findTarget(
        request,
        all.map((agent) => agent.summary),
      );
      if (excluded !== undefined) {
        return { refused: `"${name}" is excluded from this run by the request's agent steering` };
      }
    }
    return { refused: `no agent or skill "${name}" is available to this run` };
  };
}

/** The agent (and skill) of `agents` the request names, or undefined. */
function findTarget(
  request: Pick<HandoffRequest, 'agent' | 'skill'>,
  agents: readonly AgentSummary[],
): HandoffTarget | undefined {
  if (request.agent !== undefined) {
    const agent = agents.find((entry) => entry.name === request.agent);
    if (agent === undefined) return undefined;
    if (request.skill === undefined) return { agent: agent.name };
    const own = `${agent.name}/`;
    const skill = request.skill.startsWith(own) ? request.skill.slice(own.length) : request.skill;
    return agent.skills.some((entry) => entry.id === skill)
      ? { agent: agent.name, skill }
      : undefined;
  }
  if (request.skill === undefined) return undefined;
  const [first] = resolveSteeringName(request.skill, agents);
  return first === undefined
    ? undefined
    : { agent: first.agent, ...(first.skill === undefined ? {} : { skill: first.skill }) };
}
