import { agentAvailabilitySchema, type AgentAvailability, type AgentCard } from '@fleet/a2a';

/**
 * The URI of the fleet's availability extension of an Agent Card (docs/a2a.md §2.1). Agents built
 * on `@fleet/agent-kit` declare it with `withAvailability`; any other agent may too.
 */
export const AVAILABILITY_EXTENSION_URI = 'urn:a2a-fleet:availability:v1';

/** What a card says about its availability. */
export type AvailabilityRead =
  | { availability: AgentAvailability | undefined }
  | {
      availability: undefined;
      /** Why the extension was ignored, for the log. */
      problem: string;
    };

/**
 * Reads the availability extension of a card, liberally (CONTRIBUTING.md convention 9): no
 * extension is `undefined` (the agent does not say; it counts as ready); a malformed one (params
 * missing, an unknown state, skills not a list of strings) is ignored with the `problem` to log,
 * never failing discovery; unknown params are dropped; `unavailableSkills` keeps only ids the card
 * has, so a plan's skill check stays meaningful.
 *
 * @example
 * readAvailability(card); // { availability: { state: 'unconfigured', reason: 'No mailbox …' } }
 */
export function readAvailability(card: AgentCard): AvailabilityRead {
  const extension = card.capabilities.extensions?.find(
    (entry) => entry.uri === AVAILABILITY_EXTENSION_URI,
  );
  if (extension === undefined) return { availability: undefined };
  const parsed = agentAvailabilitySchema.safeParse(extension.params ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((issue) => `${issue.path.join('.') || 'params'}: ${issue.message}`)
      .join('; ');
    return {
      availability: undefined,
      problem: `its availability extension (${AVAILABILITY_EXTENSION_URI}) is malformed and ignored: ${issues}`,
    };
  }
  const { state, reason, unavailableSkills } = parsed.data;
  const known = new Set(card.skills.map((skill) => skill.id));
  const skills = (unavailableSkills ?? []).filter((skill) => known.has(skill));
  return {
    availability: {
      state,
      ...(reason === undefined ? {} : { reason }),
      ...(skills.length === 0 ? {} : { unavailableSkills: skills }),
    },
  };
}

/**
 * Why a plan node cannot run on an agent with this availability, or undefined when it can: an
 * `unconfigured` agent can do nothing; a node whose skill is unavailable cannot run either. A node
 * without a skill on a `degraded` agent runs (the agent picks what it can do).
 *
 * @example
 * unavailableReason({ agent: 'mail-agent', skill: 'send' }, { state: 'degraded', unavailableSkills: ['send'], reason: 'No SMTP …' });
 * // 'mail-agent cannot do "send" now: No SMTP …'
 */
export function unavailableReason(
  node: { agent: string; skill?: string | undefined },
  availability: AgentAvailability | undefined,
): string | undefined {
  if (availability === undefined || availability.state === 'ready') return undefined;
  const reason = availability.reason ?? 'the agent gives no reason';
  if (availability.state === 'unconfigured') {
    return `${node.agent} is not configured, so the step was not sent to it: ${reason}`;
  }
  if (node.skill !== undefined && (availability.unavailableSkills ?? []).includes(node.skill)) {
    return `${node.agent} cannot do "${node.skill}" now, so the step was not sent to it: ${reason}`;
  }
  return undefined;
}
