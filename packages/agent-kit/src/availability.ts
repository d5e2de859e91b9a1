import type { AgentAvailability, AgentCard, AgentExtension } from '@fleet/a2a';
import type { ReadinessCheck } from '@fleet/http';

/**
 * The URI of the fleet's availability extension of an Agent Card (docs/a2a.md §2.1): an entry of
 * `capabilities.extensions` whose `params` say whether the agent can do its work now.
 */
export const AVAILABILITY_EXTENSION_URI = 'urn:a2a-fleet:availability:v1';

/**
 * The card extension for an agent's availability: `{ uri, description, required: false, params:
 * { state, reason?, unavailableSkills? } }`. Not required: a client that does not know it may
 * ignore it and call the agent as before (it then gets the same reason as a failed task).
 *
 * @example
 * availabilityExtension({ state: 'unconfigured', reason: 'No mailbox is configured: …' });
 */
export function availabilityExtension(availability: AgentAvailability): AgentExtension {
  const { state, reason, unavailableSkills } = availability;
  return {
    uri: AVAILABILITY_EXTENSION_URI,
    description:
      'Whether the agent can do its work now: ready, degraded (some skills unavailable) or unconfigured (settings missing); reason says what to configure.',
    required: false,
    params: {
      state,
      ...(reason === undefined ? {} : { reason }),
      ...(unavailableSkills === undefined || unavailableSkills.length === 0
        ? {}
        : { unavailableSkills: [...unavailableSkills] }),
    },
  };
}

/**
 * The card with its availability declared: the extension added to `capabilities.extensions`
 * (replacing an earlier one with the same URI). Every state is declared, `ready` too, so a reader
 * can tell "ready" from "does not say".
 *
 * @example
 * const card = withAvailability(buildAgentCard({ … }), mailAvailability(account));
 */
export function withAvailability(card: AgentCard, availability: AgentAvailability): AgentCard {
  const others = (card.capabilities.extensions ?? []).filter(
    (extension) => extension.uri !== AVAILABILITY_EXTENSION_URI,
  );
  return {
    ...card,
    capabilities: {
      ...card.capabilities,
      extensions: [...others, availabilityExtension(availability)],
    },
  };
}

/**
 * The `/readyz` check for an agent's availability. `ready` passes; `degraded` and `unconfigured`
 * report as degraded (`/readyz` answers 200 with `status: "degraded"` and `checks.availability`
 * saying the state and the reason): the agent is up and answers, it only cannot do some or all of
 * its work, and a 503 would take it out of load balancers and keep `pnpm fleet up` waiting for
 * something no restart fixes.
 *
 * @example
 * await startAgentService({ …, availability: webAvailability(settings) }); // adds it as `availability`
 */
export function availabilityReadiness(availability: AgentAvailability): ReadinessCheck {
  const report = describeAvailability(availability);
  return () => (availability.state === 'ready' ? undefined : { degraded: report });
}

/**
 * An availability in one line: `unconfigured — No mailbox is configured: …` or `degraded — … (unavailable
 * skills: web-search, news)`.
 */
export function describeAvailability({
  state,
  reason,
  unavailableSkills = [],
}: AgentAvailability): string {
  const skills =
    unavailableSkills.length === 0 ? '' : ` (unavailable skills: ${unavailableSkills.join(', ')})`;
  return `${state}${reason === undefined ? '' : ` — ${reason}`}${skills}`;
}
